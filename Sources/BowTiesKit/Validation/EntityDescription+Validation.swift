import Foundation
import Synchronization

extension EntityDescription {
    /// Checks values against the rules declared on each attribute: the one
    /// routine every save goes through.
    ///
    /// - Parameters:
    ///   - value: Returns the value of an attribute, nil when missing.
    ///   - record: How errors name the record (`R "Red Bow Tie"`).
    /// - Throws: ``ValidationError``: the single failure, or 1560 listing
    ///   every failure.
    public func validate(record: String?, value: (AttributeDescription) -> AttributeValue?) throws {
        try validate(record: { record }, valueAt: { value(attributes[$0]) })
    }

    /// The same routine for callers that hold values by attribute index
    /// (the importer); the record's label is only built when a rule fails.
    func validate(record: () -> String?, valueAt value: (Int) -> AttributeValue?) throws {
        var errors: [ValidationError] = []
        // Through the buffer, each declaration is borrowed rather than
        // copied (a copy retains its strings: measurable per record).
        attributes.withUnsafeBufferPointer { attributes in
            guard let first = attributes.baseAddress else { return }
            for index in attributes.indices {
                // Fetched first: calling out while a declaration is
                // borrowed would make the compiler copy it.
                let current = value(index)
                // Nearly every value keeps every rule, and that is settled
                // from the declaration's fields through a pointer: calling
                // a method on the declaration copies it (a dozen retains
                // per attribute per record, 5 % of an import's storing).
                if AttributeDescription.keepsEveryRule(current, first + index) { continue }
                let found = attributes[index].validationErrors(for: current, record: nil)
                if !found.isEmpty { errors += found }
            }
        }
        guard !errors.isEmpty else { return }
        let label = record()
        for index in errors.indices { errors[index].record = label }
        if let error = ValidationError.combining(errors, record: label) { throw error }
    }

    /// Validates a record of this entity: its attributes, and that every
    /// required to-one relationship leads somewhere (1570).
    public func validate(_ record: Record) throws {
        try validate(record: { record.label }, valueAt: { record.values[$0] })
        for (index, relationship) in relationships.enumerated()
        where !relationship.isToMany && !relationship.isOptional && record.links[index] == nil {
            throw ValidationError(
                code: .missingMandatoryProperty, message: "\(relationship.name) is a required value.",
                attribute: relationship.name, value: nil, record: record.label)
        }
    }

    /// Validates a bow tie against this entity.
    public func validate(_ tie: BowTie) throws {
        try validate(tie.record)
    }
}

extension AttributeDescription {
    /// True when `value` certainly keeps every rule of the declaration at
    /// `declaration`; false when it may break one (``brokenRule(_:)``
    /// then decides, and writes the message). Reads fields only, so that
    /// the declaration is not copied.
    static func keepsEveryRule(_ value: AttributeValue?, _ declaration: UnsafePointer<AttributeDescription>) -> Bool {
        guard let value else { return declaration.pointee.isOptional }
        switch value {
        case .double(let number):
            return withinBounds(number, declaration)
        case .integer(let number):
            return withinBounds(Double(number), declaration)
        case .string(let text):
            guard declaration.pointee.pattern == nil else { return false }
            if declaration.pointee.isQueryWord, QueryWord.syntax(in: text) != nil { return false }
            if declaration.pointee.requiresNonSpace,
                !text.unicodeScalars.contains(where: { !$0.properties.isWhitespace })
            {
                return false
            }
            // At most one character per UTF-8 byte and at least one per
            // four: the bounds brokenRule would count characters for
            // are left to it.
            let bytes = text.utf8.count
            if let minLength = declaration.pointee.minLength, (bytes + 3) / 4 < minLength { return false }
            if let maxLength = declaration.pointee.maxLength, bytes > maxLength { return false }
            return true
        case .uri(let text):
            return isAbsoluteURI(text) && refusedScheme(of: text) == nil
        case .color(let color):
            return color.isValid
        case .date(let date):
            return date.timeIntervalSince1970.isFinite
        case .bool, .uuid, .blob:
            return true
        }
    }

    /// ``numberRule(_:)``'s test, on the declaration's fields.
    private static func withinBounds(_ number: Double, _ declaration: UnsafePointer<AttributeDescription>) -> Bool {
        if number.isNaN { return false }
        var low = declaration.pointee.minValue
        var high = declaration.pointee.maxValue
        if declaration.pointee.type == .integer32 {
            low = max(low ?? Double(Int32.min), Double(Int32.min))
            high = min(high ?? Double(Int32.max), Double(Int32.max))
        }
        if let high, number > high { return false }
        if let low, number < low { return false }
        return true
    }

