import ArgumentParser
import BowTiesKit
import Foundation

/// Options every command shares: where the catalog is, and whether to
/// print for people or for scripts.
struct CatalogOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The catalog file to use.",
            discussion:
                "Default: $BOWTIES_STORE, else $XDG_DATA_HOME/bowties/catalog.sqlite (~/.local/share/bowties/catalog.sqlite).",
            valueName: "path"))
    var store: String?

    @Flag(name: .long, help: "Print JSON for scripts instead of text for people.")
    var json = false

    /// The resolved store path.
    var storeURL: URL { StoreLocation.resolve(explicit: store) }

    /// Opens the catalog; commands that only read pass `.mustExist`.
    func openCatalog(_ mode: Catalog.OpenMode) throws -> Catalog {
        try Catalog(url: storeURL, mode: mode)
    }
}
