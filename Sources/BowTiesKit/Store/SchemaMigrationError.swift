/// Why ``SchemaMigrator`` refused to bring a store up to date. The store is
/// as it was: the transaction rolled back.
///
/// ``Catalog`` turns it into a ``CatalogError`` that names the store.
enum SchemaMigrationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The store records migrations this version does not know: a newer
    /// bowties wrote it, and this one cannot tell what its schema holds.
    case newerSchema(unknown: [String])
    /// After the pending migrations, `PRAGMA foreign_key_check` reported
    /// these rows (one line each).
    case foreignKeyViolations([String])

    var description: String {
        switch self {
        case .newerSchema(let unknown):
            "the store was written by a newer version of bowties (migrations unknown here: "
                + unknown.map { "\"\($0)\"" }.joined(separator: ", ") + ")"
        case .foreignKeyViolations(let rows):
            "the upgraded schema has broken references: " + rows.joined(separator: "; ")
        }
    }
}
