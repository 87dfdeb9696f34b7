/// The BowTies object model, declared once as Core Data's BowTies sample
/// declares it, with the validation rules that sample puts in its model,
/// and the wear history and tags of the apps built on it.
///
/// Schema, validation, import key mapping, CSV and JSON columns, `check`
/// and `bowties model` are all derived from this declaration. Deviations
/// from the sample: `name` and `id` are required (a catalog entry without
/// them cannot be shown or found), `timesWorn` may not be negative,
/// `searchKey` must not be empty, is unique and must read as a plain
/// word on the command line (not `rating:4`), `url` must be absolute;
/// `timesWorn` and `lastWorn` follow the wear history. `name`, `rating`
/// and `lastWorn` are indexed: the orders `bowties list` and `bowties
/// serve` offer by them read their index, so that any page of a million
/// ties costs what the first does instead of a sort of them all.
public enum BowTieModel {
    /// The name the colour transformer is registered under.
    public static let colorTransformerName = "ColorAttributeTransformer"

    public static let entity = EntityDescription(
        name: "BowTie",
        attributes: [
            AttributeDescription("id", .uuid, isOptional: false, isPrimaryKey: true),
            AttributeDescription(
                "name", .string, isOptional: false, minLength: 1, maxLength: 500, isIndexed: true,
                requiresNonSpace: true),
            AttributeDescription(
                "searchKey", .string, minLength: 1, maxLength: 64, isUnique: true, isQueryWord: true,
                displayName: "search key"),
            AttributeDescription(
                "rating", .double, isOptional: false, minValue: 0, maxValue: 5, defaultValue: .double(0),
                isIndexed: true),
            AttributeDescription(
                "timesWorn", .integer32, isOptional: false, minValue: 0, defaultValue: .integer(0),
                derivation: .count(of: "wears"), displayName: "times worn"),
            AttributeDescription(
                "lastWorn", .date, isIndexed: true, derivation: .latest(of: "wears", attribute: "date"),
                displayName: "last worn"),
            AttributeDescription(
                "isFavorite", .boolean, isOptional: false, defaultValue: .bool(false), displayName: "favourite"),
            AttributeDescription("url", .uri),
            // The table's heading and `show` call it Colour.
            AttributeDescription(
                "tintColor", .transformable, valueTransformerName: colorTransformerName, displayName: "colour"),
            AttributeDescription(
                "photoData", .binaryData, allowsExternalStorage: true, importKey: "imageName", exportName: "photo",
                displayName: "photo"),
        ],
        relationships: [
            RelationshipDescription("wears", to: "Wear", inverse: "bowTie", toMany: true, deleteRule: .cascade),
            RelationshipDescription(
                "tags", to: "Tag", inverse: "bowTies", toMany: true, deleteRule: .nullify, importKey: "tags"),
        ],
        keyAttribute: "searchKey",
        nameAttribute: "name",
        derivedIDAttributes: ["searchKey", "name"]
    )

    /// One time a tie was worn.
    public static let wear = EntityDescription(
        name: "Wear",
        attributes: [
            AttributeDescription("date", .date, isOptional: false),
            AttributeDescription("note", .string, maxLength: 1000),
        ],
        relationships: [
            RelationshipDescription("bowTie", to: "BowTie", inverse: "wears", deleteRule: .nullify, minCount: 1)
        ]
    )

    /// A name ties are filed under: `formal`, `wedding`.
    public static let tag = EntityDescription(
        name: "Tag",
        attributes: [
            AttributeDescription(
                "name", .string, isOptional: false, minLength: 1, maxLength: 64, isUnique: true,
                pattern: #"[^,\p{Cc}]*"#,
                patternMeaning: "a tag cannot contain a comma or a control character", isCaseInsensitive: true)
        ],
        relationships: [
            RelationshipDescription("bowTies", to: "BowTie", inverse: "tags", toMany: true, deleteRule: .nullify)
        ],
        nameAttribute: "name"
    )

    /// The whole model.
    public static let model = ObjectModel(entities: [entity, wear, tag])

    /// Every entity of the model, as `bowties model` lists them.
    public static var entities: [EntityDescription] { model.entities }

    /// The scale of a rating: the `rating` attribute's `minValue` and
    /// `maxValue` (0...5). What `rate`, `add` and `show` say and the
    /// report's stars count, so that they follow the declaration.
    public static let ratingScale: ClosedRange<Double> = {
        let rating = entity["rating"]
        let lowest = rating?.minValue ?? 0
        return lowest...max(lowest, rating?.maxValue ?? lowest)
    }()

    /// The SQL table that holds bow ties.
    static let tableName = entity.tableName
}
