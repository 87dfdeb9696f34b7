/// The BowTie model, declared once as Core Data's BowTies sample declares
/// it, with the validation rules that sample puts in its model.
///
/// Schema, validation, import key mapping, CSV columns and error messages
/// are all derived from this declaration. Deviations from the sample:
/// `name` and `id` are required (a catalog entry without them cannot be
/// shown or found), `timesWorn` may not be negative, `searchKey` must not
/// be empty and is unique, `url` must be absolute.
public enum BowTieModel {
    /// The name the colour transformer is registered under.
    public static let colorTransformerName = "ColorAttributeTransformer"

    public static let entity = EntityDescription(
        name: "BowTie",
        attributes: [
            AttributeDescription("id", .uuid, isOptional: false),
            AttributeDescription("name", .string, isOptional: false, minLength: 1, maxLength: 500),
            AttributeDescription("searchKey", .string, minLength: 1, maxLength: 64, isUnique: true),
            AttributeDescription(
                "rating", .double, isOptional: false, minValue: 0, maxValue: 5, defaultValue: .double(0)),
            AttributeDescription(
                "timesWorn", .integer32, isOptional: false, minValue: 0, defaultValue: .integer(0)),
            AttributeDescription("lastWorn", .date),
            AttributeDescription("isFavorite", .boolean, isOptional: false, defaultValue: .bool(false)),
            AttributeDescription("url", .uri),
            AttributeDescription(
                "tintColor", .transformable, valueTransformerName: colorTransformerName),
            AttributeDescription(
                "photoData", .binaryData, allowsExternalStorage: true, importKey: "imageName"),
        ]
    )

    /// Every entity of the model, as `bowties model` lists them.
    public static let entities = [entity]

    /// The SQL table that holds bow ties.
    static let tableName = "bowtie"
}
