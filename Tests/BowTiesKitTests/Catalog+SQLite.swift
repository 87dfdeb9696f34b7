@testable import BowTiesKit
import GRDB

extension Catalog {
    /// The SQLite connection behind the catalog (its one conformer of
    /// ``CatalogStore``), for tests that look at the store's own SQL.
    var database: DatabaseQueue { (store as! SQLiteStore).database }
}
