import Foundation

/// The storage type of an attribute, named after Core Data's attribute types.
public enum AttributeType: String, Sendable, CaseIterable {
    case string
    case boolean
    case date
    case double
    case integer32
    case uuid
    case uri
    case binaryData
    case transformable
}

/// One attribute of an entity, declared once.
///
/// The declaration drives everything that concerns the attribute: the
/// table's columns, validation at save, the property-list key it is
/// imported from, the CSV columns it is exported to, and the wording of
/// error messages. It mirrors `NSAttributeDescription`.
///
/// ```swift
/// AttributeDescription("rating", .double, minValue: 0, maxValue: 5)
/// ```
public struct AttributeDescription: Sendable {
    /// The attribute's name, as Core Data's model spells it (`timesWorn`).
    public var name: String
    public var type: AttributeType
    /// When false, a missing value fails validation with 1570.
    public var isOptional: Bool
    /// Inclusive bounds for numbers (1620 below, 1610 above).
    public var minValue: Double?
    public var maxValue: Double?
    /// Inclusive bounds on a string's length in characters (1670, 1660).
    public var minLength: Int?
    public var maxLength: Int?
    /// For binary data: values larger than the store's threshold go to
    /// files beside the store (Core Data's "Allows External Storage").
    public var allowsExternalStorage: Bool
    /// For transformable attributes: the name a transformer is registered
    /// under in a ``ValueTransformerRegistry``.
    public var valueTransformerName: String?
    /// At most one record may hold a given value (SQL `UNIQUE`).
    public var isUnique: Bool
    /// The property-list key the importer reads the attribute from, when it
    /// differs from ``name`` (the sample's photo arrives as `imageName`).
    public var importKey: String
    /// The value a record gets when its source does not give one, like
    /// Core Data's default value (scalars: 0, false).
    public var defaultValue: AttributeValue?
    /// The attribute identifies its object: the table's primary key.
    /// An entity without one is numbered by the store (``EntityDescription/primaryKeyColumn``).
    public var isPrimaryKey: Bool
    /// The store keeps an index on it, for lookups and sorting.
    public var isIndexed: Bool
    /// A regular expression a string must match as a whole (1680).
    public var pattern: String?
    /// What ``pattern`` refuses, said in words for the message of 1680,
    /// which would otherwise have to quote the expression: with
    /// `"a tag cannot contain a comma or a control character"`, `tag R
    /// "a,b"` says that instead of `name does not match the pattern
    /// [^,\p{Cc}]*.` The code and the pattern stay as they are.
    public var patternMeaning: String?
    /// A string must hold a character other than white space: a name of
    /// spaces names nothing. Core Data would declare it as the pattern
    /// `.*\S.*`, and it fails as that does (1680), in words of its own:
    /// `name must contain a character other than a space.` Checked
    /// without a regular expression, as it runs for every record saved.
    public var requiresNonSpace: Bool
    /// Strings compare ignoring case, for uniqueness and lookups
    /// (SQL `COLLATE NOCASE`).
    public var isCaseInsensitive: Bool
    /// A value must read as a plain word on the command line, never as
    /// query syntax (no `:`, `=` or `..`; no leading `^`, `+` or `-`; not
    /// a lone `,`), so that an argument equal to it can only mean its
    /// object (1680, see ``QueryWord``). Search keys declare it.
    public var isQueryWord: Bool
    /// The value follows from a relationship and a stored baseline (see
    /// ``Derivation``): the store keeps it, and saves never write it.
    public var derivation: Derivation?
    /// How messages name the attribute in words, like the entries of
    /// Core Data's localization dictionary (`search key`).
    public var displayName: String
    /// The name exports and JSON use when it differs from ``name`` (the
    /// photo is `photo` in JSON, `photoBytes` and `photoSHA256` in CSV).
    public var exportName: String

    public init(
        _ name: String,
        _ type: AttributeType,
        isOptional: Bool = true,
        minValue: Double? = nil,
        maxValue: Double? = nil,
        minLength: Int? = nil,
        maxLength: Int? = nil,
        allowsExternalStorage: Bool = false,
        valueTransformerName: String? = nil,
        isUnique: Bool = false,
        importKey: String? = nil,
        defaultValue: AttributeValue? = nil,
        isPrimaryKey: Bool = false,
        isIndexed: Bool = false,
        pattern: String? = nil,
        patternMeaning: String? = nil,
        requiresNonSpace: Bool = false,
        isCaseInsensitive: Bool = false,
        isQueryWord: Bool = false,
        derivation: Derivation? = nil,
        exportName: String? = nil,
        displayName: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.minValue = minValue
        self.maxValue = maxValue
        self.minLength = minLength
        self.maxLength = maxLength
        self.allowsExternalStorage = allowsExternalStorage
        self.valueTransformerName = valueTransformerName
        self.isUnique = isUnique
        self.importKey = importKey ?? name
        self.defaultValue = defaultValue
        self.isPrimaryKey = isPrimaryKey
        self.isIndexed = isIndexed
        self.pattern = pattern
        self.patternMeaning = patternMeaning
        self.requiresNonSpace = requiresNonSpace
        self.isCaseInsensitive = isCaseInsensitive
        self.isQueryWord = isQueryWord
        self.derivation = derivation
        self.exportName = exportName ?? name
        self.displayName = displayName ?? name
    }

    /// The bounds validation enforces for a number: the declared ones,
    /// narrowed by what the storage type can hold (an Integer 32 must fit
    /// `Int32` whatever the model says).
    var effectiveNumericBounds: (min: Double?, max: Double?) {
        switch type {
        case .integer32:
            let low = max(minValue ?? Double(Int32.min), Double(Int32.min))
            let high = min(maxValue ?? Double(Int32.max), Double(Int32.max))
            return (low, high)
        default:
            return (minValue, maxValue)
        }
    }
}

/// How a derived attribute follows from a to-many relationship, like
/// Core Data's derived attributes (`wears.@count`), with a baseline: the
/// value the object had before the relationship recorded anything (the
/// count an import brought). The store keeps the baseline in a column of
/// its own (`timesWorn_baseline`) and the value up to date with triggers,
/// so that it always agrees with the relationship, whoever writes.
public enum Derivation: Sendable, Equatable {
    /// The baseline plus the number of objects the relationship holds.
    case count(of: String)
    /// The latest of the baseline and the `attribute` of the objects the
    /// relationship holds.
    case latest(of: String, attribute: String)

    /// The to-many relationship the value follows.
    public var relationship: String {
        switch self {
        case .count(let relationship), .latest(let relationship, _): relationship
        }
    }
}
