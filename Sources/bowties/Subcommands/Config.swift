import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties config [--photo-threshold BYTES] [--undo-limit N]`.
    struct Config: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "config",
            abstract: "Show where the catalog is and its settings, or change them.",
            discussion: """
                --photo-threshold sets the size above which photos saved from now on are kept \
                in files beside the catalog instead of inside it (default 102400, 100 KiB). \
                Photos already stored stay where they are. A catalog on PostgreSQL keeps every \
                photo in its database: it has no threshold.

                --undo-limit sets how many actions the undo history keeps (default 100); older \
                ones are forgotten, and the photos only they needed are removed. 0 turns the \
                history off: nothing can be undone, and a photo no tie uses goes at once.
                """)

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Store photos larger than this many bytes in files.", valueName: "bytes"))
        var photoThreshold: Int?

        @Option(help: ArgumentHelp("Keep this many actions for `bowties undo`.", valueName: "n"))
        var undoLimit: Int?

        @OptionGroup var options: CatalogOptions

        func validate() throws {
            if let photoThreshold, photoThreshold < 0 {
                throw ArgumentParser.ValidationError("--photo-threshold must be 0 or more bytes.")
            }
            if let undoLimit, undoLimit < 0 {
                throw ArgumentParser.ValidationError("--undo-limit must be 0 or more.")
            }
        }

        func run() throws {
            guard photoThreshold != nil || undoLimit != nil else { return try show(options.openCatalog(.readOnly)) }
            try options.withCatalogCreatedIfMissing { catalog in
                if let photoThreshold { try catalog.setExternalStorageThreshold(photoThreshold) }
                if let undoLimit { try catalog.setUndoLimit(undoLimit) }
                try show(catalog)
            }
        }

        private func show(_ catalog: Catalog) throws {
            // A catalog with no photo folder (PostgreSQL) keeps every photo
            // inside: it has no threshold to show.
            let threshold = catalog.externalPhotoDirectory == nil ? nil : try catalog.externalStorageThreshold()
            // An address is shown with its password masked.
            let store = catalog.url.storeDescription
            let count = try catalog.count()
            let undoLimit = try catalog.undoLimit()
            if options.json {
                try Output.json(
                    SettingsJSON(
                        store: store, photoFolder: catalog.externalPhotoDirectory?.path,
                        photoThreshold: threshold, undoLimit: undoLimit, bowTies: count))
                return
            }
            Output.line("Catalog: \(store)")
            Output.line("Bow ties: \(count)")
            Output.line("Photo files: \(catalog.externalPhotoDirectory?.path ?? "none (every photo is in the catalog)")")
            Output.line(
                "Photo threshold: " + (threshold.map { "\(Output.grouped($0)) bytes" } ?? "none (every photo is in the catalog)"))
            Output.line(
                undoLimit == 0 ? "Undo history: off" : "Undo history: the last \(Output.count(undoLimit, "action"))")
        }
    }
}

private struct SettingsJSON: Encodable {
    var store: String
    /// null for a store that keeps every photo in its rows.
    @ExplicitNull var photoFolder: String?
    @ExplicitNull var photoThreshold: Int?
    var undoLimit: Int
    var bowTies: Int
}
