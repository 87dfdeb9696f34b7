import Foundation

/// A record as text a person edits, one `field: value` line per
/// attribute they may change, and the parser that reads it back:
/// what `bowties edit` hands to `$VISUAL`.
///
/// ```
/// # Editing Classic Red Bow Tie (R). Save and quit to apply, ...
/// name: Classic Red Bow Tie
/// searchKey: R
/// rating: 3.5
/// isFavorite: false
/// url: https://en.wikipedia.org/wiki/Bow_tie
/// tintColor: #C81E2D
/// tags: formal, red
/// ```
///
/// The fields come from the declaration: every attribute except the
/// primary key, binary data (photos have a command of their own) and
/// derived attributes (they follow their relationship), then every
/// to-many relationship whose destination has a name (`tags`), as a
/// comma-separated list. Lines starting with `#` are comments.
public struct RecordText: Sendable {
    public let entity: EntityDescription
    /// The attributes shown, in declaration order.
    public let attributes: [AttributeDescription]
    /// The to-many relationships shown as lists of names.
    public let namedRelationships: [RelationshipDescription]

    /// The text form of `entity`'s records.
    ///
    /// - Parameter model: Where relationships' destinations are looked
    ///   up: a to-many is shown when its destination has a name.
    public init(entity: EntityDescription, model: ObjectModel) {
        self.entity = entity
        attributes = entity.attributes.filter {
            !$0.isPrimaryKey && $0.type != .binaryData && $0.derivation == nil
        }
        namedRelationships = entity.relationships.filter {
            $0.isToMany && model[$0.destination]?.nameAttribute != nil
        }
    }

    /// The prefix of the lines ``render(_:errors:)`` puts on top for
    /// errors; they are dropped when the text is read or rendered again.
    public static let errorPrefix = "# ERROR: "

    /// The text of `record`, with the comments that explain the format,
    /// and `errors` on top as comment lines.
    public func render(_ record: Record, errors: [String] = []) -> String {
        header(for: record, errors: errors) + body(of: record)
    }

