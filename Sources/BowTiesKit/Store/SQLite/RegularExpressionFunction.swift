import Foundation
import GRDB
internal import GRDBSQLite
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

    /// Registers the same function on a connection GRDB does not manage
    /// (``SQLiteReadConnection``), with SQLite's C API: the same answers,
    /// and the same error for a pattern that does not compile.
    static func register(on connection: OpaquePointer) {
        sqlite3_create_function_v2(
            connection, "regexp", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, count, values in
                guard count == 2, let values else { return }
                // As GRDB's `String.fromDatabaseValue`: text, or a blob of UTF-8.
                func text(_ value: OpaquePointer?) -> String? {
                    switch sqlite3_value_type(value) {
                    case SQLITE_TEXT: return sqlite3_value_text(value).map { String(cString: $0) }
                    case SQLITE_BLOB:
                        let count = Int(sqlite3_value_bytes(value))
                        guard count > 0, let bytes = sqlite3_value_blob(value) else { return "" }
                        return String(data: Data(bytes: bytes, count: count), encoding: .utf8)
                    default: return nil
                    }
                }
                guard let pattern = text(values[0]), sqlite3_value_type(values[1]) != SQLITE_NULL else {
                    sqlite3_result_null(context)
                    return
                }
                guard let value = text(values[1]) else {
                    sqlite3_result_int(context, 0)
                    return
                }
                do {
                    let expression = try RegularExpressionFunction.compiled(pattern)
                    let found = expression.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
                    sqlite3_result_int(context, found ? 1 : 0)
                } catch let error as DatabaseError {
                    sqlite3_result_error(context, error.message ?? "\(error)", -1)
                    sqlite3_result_error_code(context, error.extendedResultCode.rawValue)
                } catch {
                    sqlite3_result_error(context, "\(error)", -1)
                }
            }, nil, nil, nil)
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
