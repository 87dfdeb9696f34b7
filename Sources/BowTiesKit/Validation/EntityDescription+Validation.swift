import Foundation

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
        var errors: [ValidationError] = []
        for attribute in attributes {
            errors += attribute.validationErrors(for: value(attribute), record: record)
        }
        if let error = ValidationError.combining(errors, record: record) { throw error }
    }

    /// Validates a bow tie against this entity.
    public func validate(_ tie: BowTie) throws {
        try validate(record: tie.label) { tie.value(forAttribute: $0.name) }
    }
}

extension AttributeDescription {
    /// The rules this attribute's declaration breaks for `value`.
    func validationErrors(for value: AttributeValue?, record: String?) -> [ValidationError] {
        func failure(_ code: ValidationError.Code, _ message: String) -> [ValidationError] {
            [ValidationError(code: code, message: message, attribute: name, value: value?.messageText, record: record)]
        }
        guard let value else {
            return isOptional ? [] : failure(.missingMandatoryProperty, "\(name) is a required value.")
        }
        switch value {
        case .double(let number):
            return numberErrors(number, failure)
        case .integer(let number):
            return numberErrors(Double(number), failure)
        case .string(let text):
            let length = text.count
            if let minLength, length < minLength { return failure(.stringTooShort, "\(name) is too short.") }
            if let maxLength, length > maxLength { return failure(.stringTooLong, "\(name) is too long.") }
            return []
        case .uri(let text):
            guard Self.isAbsoluteURI(text) else { return failure(.invalidURI, "\(name) is not a valid URI.") }
            if let scheme = Self.refusedScheme(of: text) {
                return failure(.invalidURI, "\(name) uses the \(scheme): scheme, which is refused.")
            }
            return []
        case .color(let color):
            return color.isValid ? [] : failure(.managedObject, "\(name) is not a valid colour.")
        case .date(let date):
            return date.timeIntervalSince1970.isFinite ? [] : failure(.invalidDate, "\(name) is not a valid date.")
        case .bool, .uuid, .binary:
            return []
        }
    }

    private func numberErrors(
        _ number: Double, _ failure: (ValidationError.Code, String) -> [ValidationError]
    ) -> [ValidationError] {
        // NaN compares false with every bound, so it needs its own rule.
        if number.isNaN { return failure(.managedObject, "\(name) is not a number.") }
        let (low, high) = effectiveNumericBounds
        if let high, number > high { return failure(.numberTooLarge, "\(name) is too large.") }
        if let low, number < low { return failure(.numberTooSmall, "\(name) is too small.") }
        return []
    }

    /// An absolute URI: a scheme (`letter *( letter / digit / + - . )`),
    /// a colon, something after it, and no spaces or control characters.
    static func isAbsoluteURI(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return false }
        let scheme = text[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
            scheme.unicodeScalars.allSatisfy({
                $0.isASCIILetter || $0.isASCIIDigit || "+-.".unicodeScalars.contains($0)
            })
        else { return false }
        let rest = text[text.index(after: colon)...]
        guard !rest.isEmpty else { return false }
        return !text.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
