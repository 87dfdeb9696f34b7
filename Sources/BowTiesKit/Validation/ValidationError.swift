/// A validation failure, with Core Data's code and message.
///
/// One failing rule gives that rule's error (`rating is too large.`, 1610);
/// several give ``Code/multipleErrors`` (1560) with each error in
/// ``errors``. Every error names the attribute, the offending value and
/// the record, so a user can find and fix it.
public struct ValidationError: Error, Sendable, CustomStringConvertible {
    /// Core Data's validation codes (NSCocoaErrorDomain).
    public enum Code: Int, Sendable {
        case managedObject = 1550
        case multipleErrors = 1560
        case missingMandatoryProperty = 1570
        case relationshipLacksMinimumCount = 1580
        case relationshipExceedsMaximumCount = 1590
        case relationshipDeniedDelete = 1600
        case numberTooLarge = 1610
        case numberTooSmall = 1620
        case dateTooLate = 1630
        case dateTooSoon = 1640
        case invalidDate = 1650
        case stringTooLong = 1660
        case stringTooShort = 1670
        case stringPatternMatching = 1680
        case invalidURI = 1690

        /// The Foundation constant's name, e.g. `NSValidationNumberTooLargeError`.
        public var constantName: String {
            switch self {
            case .managedObject: "NSManagedObjectValidationError"
            case .multipleErrors: "NSValidationMultipleErrorsError"
            case .missingMandatoryProperty: "NSValidationMissingMandatoryPropertyError"
            case .relationshipLacksMinimumCount: "NSValidationRelationshipLacksMinimumCountError"
            case .relationshipExceedsMaximumCount: "NSValidationRelationshipExceedsMaximumCountError"
            case .relationshipDeniedDelete: "NSValidationRelationshipDeniedDeleteError"
            case .numberTooLarge: "NSValidationNumberTooLargeError"
            case .numberTooSmall: "NSValidationNumberTooSmallError"
            case .dateTooLate: "NSValidationDateTooLateError"
            case .dateTooSoon: "NSValidationDateTooSoonError"
            case .invalidDate: "NSValidationInvalidDateError"
            case .stringTooLong: "NSValidationStringTooLongError"
            case .stringTooShort: "NSValidationStringTooShortError"
            case .stringPatternMatching: "NSValidationStringPatternMatchingError"
            case .invalidURI: "NSValidationInvalidURIError"
            }
        }
    }

    public var code: Code
    /// Core Data's message: `rating is too large.`
    public var message: String
    /// The attribute concerned (nil for 1560).
    public var attribute: String?
    /// The offending value as text (nil when the value is missing).
    public var value: String?
    /// The record, as `R "Red Bow Tie"`.
    public var record: String?
    /// For 1560: the individual errors.
    public var errors: [ValidationError]

    public init(
        code: Code, message: String, attribute: String? = nil, value: String? = nil,
        record: String? = nil, errors: [ValidationError] = []
    ) {
        self.code = code
        self.message = message
        self.attribute = attribute
        self.value = value
        self.record = record
        self.errors = errors
    }

    /// One error for a single failure, 1560 for several.
    static func combining(_ errors: [ValidationError], record: String?) -> ValidationError? {
        switch errors.count {
        case 0: return nil
        case 1: return errors[0]
        default:
            return ValidationError(
                code: .multipleErrors, message: "Multiple validation errors occurred.",
                record: record, errors: errors)
        }
    }

    /// The message with its code and context on one line, then one line per
    /// attached error:
    ///
    ///     rating is too large. (NSValidationNumberTooLargeError 1610; record R "Red Bow Tie"; rating = 6)
    public var description: String {
        var text = "\(message) (\(code.constantName) \(code.rawValue)"
        if let record { text += "; record \(record)" }
        if let attribute { text += "; \(attribute) = \(value ?? "nil")" }
        text += ")"
        for error in errors {
            text += "\n  - \(error.message) (\(error.code.constantName) \(error.code.rawValue)"
            if let attribute = error.attribute { text += "; \(attribute) = \(error.value ?? "nil")" }
            text += ")"
        }
        return text
    }
}
