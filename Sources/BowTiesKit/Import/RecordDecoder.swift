import Crypto
import Foundation
import PropertyList

/// Where a record's photo comes from.
enum PhotoSource {
    /// A file name in the images folder (`imageName`).
    case name(String)
    /// The bytes themselves (`<data>`, or Base64 text in JSON and CSV).
    case inline(Data)
    /// "The photo with this SHA-256" (an export's `--photos hash`): the
    /// catalog must hold it already.
    case hash(String)
}

/// A record read from an import file, validated, not yet stored.
struct DecodedRecord {
    var tie: BowTie
    /// The photo as given (an image name, bytes or a hash), with the key
    /// it was given under and where.
    var photo: (source: PhotoSource, key: String, location: SourceLocation)?
    /// The objects of owned to-many relationships the record gives
    /// (`wears`), validated, their link to the record not yet set; by
    /// relationship name. Nil when the record gives none.
    var children: [String: [Record]]?
    /// Where the record's `<dict>` starts.
    var location: SourceLocation
    /// Which attributes the `<dict>` gives a value for, a bit per
    /// position; the others hold their defaults. `import --update`
    /// changes only these. (Bits, not an array: no allocation per record
    /// on the import's fast path.)
    var present: UInt64
    /// The baselines of derived attributes the record gives
    /// (`timesWornBefore`, `lastWornBefore`), by attribute position,
    /// validated by the attribute's rules. (Empty, no allocation, for a
    /// file that has none.)
    var baselines: [(index: Int, value: AttributeValue)] = []
    /// With ``RecordDecoder/defersMissingValues``: the error for the
    /// required attributes the record leaves out, to throw if it turns out
    /// to be new (an update takes them from the stored record instead).
    var missingValues: ImportError?

    /// Whether the `<dict>` gives a value for the attribute at `index`.
    /// Past the 64th attribute every one counts as given: updated as
    /// before, reset when missing.
    func gives(_ index: Int) -> Bool {
        index >= 64 || present & (1 << UInt64(index)) != 0
    }

    /// Whether the record gives the baseline of the attribute at `index`.
    func givesBaseline(_ index: Int) -> Bool {
        baselines.contains { $0.index == index }
    }

    /// The `imageName` as written, with where it was written.
    var imageName: (name: String, location: SourceLocation)? {
        guard let photo, case .name(let name) = photo.source else { return nil }
        return (name, photo.location)
    }
}

/// How an import file writes scalar values: what the decoder accepts
/// besides the property-list element of each type, and how its messages
/// name values.
enum ValueSyntax: Sendable {
    /// XML or binary property lists: typed elements; dates as `<date>`.
    case propertyList
    /// JSON: typed numbers and booleans; dates as ISO 8601 strings.
    case json
    /// CSV: every value is text, read by the attribute's type.
    case text

    /// A value as the file's format calls it: `<string>` in a property
    /// list, `a string` in JSON.
    func name(of value: PropertyListValue) -> String {
        guard self != .propertyList else { return value.elementName }
        switch value {
        case .string: return self == .text ? "text" : "a string"
        case .integer: return "an integer"
        case .real: return "a number"
        case .bool(let flag): return flag ? "true" : "false"
        case .date: return "a date"
        case .data: return "data"
        case .array: return "an array"
        case .dictionary: return "an object"
        }
    }

    /// A string, as the format calls it.
    var string: String { self == .propertyList ? "<string>" : "a string" }
}