    /// The lines a person edits, without comments.
    public func body(of record: Record) -> String {
        // `url:` for no value, without a trailing space.
        func line(_ field: String, _ value: String) -> String {
            value.isEmpty ? "\(field):" : "\(field): \(value)"
        }
        var lines: [String] = []
        for attribute in attributes {
            lines.append(line(attribute.name, Self.escaped(attribute.text(of: record[attribute.name]))))
        }
        for relationship in namedRelationships {
            let names = record.names[relationship.name] ?? []
            lines.append(line(relationship.name, names.map(Self.escaped).joined(separator: ", ")))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` with `errors` as comment lines on top, in place of the
    /// errors it had (a text given back after a failed save).
    public func withErrors(_ errors: [String], _ text: String) -> String {
        let kept = text.split(separator: "\n", omittingEmptySubsequences: false).drop(while: {
            $0.hasPrefix(Self.errorPrefix)
        })
        let errorLines = errors.flatMap { $0.split(separator: "\n").map { Self.errorPrefix + $0 } }
        return (errorLines + kept.map(String.init)).joined(separator: "\n")
    }

    private func header(for record: Record, errors: [String]) -> String {
        var lines = errors.flatMap { $0.split(separator: "\n").map { Self.errorPrefix + $0 } }
        if !lines.isEmpty {
            lines.append("# Fix the lines below and save, or quit without saving to leave it as it was.")
            lines.append("#")
        }
        lines += [
            "# Editing \(Self.escaped(record.label)). Save and quit to apply the change;",
            "# quit without saving, or empty the file, to leave it as it is.",
            "#",
            "# One \"field: value\" per line. An empty value means no value (optional",
            "# fields only); a line taken out leaves its field as it is. Spaces around",
            "# a value are dropped. \\n stands for a line break, \\\\ for a backslash.",
        ]
        for relationship in namedRelationships {
            lines.append("# \(relationship.name): names separated by commas.")
        }
        lines.append("#")
        for attribute in attributes {
            let rules = attribute.ruleSummary.filter { !$0.hasPrefix("imported from") && !$0.hasPrefix("transformer") }
            lines.append("#   \(attribute.name): \(attribute.expectedTextForm); \(rules.joined(separator: ", "))")
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// Reads an edited text onto `record`: the fields it has replace the
    /// record's values; the fields it leaves out keep them.
    ///
    /// - Returns: The changed record, or nil when the text holds nothing
    ///   but comments and blank lines (an emptied text).
    /// - Throws: ``RecordTextError`` naming the line, for a line that is
    ///   not `field: value`, an unknown or repeated field, or a value of
    ///   the wrong form. Whether the values are acceptable is for
    ///   validation.
    public func parse(_ text: String, onto record: Record) throws -> Record? {
        var record = record
        var seen: Set<String> = []
        var sawField = false
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces.union(["\r"]))
            if line.isEmpty || line.hasPrefix("#") { continue }
            let number = offset + 1
            sawField = true
            guard let colon = line.firstIndex(of: ":") else {
                throw RecordTextError(line: number, message: "expected \"field: value\", found \(quoted(line))")
            }
            let field = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = Self.unescaped(String(line[line.index(after: colon)...]))
            guard seen.insert(field).inserted else {
                throw RecordTextError(line: number, field: field, message: "\(field) appears more than once")
            }
            if let attribute = attributes.first(where: { $0.name == field }) {
                do {
                    record[field] = try attribute.value(fromText: value)
                } catch let error as ValueTextError {
                    throw RecordTextError(line: number, field: field, message: error.description)
                }
            } else if namedRelationships.contains(where: { $0.name == field }) {
                record.names[field] = Self.names(in: value)
            } else {
                throw RecordTextError(line: number, field: field, message: unknownFieldMessage(field))
            }
        }
        return sawField ? record : nil
    }

    private func unknownFieldMessage(_ field: String) -> String {
        let fields = attributes.map(\.name) + namedRelationships.map(\.name)
        var message = "unknown field \(quoted(field))"
        if let declared = entity.attributes.first(where: { $0.name == field }) {
            message = "\(field) cannot be edited here"
            if declared.derivation != nil {
                message += ": it follows the \(declared.derivation?.relationship ?? "") history"
            } else if declared.type == .binaryData {
                message += ": `bowties photo` changes it"
            } else if declared.isPrimaryKey {
                message += ": it identifies the record"
            }
        } else if let close = fields.first(where: { $0.lowercased() == field.lowercased() }) {
            message += " (did you mean \(close)?)"
        }
        return message + "; the fields are " + fields.joined(separator: ", ")
    }

    private func quoted(_ text: String) -> String {
        AttributeValue.string(text).messageText
    }

    /// The names of a comma-separated list, trimmed, empty ones dropped.
    static func names(in text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A value on one line: backslashes doubled, line breaks, carriage
    /// returns and tabs as `\n`, `\r`, `\t`.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\r\n": result += "\\r\\n"
            default: result.append(character)
            }
        }
        return result
    }

    /// The reverse of ``escaped(_:)``; a backslash before anything else
    /// stays as typed.
    static func unescaped(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var result = ""
        var pending = false
        for character in text {
            if pending {
                switch character {
                case "n": result += "\n"
                case "r": result += "\r"
                case "t": result += "\t"
                case "\\": result += "\\"
                default: result += "\\" + String(character)
                }
                pending = false
            } else if character == "\\" {
                pending = true
            } else {
                result.append(character)
            }
        }
        if pending { result += "\\" }
        return result
    }
}

/// A line of an edited text that cannot be read: `line 3: rating: "high"
/// is not a number such as 4.5`.
public struct RecordTextError: Error, Sendable, CustomStringConvertible {
    /// The line, counting from 1.
    public var line: Int
    /// The field the line names, when it names one.
    public var field: String?
    public var message: String

    public init(line: Int, field: String? = nil, message: String) {
        self.line = line
        self.field = field
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}
