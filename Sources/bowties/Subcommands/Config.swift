import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties config [--photo-threshold BYTES]`.
    struct Config: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "config",
            abstract: "Show where the catalog is and its settings, or change them.",
            discussion: """
                --photo-threshold sets the size above which photos saved from now on are kept \
                in files beside the catalog instead of inside it (default 102400, 100 KiB). \
                Photos already stored stay where they are.
                """)

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Store photos larger than this many bytes in files.", valueName: "bytes"))
        var photoThreshold: Int?

        @OptionGroup var options: CatalogOptions

        func validate() throws {
            if let photoThreshold, photoThreshold < 0 {
                throw ArgumentParser.ValidationError("--photo-threshold must be 0 or more bytes.")
            }
        }

        func run() throws {
            guard let photoThreshold else { return try show(options.openCatalog(.readOnly)) }
            try options.withCatalogCreatedIfMissing { catalog in
                try catalog.setExternalStorageThreshold(photoThreshold)
                try show(catalog)
            }
        }

        private func show(_ catalog: Catalog) throws {
            let threshold = try catalog.externalStorageThreshold()
            let count = try catalog.count()
            if options.json {
                try Output.json(
                    SettingsJSON(
                        store: catalog.url.path, photoFolder: catalog.externalPhotoDirectory.path,
                        photoThreshold: threshold, bowTies: count))
                return
            }
            Output.line("Catalog: \(catalog.url.path)")
            Output.line("Bow ties: \(count)")
            Output.line("Photo files: \(catalog.externalPhotoDirectory.path)")
            Output.line("Photo threshold: \(Output.grouped(threshold)) bytes")
        }
    }
}

private struct SettingsJSON: Encodable {
    var store: String
    var photoFolder: String
    var photoThreshold: Int
    var bowTies: Int
}