/// Turns one `<dict>` of a property list into a ``Record`` of an entity
/// (bow ties, by default).
///
/// Keys map to attributes through ``AttributeDescription/importKey``, and
/// to to-many relationships through ``RelationshipDescription/importKey``
/// (an `<array>` of names); the expected element for each key comes from
/// the attribute's type; every value is then checked by the model's
/// validation, so import applies the same rules as every other save.
/// Errors are located at the offending element.
struct RecordDecoder {
    let entity: EntityDescription
    /// `import --update`: a record that leaves out a required attribute is
    /// not refused yet (``DecodedRecord/missingValues``): if it is stored,
    /// the stored value stands.
    var defersMissingValues = false
    /// Unknown keys met so far, so that each distinct key is warned about
    /// once. At most ``unknownKeysRemembered``: past that a key cannot be
    /// told from one met before, and the count of unknown keys becomes a
    /// lower bound. (How many warnings are shown is the
    /// ``ImportWarningLog``'s business.)
    private(set) var seenUnknownKeys: Set<String> = []
    static let unknownKeysRemembered = 4096
    /// Attribute positions by property-list key, with the key's length
    /// first: a scan that compares lengths is cheaper than hashing for a
    /// dozen short keys. Relationships read by name follow, their position
    /// offset by the number of attributes.
    private let importKeys: [(length: Int, key: String, index: Int)]
    /// What scalar values look like in the file.
    let syntax: ValueSyntax
    /// Owned to-many relationships read as arrays of objects (`wears`),
    /// keyed by relationship name; their position in ``importKeys`` is
    /// offset by the attributes and named relationships.
    private let ownedRelationships:
        [(relationship: RelationshipDescription, destination: EntityDescription, inverse: String)]
    /// Each attribute's type, by position (reading it from the
    /// declaration would copy the declaration for every value).
    private let types: [AttributeType]
    /// Each attribute's default value, by position, for the same reason.
    private let defaults: [AttributeValue?]
    /// For each binary attribute, the key that gives a file name rather
    /// than bytes (`imageName`, its import key when it differs from its
    /// export name); nil for the others.
    private let fileNameKeys: [String?]
    /// The relationships read as arrays of names.
    private let namedRelationships: [String]
    /// The attributes whose baseline a record may give
    /// (``AttributeDescription/baselineExportName``), by position; their
    /// keys follow the owned relationships' in ``importKeys``.
    private let baselineSlots: [Int]
    /// The positions of the attributes that label a record and derive
    /// its id, and of the primary key.
    private let keySlot: Int?
    private let nameSlot: Int?
    private let idSlot: Int?
    private let derivedIDSlots: [Int]

    /// - Parameters:
    ///   - model: The model `entity` belongs to, for the relationships
    ///     whose objects a record holds (`wears`); without it they are
    ///     unknown keys.
    ///   - syntax: How the file writes values.
    init(
        entity: EntityDescription = BowTieModel.entity, model: ObjectModel? = nil,
        syntax: ValueSyntax = .propertyList
    ) {
        self.entity = entity
        self.syntax = syntax
        var importKeys: [(length: Int, key: String, index: Int)] = []
        for (index, attribute) in entity.attributes.enumerated() {
            importKeys.append((attribute.importKey.utf8.count, attribute.importKey, index))
            // Exports name it by exportName: read that too.
            if attribute.exportName != attribute.importKey {
                importKeys.append((attribute.exportName.utf8.count, attribute.exportName, index))
            }
        }
        var named: [String] = []
        for relationship in entity.relationships {
            guard let key = relationship.importKey else { continue }
            importKeys.append((key.utf8.count, key, entity.attributes.count + named.count))
            named.append(relationship.name)
        }
        var owned: [(relationship: RelationshipDescription, destination: EntityDescription, inverse: String)] = []
        for relationship in entity.relationships where relationship.importKey == nil && relationship.isToMany {
            // Objects that belong to the record (the inverse is a to-one
            // and a delete cascades): given in full, under the
            // relationship's name.
            guard relationship.deleteRule == .cascade, let model, let destination = model[relationship.destination],
                let inverse = model.inverse(of: relationship), !inverse.isToMany
            else { continue }
            importKeys.append(
                (relationship.name.utf8.count, relationship.name, entity.attributes.count + named.count + owned.count))
            owned.append((relationship, destination, inverse.name))
        }
        ownedRelationships = owned
        var baselineSlots: [Int] = []
        for (index, attribute) in entity.attributes.enumerated() where attribute.derivation != nil {
            let key = attribute.baselineExportName
            importKeys.append(
                (key.utf8.count, key, entity.attributes.count + named.count + owned.count + baselineSlots.count))
            baselineSlots.append(index)
        }
        self.baselineSlots = baselineSlots
        self.importKeys = importKeys
        namedRelationships = named
        types = entity.attributes.map(\.type)
        defaults = entity.attributes.map(\.defaultValue)
        fileNameKeys = entity.attributes.map {
            $0.type == .binaryData && $0.importKey != $0.exportName ? $0.importKey : nil
        }
        keySlot = entity.keyAttribute.flatMap(entity.index(ofAttribute:))
        nameSlot = entity.nameAttribute.flatMap(entity.index(ofAttribute:))
        idSlot = entity.attributes.firstIndex(where: \.isPrimaryKey)
        derivedIDSlots = entity.derivedIDAttributes.compactMap(entity.index(ofAttribute:))
    }