    /// The rules this attribute's declaration breaks for `value`.
    func validationErrors(for value: AttributeValue?, record: String?) -> [ValidationError] {
        guard let (code, message) = brokenRule(value) else { return [] }
        return [ValidationError(code: code, message: message, attribute: name, value: value?.messageText, record: record)]
    }

    /// The first rule `value` breaks, as Core Data's code and message.
    /// Messages are only built for failures: this runs for every attribute
    /// of every record saved or imported.
    ///
    /// A new rule here needs its test in ``keepsEveryRule(_:_:)`` too, or
    /// values that pass the old rules skip it (`ValidationTests` checks
    /// that the two agree over every type, bound and value kind).
    func brokenRule(_ value: AttributeValue?) -> (ValidationError.Code, String)? {
        guard let value else {
            return isOptional ? nil : (.missingMandatoryProperty, "\(name) is a required value.")
        }
        switch value {
        case .double(let number):
            return numberRule(number)
        case .integer(let number):
            return numberRule(Double(number))
        case .string(let text):
            // A string has at most one character per UTF-8 byte and at
            // least one per four, which settles most checks without
            // counting characters (grapheme breaking is the slow part).
            let bytes = text.utf8.count
            if let minLength, (bytes + 3) / 4 < minLength, text.count < minLength {
                return (.stringTooShort, "\(name) is too short.")
            }
            if let maxLength, bytes > maxLength, text.count > maxLength {
                return (.stringTooLong, "\(name) is too long.")
            }
            if requiresNonSpace, !text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) {
                return (.stringPatternMatching, "\(name) must contain a character other than a space.")
            }
            if isQueryWord, let syntax = QueryWord.syntax(in: text) {
                return (.stringPatternMatching, "\(name) \(syntax.explanation).")
            }
            if let pattern, !PatternCache.matches(text, pattern) {
                // The declaration's words when it has them: a user cannot
                // be expected to read a regular expression.
                let message = patternMeaning.map { "\($0)." } ?? "\(name) does not match the pattern \(pattern)."
                return (.stringPatternMatching, message)
            }
            return nil
        case .uri(let text):
            guard Self.isAbsoluteURI(text) else { return (.invalidURI, "\(name) is not a valid URI.") }
            if let scheme = Self.refusedScheme(of: text) {
                return (.invalidURI, "\(name) uses the \(scheme): scheme, which is refused.")
            }
            return nil
        case .color(let color):
            return color.isValid ? nil : (.managedObject, "\(name) is not a valid colour.")
        case .date(let date):
            return date.timeIntervalSince1970.isFinite ? nil : (.invalidDate, "\(name) is not a valid date.")
        case .bool, .uuid, .blob:
            return nil
        }
    }

    private func numberRule(_ number: Double) -> (ValidationError.Code, String)? {
        // NaN compares false with every bound, so it needs its own rule.
        if number.isNaN { return (.managedObject, "\(name) is not a number.") }
        let (low, high) = effectiveNumericBounds
        if let high, number > high { return (.numberTooLarge, "\(name) is too large.") }
        if let low, number < low { return (.numberTooSmall, "\(name) is too small.") }
        return nil
    }

    /// An absolute URI: a scheme (`letter *( letter / digit / + - . )`),
    /// a colon, something after it, and no spaces or control characters.
    static func isAbsoluteURI(_ text: String) -> Bool {
        // Bytes, not scalars: every byte tested is ASCII, and no byte of a
        // multi-byte UTF-8 sequence is below 0x80.
        var text = text
        return text.withUTF8 { bytes in
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, colon + 1 < bytes.count,
                bytes[0].isASCIILetter
            else { return false }
            for byte in bytes[..<colon] {
                guard byte.isASCIILetter || byte.isASCIIDigit || byte == UInt8(ascii: "+")
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                else { return false }
            }
            return !bytes.contains { $0 <= 0x20 || $0 == 0x7F }
        }
    }
}

/// Compiled patterns, by their text: a declaration is a value, and
/// compiling its pattern for every value checked would cost more than the
/// match.
enum PatternCache {
    private static let compiled = Mutex<[String: NSRegularExpression]>([:])

    /// Whether `pattern` matches the whole of `text`. A pattern that does
    /// not compile matches nothing.
    static func matches(_ text: String, _ pattern: String) -> Bool {
        let expression = compiled.withLock { cache -> NSRegularExpression? in
            if let known = cache[pattern] { return known }
            let made = try? NSRegularExpression(pattern: "^(?:" + pattern + ")$", options: [])
            if let made { cache[pattern] = made }
            return made
        }
        guard let expression else { return false }
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return expression.firstMatch(in: text, options: [], range: range) != nil
    }
}

extension UInt8 {
    fileprivate var isASCIILetter: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }
    fileprivate var isASCIIDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
}
