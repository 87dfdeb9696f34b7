import ArgumentParser
import CoreDataStore
import Foundation

extension BowTies {
    /// `bowties coredata`: read any Core Data SQLite store, on Linux, from
    /// the store's own metadata.
    struct CoreData: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "coredata",
            abstract: "Read a Core Data store (an app's .sqlite file): its model and its objects.",
            discussion: """
                Apps on Apple's systems built on Core Data or SwiftData keep their data in an \
                SQLite file (often Model.sqlite, with Model.sqlite-wal and -shm beside it). \
                These commands read such a store on Linux, whatever the app: the model comes \
                from the store itself (its Z_MODELCACHE table, or else its tables).

                They never write: the .sqlite and -wal files stay byte for byte as they were, \
                rows still in the -wal file are seen, and a store in a folder you cannot write \
                (a backup, a read-only mount) reads the same.

                Start with `bowties coredata inspect STORE`, then `bowties coredata dump STORE`. \
                They need no catalog.
                """,
            subcommands: [Inspect.self, Dump.self])

        @OptionGroup var colorOption: ColorOption
    }
}

extension CoreDataStore {
    /// Opens `path` as the user typed it, for `bowties coredata`.
    static func open(_ path: String) throws -> CoreDataStore {
        try CoreDataStore(path: (path as NSString).expandingTildeInPath, displayName: path)
    }
}