    /// Decodes and validates the record `item`, the `number`th of the file.
    ///
    /// - Parameter warnings: Where an unknown key met for the first time
    ///   is reported.
    /// - Throws: ``ImportError``, located at the offending element.
    mutating func decode(
        _ item: PropertyListItem, number: Int, warnings: inout ImportWarningLog
    ) throws -> DecodedRecord {
        guard case .dictionary(let dictionary) = item.value else {
            throw ImportError(
                location: item.location, recordNumber: number,
                message: "expected \(syntax == .json ? "an object" : "a <dict>") for each "
                    + "\(entity.name == "BowTie" ? "bow tie" : entity.name), found \(syntax.name(of: item.value))")
        }
        let entity = entity
        let keySlot = keySlot
        let nameSlot = nameSlot
        // Built only when something fails, but then before the error, so
        // that every error names the record.
        func label() -> String {
            func text(_ slot: Int?) -> String? {
                slot.flatMap { dictionary[entity.attributes[$0].importKey] }.flatMap(\.value.stringValue)
            }
            return Record.label(key: text(keySlot), name: text(nameSlot), fallback: nil)
        }
        func failure(_ entry: PropertyListDictionary.Entry, _ message: String) -> ImportError {
            ImportError(
                location: entry.item.location, recordNumber: number, record: label(), field: entry.key,
                message: message)
        }

        let attributeCount = types.count
        var values = [AttributeValue?](repeating: nil, count: attributeCount)
        var present: UInt64 = 0
        var names: [String: [String]] = [:]
        var photo: (source: PhotoSource, key: String, location: SourceLocation)?
        var children: [String: [Record]]?
        var baselines: [(index: Int, value: AttributeValue)] = []
        /// Each owned object's relationship, place in the file and key,
        /// for validating it once the record's id is known.
        var unvalidated: [(relationship: Int, location: SourceLocation, key: String)] = []
        /// The first of the record's keys the model does not know (no
        /// allocation unless it has some; a record of 100,000 unknown
        /// keys keeps 64).
        var unknownKeys: [PropertyListDictionary.Entry] = []
        for entry in dictionary.entries {
            let length = entry.key.utf8.count
            guard let index = importKeys.first(where: { $0.length == length && $0.key == entry.key })?.index
            else {
                noteUnknownKey(entry, warnings: &warnings)
                if unknownKeys.count < 64 { unknownKeys.append(entry) }
                continue
            }
            if index >= attributeCount + namedRelationships.count + ownedRelationships.count {
                let slot = baselineSlots[index - attributeCount - namedRelationships.count - ownedRelationships.count]
                baselines.append((slot, try baseline(of: entry, at: slot, failure: failure)))
                continue
            }
            if index >= attributeCount + namedRelationships.count {
                let position = index - attributeCount - namedRelationships.count
                let owned = ownedRelationships[position]
                let objects = try self.children(of: entry, owned.destination, warnings: &warnings) {
                    location, field, message in
                    ImportError(
                        location: location, recordNumber: number, record: label(),
                        field: field.map { "\(entry.key).\($0)" } ?? entry.key, message: message)
                }
                children = (children ?? [:]).merging([owned.relationship.name: objects.map(\.0)]) { $1 }
                unvalidated.append(contentsOf: objects.map { (position, $0.1, entry.key) })
                continue
            }
            if index >= attributeCount {
                names[namedRelationships[index - attributeCount]] = try Self.names(of: entry, syntax) { location, message in
                    ImportError(
                        location: location, recordNumber: number, record: label(), field: entry.key, message: message)
                }
                continue
            }
            if index < 64 { present |= 1 << UInt64(index) }
            if types[index] == .binaryData {
                do {
                    let isName = entry.key == fileNameKeys[index]
                    photo = (try Self.photo(of: entry.item, isName: isName, syntax), entry.key, entry.item.location)
                } catch let error as DecodingFailure {
                    throw failure(entry, error.message)
                }
                continue
            }
            do {
                values[index] = try Self.value(of: entry.item, for: types[index], syntax: syntax)
            } catch let error as DecodingFailure {
                throw failure(entry, error.message)
            }
        }

        if !unknownKeys.isEmpty {
            let known = present != 0 || !names.isEmpty || children != nil
            if let error = lostValues(
                unknownKeys, known: known, count: dictionary.entries.count, values: values, number: number,
                label: label)
            {
                throw error
            }
        }
        for index in 0..<attributeCount where values[index] == nil {
            values[index] = defaults[index]
        }
        if let idSlot, values[idSlot] == nil, !derivedIDSlots.isEmpty {
            values[idSlot] = .uuid(Self.derivedID(derivedIDSlots.map { values[$0] }))
        }
        var missingValues: ImportError?
        do {
            try entity.validate(record: label, valueAt: { values[$0] })
        } catch var error as ValidationError {
            let first = error.errors.first ?? error
            error.record = nil
            let attribute = first.attribute.flatMap { entity[$0] }
            let failure = ImportError(
                location: attribute.flatMap { dictionary[$0.importKey]?.location } ?? item.location,
                recordNumber: number, record: label(),
                field: error.errors.isEmpty ? attribute?.importKey : nil,
                message: error.description, validation: error)
            // `import --update`: a required value the record leaves out is
            // the stored one, if the record is stored; decided later.
            let leaves = error.errors.isEmpty ? [error] : error.errors
            let onlyMissing = leaves.allSatisfy { leaf in
                guard leaf.code == .missingMandatoryProperty, let name = leaf.attribute,
                    let index = entity.attributes.firstIndex(where: { $0.name == name })
                else { return false }
                return index < 64 && present & (1 << UInt64(index)) == 0
            }
            guard defersMissingValues, onlyMissing else { throw failure }
            missingValues = failure
        }
        var record = Record(entity: entity, values: values)
        record.names = names
        if var given = children {
            // Validated with their link to the record set, as stored.
            var counters: [String: Int] = [:]
            for (position, location, key) in unvalidated {
                let owned = ownedRelationships[position]
                let name = owned.relationship.name
                let slot = counters[name, default: 0]
                counters[name] = slot + 1
                guard var object = given[name]?[slot] else { continue }
                object.setLink(owned.inverse, to: idSlot.flatMap { values[$0] })
                do {
                    try owned.destination.validate(object)
                } catch var error as ValidationError {
                    error.record = nil
                    throw ImportError(
                        location: location, recordNumber: number, record: label(),
                        field: error.errors.isEmpty ? error.attribute.map { "\(key).\($0)" } ?? key : key,
                        message: error.description, validation: error)
                }
                given[name]?[slot] = object
            }
            children = given
        }
        return DecodedRecord(
            tie: BowTie(record: record), photo: photo, children: children, location: item.location,
            present: present, baselines: baselines, missingValues: missingValues)
    }

