import Foundation
import PropertyList

/// What every fuzz target checks besides "no crash": the properties that
/// hold for any input. A broken property stops the process
/// (`fatalError`), which libFuzzer reports as a crash with the input that
/// caused it.
public enum Invariants {
    /// The display name the targets give every input.
    public static let displayName = "fuzz.plist"

    /// An error thrown by the reader must be a `PropertyListError`, named
    /// after the document, located inside it unless it is about the whole
    /// file, and printable.
    public static func check(readerError error: any Error, _ context: StaticString) {
        guard let error = error as? PropertyListError else {
            fatalError("\(context): the reader threw \(type(of: error)): \(error)")
        }
        check(error, context)
    }

    /// See ``check(readerError:_:)``.
    public static func check(_ error: PropertyListError, _ context: StaticString) {
        guard error.file == displayName else {
            fatalError("\(context): error names file \(error.file): \(error)")
        }
        guard !error.message.isEmpty else {
            fatalError("\(context): error without a message: \(error.kind)")
        }
        if let location = error.location {
            check(location, context, error.description)
        } else if !mayLackLocation(error) {
            fatalError("\(context): unlocated \(error.kind) error: \(error)")
        }
        _ = error.description
    }

    /// Errors about the whole file have no location. So does an internal
    /// DTD subset that only libxml2 saw (the prolog scan could not: a
    /// prolog longer than the scan, or UTF-16), since libxml2 does not say
    /// where the DTD is; and a libxml2 error reported without a line.
    static func mayLackLocation(_ error: PropertyListError) -> Bool {
        switch error.kind {
        case .binaryPropertyList, .unreadable, .fileNotFound:
            return true
        case .forbiddenDeclaration:
            return error.message.hasPrefix("documents with an internal DTD subset")
        case .malformedXML, .tooDeeplyNested:
            // Straight from libxml2, whose line may be 0.
            return true
        case .unexpectedElement, .invalidValue, .duplicateKey, .malformedBinary, .malformedText:
            return false
        }
    }

    /// A location is in the document: 1-based line and column.
    public static func check(_ location: SourceLocation, _ context: StaticString, _ what: String) {
        guard location.file == displayName, location.line >= 1, location.column >= 1 else {
            fatalError("\(context): bad location \(location) in \(what)")
        }
    }

    /// Every value and key of an item is located.
    public static func checkLocations(_ item: PropertyListItem) {
        var pending = [item]
        while let item = pending.popLast() {
            check(item.location, "value", item.value.elementName)
            switch item.value {
            case .array(let items):
                pending.append(contentsOf: items)
            case .dictionary(let dictionary):
                for entry in dictionary.entries {
                    check(entry.keyLocation, "key", entry.key)
                    pending.append(entry.item)
                }
            default:
                break
            }
        }
    }

    /// Whether two values are the same ignoring locations (and with NaN
    /// equal to NaN, as a property list means it).
    public static func sameValue(_ a: PropertyListValue, _ b: PropertyListValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.real(let x), .real(let y)): return x == y || (x.isNaN && y.isNaN)
        case (.bool(let x), .bool(let y)): return x == y
        case (.date(let x), .date(let y)): return x == y
        case (.data(let x), .data(let y)): return x == y
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { sameValue($0.value, $1.value) }
        case (.dictionary(let x), .dictionary(let y)):
            return x.count == y.count
                && zip(x.entries, y.entries).allSatisfy {
                    $0.key == $1.key && sameValue($0.item.value, $1.item.value)
                }
        default: return false
        }
    }
}
