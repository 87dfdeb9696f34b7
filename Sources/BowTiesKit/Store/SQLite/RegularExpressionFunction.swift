import Foundation
import GRDB
import Synchronization

/// SQLite's `REGEXP` operator, which SQLite leaves to the application:
/// `value REGEXP pattern` calls `regexp(pattern, value)`. Registered on
/// every connection of a catalog (``Catalog``'s `prepareDatabase`), for
/// the query language's `field::REGEX`.
///
/// Patterns are ICU regular expressions (`NSRegularExpression`), matched
/// anywhere in the value; `(?i)` ignores case. A NULL value gives NULL,
/// so that a missing value matches neither the term nor, negated, fails it.
enum RegularExpressionFunction {
    /// A new function value for one connection.
    static func make() -> DatabaseFunction {
        DatabaseFunction("regexp", argumentCount: 2, pure: true) { values in
            guard let pattern = String.fromDatabaseValue(values[0]) else { return nil }
            if values[1].isNull { return nil }
            guard let text = String.fromDatabaseValue(values[1]) else { return false }
            let expression = try compiled(pattern)
            return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
    }

    /// Compiled patterns by their text: a statement calls the function
    /// once per row with the same pattern, which is compiled once.
    /// Bounded: past the limit the cache starts again.
    private static let cache = Mutex<[String: CompiledPattern]>([:])
    private static let cacheLimit = 64

    /// `NSRegularExpression` is immutable once made and documented as safe
    /// to use from several threads at once, but not marked `Sendable`.
    private final class CompiledPattern: @unchecked Sendable {
        let expression: NSRegularExpression

        init(_ expression: NSRegularExpression) {
            self.expression = expression
        }
    }

    /// - Throws: `DatabaseError` for a pattern that does not compile (the
    ///   query parser refuses those first, naming the term).
    static func compiled(_ pattern: String) throws -> NSRegularExpression {
        if let known = cache.withLock({ $0[pattern] }) { return known.expression }
        let expression: NSRegularExpression
        do {
            expression = try NSRegularExpression(pattern: pattern)
        } catch {
            throw DatabaseError(message: "invalid regular expression: \(pattern)")
        }
        cache.withLock { patterns in
            if patterns.count >= cacheLimit { patterns.removeAll() }
            patterns[pattern] = CompiledPattern(expression)
        }
        return expression
    }
}