    /// The baseline of the derived attribute at `slot` (`timesWornBefore`),
    /// read by the attribute's type and checked by its rules.
    private func baseline(
        of entry: PropertyListDictionary.Entry, at slot: Int,
        failure: (PropertyListDictionary.Entry, String) -> ImportError
    ) throws -> AttributeValue {
        let value: AttributeValue
        do {
            value = try Self.value(of: entry.item, for: types[slot], syntax: syntax)
        } catch let error as DecodingFailure {
            throw failure(entry, error.message)
        }
        if let broken = entity.attributes[slot].validationErrors(for: value, record: nil).first {
            var error = failure(entry, broken.description)
            error.validation = broken
            throw error
        }
        return value
    }

    /// The photo a record gives: under the import key (`imageName`), a
    /// file name; under the export name (`photo`), the bytes (`<data>` or
    /// Base64 text) or an export's description of them (a `<dict>` or
    /// object with a `sha256`).
    private static func photo(of item: PropertyListItem, isName: Bool, _ syntax: ValueSyntax) throws -> PhotoSource {
        switch item.value {
        case .string(let name) where isName:
            return .name(name)
        case .data(let bytes) where !isName:
            return .inline(bytes)
        case .string(let text) where !isName:
            guard let bytes = Data(base64Encoded: text) else {
                throw DecodingFailure(message: "the photo is not Base64 (an image file name goes under imageName)")
            }
            return .inline(bytes)
        case .dictionary(let description) where !isName:
            guard let hash = description["sha256"] else {
                throw DecodingFailure(message: "the photo's description has no sha256")
            }
            guard case .string(let text) = hash.value, text.utf8.count == 64,
                text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) })
            else {
                throw DecodingFailure(message: "the photo's sha256 is not 64 hexadecimal digits")
            }
            return .hash(text.lowercased())
        default:
            throw DecodingFailure(
                message: isName
                    ? "expected \(syntax.string) (an image file name), found \(syntax.name(of: item.value))"
                    : "expected the photo's bytes (<data> or Base64 text) or its description "
                        + "(an object with its sha256), found \(syntax.name(of: item.value))")
        }
    }

    /// The objects an owned relationship's array gives (`wears`: an array
    /// of `{"date": ..., "note": ...}`), each validated as an object of
    /// `destination`; keys map to its attributes by export name.
    private mutating func children(
        of entry: PropertyListDictionary.Entry, _ destination: EntityDescription,
        warnings: inout ImportWarningLog,
        failure: (SourceLocation, String?, String) -> ImportError
    ) throws -> [(Record, SourceLocation)] {
        guard case .array(let items) = entry.item.value else {
            throw failure(
                entry.item.location, nil, "expected an array of objects, found \(syntax.name(of: entry.item.value))")
        }
        var records: [(Record, SourceLocation)] = []
        records.reserveCapacity(items.count)
        for element in items {
            guard case .dictionary(let object) = element.value else {
                throw failure(
                    element.location, nil, "expected an object in the array, found \(syntax.name(of: element.value))")
            }
            var record = Record(entity: destination)
            for member in object.entries {
                guard let index = destination.attributes.firstIndex(where: {
                    $0.exportName == member.key || $0.importKey == member.key
                }) else {
                    noteUnknownKey(member, prefix: entry.key + ".", warnings: &warnings)
                    continue
                }
                do {
                    record.values[index] = try Self.value(
                        of: member.item, for: destination.attributes[index].type, syntax: syntax)
                } catch let error as DecodingFailure {
                    throw failure(member.item.location, member.key, error.message)
                }
            }
            records.append((record, element.location))
        }
        return records
    }

    /// An `<array>` of `<string>` names, trimmed; the names themselves
    /// are validated when their objects are found or made.
    private static func names(
        of entry: PropertyListDictionary.Entry, _ syntax: ValueSyntax,
        failure: (SourceLocation, String) -> ImportError
    ) throws -> [String] {
        guard case .array(let items) = entry.item.value else {
            let expected = syntax == .propertyList ? "an <array> of <string>" : "an array of strings"
            throw failure(entry.item.location, "expected \(expected), found \(syntax.name(of: entry.item.value))")
        }
        var names: [String] = []
        for element in items {
            guard case .string(let name) = element.value else {
                throw failure(
                    element.location,
                    "expected \(syntax.string) in the \(entry.key) array, found \(syntax.name(of: element.value))")
            }
            names.append(name.trimmingCharacters(in: .whitespaces))
        }
        return names
    }

    /// The error for a record whose unknown keys leave it with nothing
    /// the model knows, or without a required value (no default, no
    /// derivation, such as `name`) that one of them was plainly meant to
    /// give (`nmae`); nil when they only cost optional values, which
    /// ``noteUnknownKey(_:prefix:warnings:)`` warns about. Such a record
    /// would otherwise be stored empty, or refused for a value it gives
    /// under the wrong key. Out of line, like ``noteUnknownKey(_:prefix:warnings:)``.
    ///
    /// - Parameters:
    ///   - unknownKeys: The record's first unknown keys.
    ///   - known: Whether the record gives any key the model knows.
    ///   - count: How many keys the record has.
    @inline(never)
    private func lostValues(
        _ unknownKeys: [PropertyListDictionary.Entry], known: Bool, count: Int, values: [AttributeValue?],
        number: Int, label: () -> String
    ) -> ImportError? {
        let candidates = importKeys.map(\.key)
        func suggestion(_ key: String) -> String? {
            key.utf8.count <= 64 ? EditDistance.suggestion(for: key, among: candidates) : nil
        }
        func named(_ entry: PropertyListDictionary.Entry) -> String {
            let key = "\"\(AttributeValue.abbreviated(entry.key))\""
            return suggestion(entry.key).map { "\(key) (did you mean \"\($0)\"?)" } ?? key
        }
        guard known else {
            let keys = unknownKeys.prefix(8).map(named).joined(separator: ", ") + (count > 8 ? ", ..." : "")
            return ImportError(
                location: unknownKeys[0].keyLocation, recordNumber: number, record: label(),
                message: "none of its keys is one bowties reads: \(keys)",
                hint: "Check the spelling of the keys; `bowties import --help` lists them.")
        }
        // Most records give every required value: then no key needs a
        // suggestion.
        let missing = (0..<types.count).contains {
            values[$0] == nil && defaults[$0] == nil && ($0 != idSlot || derivedIDSlots.isEmpty)
                && !entity.attributes[$0].isOptional
        }
        guard missing else { return nil }
        for entry in unknownKeys {
            guard let meant = suggestion(entry.key),
                let index = importKeys.first(where: { $0.key == meant })?.index, index < types.count,
                values[index] == nil, defaults[index] == nil, index != idSlot || derivedIDSlots.isEmpty,
                !entity.attributes[index].isOptional
            else { continue }
            let attribute = entity.attributes[index]
            return ImportError(
                location: entry.keyLocation, recordNumber: number, record: label(), field: entry.key,
                message: "unknown key (did you mean \"\(meant)\"?), and without it \(attribute.name), "
                    + "a required value, is missing (NSValidationMissingMandatoryPropertyError 1570)")
        }
        return nil
    }

    /// Warns about a key the model does not know, the first time it is
    /// met. Out of line: the rare case stays out of the loop that every
    /// value of every record goes through.
    @inline(never)
    private mutating func noteUnknownKey(
        _ entry: PropertyListDictionary.Entry, prefix: String = "", warnings: inout ImportWarningLog
    ) {
        let key = prefix + entry.key
        if seenUnknownKeys.count < Self.unknownKeysRemembered {
            if seenUnknownKeys.insert(key).inserted {
                var message = "unknown key \"\(AttributeValue.abbreviated(key))\" ignored"
                // A slip of the keyboard or of case (`Rating`) is worth a
                // hint; keys of a nested record (`wears.Date`) get none.
                if prefix.isEmpty, entry.key.utf8.count <= 64,
                    let suggestion = EditDistance.suggestion(for: entry.key, among: importKeys.map(\.key))
                {
                    message += " (did you mean \"\(suggestion)\"?)"
                }
                warnings.add(.unknownKey, at: entry.keyLocation, message)
            }
        } else if !seenUnknownKeys.contains(key) {
            warnings.markInexact(.unknownKey)
        }
    }

    private struct DecodingFailure: Error {
        var message: String
    }

    /// Reads one value, checking that the element fits the attribute type.
    private static func value(
        of item: PropertyListItem, for type: AttributeType, syntax: ValueSyntax
    ) throws -> AttributeValue {
        func wrongType() -> DecodingFailure {
            DecodingFailure(
                message: syntax == .propertyList
                    ? "expected \(expectedElements(type)), found \(item.value.elementName)"
                    : "expected \(expectedJSON(type)), found \(syntax.name(of: item.value))")
        }
        if syntax != .propertyList, case .string(let text) = item.value {
            // JSON writes dates as text; CSV writes everything as text.
            switch type {
            case .date:
                guard let date = ISO8601.date(from: text) else {
                    throw DecodingFailure(
                        message: "\(AttributeValue.string(text).messageText) is not a date "
                            + "(expected a day such as 2014-06-19, or a date and time such as 2014-06-19T18:15:24Z)")
                }
                return .date(date)
            case .double where syntax == .text:
                guard let number = Double(text), number.isFinite else {
                    throw DecodingFailure(message: "\(AttributeValue.string(text).messageText) is not a number")
                }
                return .double(number)
            case .integer32 where syntax == .text:
                guard let number = Int64(text) else {
                    throw DecodingFailure(message: "\(AttributeValue.string(text).messageText) is not an integer")
                }
                return .integer(number)
            case .boolean where syntax == .text:
                switch text.lowercased() {
                case "true", "yes", "1": return .bool(true)
                case "false", "no", "0": return .bool(false)
                default:
                    throw DecodingFailure(
                        message: "\(AttributeValue.string(text).messageText) is not a boolean (expected true or false)")
                }
            default:
                break
            }
        }
        switch (type, item.value) {
        case (.string, .string(let text)):
            return .string(text)
        case (.uri, .string(let text)):
            // Foundation must be able to hold it too; validation then checks
            // that it is absolute. The usual shape is known to pass without
            // asking it (PlainURI).
            guard PlainURI.matches(text) || URL(string: text) != nil else {
                throw DecodingFailure(
                    message: "\(AttributeValue.string(text).messageText) is not a valid URI "
                        + "(NSValidationInvalidURIError 1690)")
            }
            return .uri(text)
        case (.uuid, .string(let text)):
            // Trimming is the rare case; checking for it first costs more
            // than the parse.
            guard let id = UUID(parsing: text) ?? UUID(uuidString: text.trimmingCharacters(in: .whitespaces))
            else {
                throw DecodingFailure(
                    message: "\(AttributeValue.string(text).messageText) is not a UUID "
                        + "(expected the form E621E1F8-C36C-495A-93FC-0C247A3E6E5F)")
            }
            return .uuid(id)
        case (.double, .real(let number)):
            return .double(number)
        case (.double, .integer(let number)):
            return .double(Double(number))
        case (.integer32, .integer(let number)):
            return .integer(number)
        case (.boolean, .bool(let flag)):
            return .bool(flag)
        case (.date, .date(let date)):
            return .date(date)
        case (.transformable, .dictionary(let components)):
            return .color(try color(from: components))
        case (.transformable, .string(let text)):
            guard let color = color(hex: text) else {
                throw DecodingFailure(
                    message: "\(AttributeValue.string(text).messageText) is not a colour (expected #RRGGBB)")
            }
            return .color(color)
        default:
            throw wrongType()
        }
    }

    /// What JSON (or CSV) must give for `type`.
    private static func expectedJSON(_ type: AttributeType) -> String {
        switch type {
        case .string, .uri: "a string"
        case .uuid: "a string holding a UUID"
        case .double: "a number"
        case .integer32: "an integer"
        case .boolean: "true or false"
        case .date: "an ISO 8601 date string"
        case .transformable: "a \"#RRGGBB\" string"
        case .binaryData: "Base64 text"
        }
    }

    private static func expectedElements(_ type: AttributeType) -> String {
        switch type {
        case .string, .uri: "<string>"
        case .uuid: "<string> holding a UUID"
        case .double: "<real> or <integer>"
        case .integer32: "<integer>"
        case .boolean: "<true/> or <false/>"
        case .date: "<date>"
        case .transformable: "<dict> of red, green, blue (0-255) or a <string> #RRGGBB"
        case .binaryData: "<string> (an image file name)"
        }
    }

    /// `<dict>` of `red`, `green`, `blue` (integers 0-255) and an optional
    /// `alpha` (integer 0-255 or real 0-1).
    private static func color(from dictionary: PropertyListDictionary) throws -> Color {
        // red, green, blue, alpha: no dictionary per record.
        var components: (Double?, Double?, Double?, Double?) = (nil, nil, nil, nil)
        for entry in dictionary.entries {
            let isAlpha = entry.key == "alpha"
            let value: Double
            switch entry.item.value {
            case .integer(let number) where (0...255).contains(number):
                value = Double(number) / 255
            case .real(let number) where isAlpha && (0...1).contains(number):
                value = number
            case .integer(let number) where Self.colorComponents.contains(entry.key):
                throw DecodingFailure(message: "\(entry.key) must be from 0 to 255, found \(number)")
            default:
                guard Self.colorComponents.contains(entry.key) else {
                    throw DecodingFailure(
                        message: "unknown colour component \(AttributeValue.string(entry.key).messageText) "
                            + "(expected red, green, blue, alpha)")
                }
                throw DecodingFailure(
                    message: "expected <integer> 0-255 for \(entry.key), found \(entry.item.value.elementName)")
            }
            switch entry.key {
            case "red": components.0 = value
            case "green": components.1 = value
            case "blue": components.2 = value
            case "alpha": components.3 = value
            default:
                throw DecodingFailure(
                    message: "unknown colour component \(AttributeValue.string(entry.key).messageText) "
                        + "(expected red, green, blue, alpha)")
            }
        }
        guard let red = components.0 else { throw DecodingFailure(message: "the colour has no red component") }
        guard let green = components.1 else { throw DecodingFailure(message: "the colour has no green component") }
        guard let blue = components.2 else { throw DecodingFailure(message: "the colour has no blue component") }
        return Color(red: red, green: green, blue: blue, alpha: components.3 ?? 1)
    }

    private static let colorComponents: Set<String> = ["red", "green", "blue", "alpha"]

    private static func color(hex text: String) -> Color? {
        let digits = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard digits.count == 6, let value = Int(digits, radix: 16) else { return nil }
        return Color(red8: value >> 16, green8: (value >> 8) & 0xFF, blue8: value & 0xFF)
    }

    /// An id for a record that has none, derived from its search key and
    /// name so that re-importing the same file finds the same records.
    ///
    /// The first 16 bytes of SHA-256("bowties-id", searchKey, name), marked
    /// as an RFC 9562 version 8 (custom) UUID.
    static func derivedID(_ values: [AttributeValue?]) -> UUID {
        var input = Data("bowties-id\u{0}".utf8)
        for value in values {
            if case .string(let text)? = value { input.append(contentsOf: Array(text.utf8)) }
            input.append(0)
        }
        var bytes = Array(SHA256.hash(data: input).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

}

extension PropertyListValue {
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}

extension UUID {
    /// Parses the canonical 36-character form (either case), as
    /// `UUID(uuidString:)` does, without its `sscanf`.
    init?(parsing text: String) {
        var text = text
        let parsed: uuid_t? = text.withUTF8 { bytes -> uuid_t? in
            guard bytes.count == 36 else { return nil }
            var result: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let ok = withUnsafeMutableBytes(of: &result) { output -> Bool in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        guard bytes[position] == UInt8(ascii: "-") else { return false }
                        position += 1
                    }
                    guard let high = Self.hexValue(bytes[position]), let low = Self.hexValue(bytes[position + 1])
                    else { return false }
                    output[index] = high << 4 | low
                    position += 2
                }
                return true
            }
            return ok ? result : nil
        }
        guard let parsed else { return nil }
        self.init(uuid: parsed)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
