import ArgumentParser
import BowTiesKit
import Foundation
import PropertyList

extension BowTies {
    /// `bowties import [FILE]`: adds the bow ties of a property list.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import bow ties from a property list, JSON, CSV or Core Data store (the sample data by default).",
            discussion: """
                Reads an XML or binary property list whose root <array> holds one <dict> per bow \
                tie, a JSON array of objects, JSON Lines (one object per line), or CSV/TSV with a \
                header row, as `bowties export` writes them (TSV is never quoted: \\t, \\n, \\r \
                and \\\\ are a tab, line feed, carriage return and backslash). Text is UTF-8 (a \
                byte-order mark is skipped); lines end with LF, CRLF or CR. The format is told \
                from the content, never from the name (--format names it); FILE - reads standard \
                input. Without FILE, imports the bundled sample data.

                Keys (or columns): id, name, searchKey, rating, timesWorn, lastWorn, isFavorite, \
                url, tintColor (#RRGGBB, or a plist <dict> of red, green, blue), tags (an array \
                of names; in CSV, names separated by commas), wears (an array of {date, note}: \
                the wear history; timesWorn and lastWorn then count it, and with --update it \
                replaces the stored history), and the photo: \
                imageName (a file in --images), photo as bytes (<data>, or Base64 text), or \
                photo as an export's description {"sha256": ...} (CSV: photoSHA256), which \
                means the photo this catalog already holds with that hash (a warning when it \
                holds none). JSON null or an empty CSV cell is the same as leaving the key out. \
                A CSV header may write a column in any case, with spaces, _ or - (Search Key), or \
                by the label list and show print (Key, Worn, Favourite, Colour). Dates are a day \
                (2024-03-15, midnight UTC) or a date and time with seconds and a zone \
                (2024-03-15T10:30:00Z, ...+02:00).

                An unknown key is a warning and is ignored; a record left with no key bowties \
                reads, or without a required value (name) that a misspelled key was meant to give, \
                is an error. --strict makes every warning (an unknown key, a missing photo) an \
                error: nothing is imported.

                Records are matched by id: ties already in the catalog are left as they are \
                (what you wore and rated is kept) unless you pass --update. A record without an \
                id gets one derived from its search key and name, so re-importing is safe.

                The import is all or nothing: one invalid record stops it with its location \
                (file:line:column, or file: byte N in a binary property list) and nothing is \
                written. Photos named by imageName are read from --images \
                (default: Images/ beside FILE, or in the current folder for -), as written or \
                with .png added.

                A Core Data SQLite store (told by its Z_METADATA and Z_PRIMARYKEY tables) is \
                read by its own model: the objects of its BowTie entity, each attribute by its \
                name (photoData gives the photo's bytes, inline or from _EXTERNAL_DATA; the \
                archived UIColor or NSColor gives tintColor), located as STORE: BowTie pN. \
                --entity imports another entity, and --map attribute=field (repeated) names the \
                field each of its attributes fills; relationships are not read.
                """)

        @Argument(help: "The file to import, - for standard input (default: the sample data).", completion: .file())
        var file: String?

        @Option(help: ArgumentHelp("Read the input as this format instead of telling it from the content."))
        var format: ImportFormat?

        @Option(
            help: ArgumentHelp("The folder image names resolve against.", valueName: "folder"), completion: .directory)
        var images: String?

        @Option(
            help: ArgumentHelp(
                "A Core Data store's entity to import (default: BowTie).", valueName: "name"))
        var entity: String?

        @Option(
            help: ArgumentHelp(
                "A Core Data store's attribute and the field it fills, as title=name; repeatable.",
                valueName: "attribute=field"))
        var map: [String] = []

        @Flag(help: "Overwrite ties that already exist with the file's values.")
        var update = false

        @Flag(help: "Check the file and report what would change, writing nothing.")
        var dryRun = false

        @Flag(help: "Treat every warning (an unknown key, a missing photo) as an error: nothing is imported.")
        var strict = false

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let fieldMap = try self.fieldMap()
            // libxml2 is loaded on first use; load it before the catalog is
            // opened, so that an import that cannot load it (exit 69) stops
            // before it touches anything.
            PropertyListReader.loadXMLParser()
            let input: ImportInput =
                try file == "-" ? .standardInput : .file(file.map { URL(fileURLWithPath: $0) } ?? SampleData.locate())
            if file == "-", Terminal.isTerminal(0) {
                // A person at a terminal would otherwise see nothing happen.
                Terminal.standardError.write("reading from standard input; Ctrl-D ends\n")
            }
            // Ctrl-C, a terminal that closes, `kill`: the import rolls back
            // and removes its photo files instead of dying half-way.
            let trap = SignalTrap()
            let storeURL = options.storeURL
            let report: ImportReport
            do {
                report =
                    try dryRun
                    ? checkFile(input, against: storeURL, fieldMap, trap) : importFile(input, fieldMap, trap)
            } catch {
                if let signal = trap.received {
                    Terminal.standardError.write("interrupted: nothing was imported\n")
                    Foundation.exit(128 + signal)
                }
                throw error
            }
            try show(report, source: input, storeURL: storeURL)
            if let signal = trap.received {
                // Too late to stop: the commit had begun.
                Terminal.standardError.write("interrupted, but the import above had already been saved\n")
                Foundation.exit(128 + signal)
            }
        }

        /// Imports into the catalog, creating it when missing (and removing
        /// it again when the import fails).
        private func importFile(_ source: ImportInput, _ fieldMap: [String: String], _ trap: SignalTrap) throws
            -> ImportReport
        {
            try options.withCatalogCreatedIfMissing { catalog in try run(source, into: catalog, fieldMap, trap) }
        }

        /// A dry run: the real import, on a private copy of the catalog (or
        /// an empty store when there is none), thrown away afterwards. The
        /// catalog is only read, so a dry run works where the user may not
        /// write, and nothing appears beside it. On PostgreSQL: the real
        /// import in a transaction that rolls back (it takes the write
        /// lock and needs INSERT, not the owner).
        private func checkFile(
            _ source: ImportInput, against storeURL: URL, _ fieldMap: [String: String], _ trap: SignalTrap
        ) throws -> ImportReport {
            let scratch = FileManager.default.temporaryDirectory
                .appendingPathComponent("bowties-dry-run-\(UUID().uuidString)", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let copy = scratch.appendingPathComponent(StoreLocation.fileName)
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            if storeURL.isStoreAddress {
                // A database needs no copy: the real import in a
                // transaction that rolls back (the import's dryRun).
                do {
                    return try run(source, into: options.openCatalog(.mustExist), fieldMap, trap)
                } catch let error as CatalogError where error.kind == .storeNotFound {
                    // No catalog in the database yet: check against an empty one.
                    return try run(
                        source, into: Catalog(url: copy, mode: .createIfMissing, wait: options.waitPolicy), fieldMap,
                        trap)
                }
            }
            do {
                let catalog = try options.openCatalog(.readOnly)
                trap.onSignal { [weak catalog] in catalog?.interrupt() }
                try catalog.copyDatabase(to: copy)
            } catch let error as CatalogError where error.kind == .storeNotFound {
                // No catalog yet (or one still empty): check against an
                // empty one.
            }
            return try run(
                source, into: Catalog(url: copy, mode: .createIfMissing, wait: options.waitPolicy), fieldMap, trap)
        }

        /// Runs the import; the catalog is closed when this returns.
        private func run(
            _ source: ImportInput, into catalog: Catalog, _ fieldMap: [String: String], _ trap: SignalTrap
        ) throws -> ImportReport {
            trap.onSignal { [weak catalog] in catalog?.interrupt() }
            let progress = ProgressLine(label: source.displayName)
            defer { progress.finish() }
            var importOptions = ImportOptions(
                imagesDirectory: images.map { URL(fileURLWithPath: $0, isDirectory: true) },
                update: update, dryRun: dryRun, strict: strict, progress: progress.update)
            importOptions.entity = entity
            importOptions.fieldMap = fieldMap
            return try catalog.importRecords(from: source, format: format, options: importOptions)
        }

        /// `--map title=name --map when=lastWorn`, as a dictionary.
        private func fieldMap() throws -> [String: String] {
            var result: [String: String] = [:]
            for pair in map {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw UsageError(
                        "--map \(pair): expected attribute=field",
                        hint: "--map takes the store's attribute name, then = and the catalog's field (title=name).")
                }
                guard result.updateValue(String(parts[1]), forKey: String(parts[0])) == nil else {
                    throw UsageError("--map names the attribute \(parts[0]) twice")
                }
            }
            return result
        }

        private func show(_ report: ImportReport, source: ImportInput, storeURL: URL) throws {
            // The first warnings one by one, then a line per kind for the
            // rest: a file of 400,000 records without their photos gets 21
            // lines, not 400,000.
            for warning in report.warnings {
                Output.warning(warning.description)
            }
            for summary in report.moreWarnings {
                Output.warning(summary.message)
            }
            if options.json {
                let file: String
                switch source {
                case .file(let url): file = url.path
                case .standardInput: file = "-"
                }
                try Output.json(ReportJSON(report, file: file, store: storeURL.storeDescription))
                return
            }
            let counts = "added \(report.added), updated \(report.updated), unchanged \(report.unchanged)"
            if report.dryRun {
                Output.line("Dry run of \(source.displayName), nothing written: would have \(counts).")
            } else {
                Output.line("Imported \(source.displayName) into \(storeURL.storeDescription): \(counts).")
            }
            // "7 photos", or "7 distinct photos for 100000 ties" when
            // records share them (each is stored once).
            var photos = "\(report.photos) photo\(report.photos == 1 ? "" : "s")"
            if report.distinctPhotos < report.photos {
                photos =
                    "\(report.distinctPhotos) distinct photo\(report.distinctPhotos == 1 ? "" : "s") for \(report.photos) ties"
            }
            if report.photos > 0 && report.dryRun {
                Output.line("\(photos) would be saved.")
            } else if report.photos > 0 && storeURL.isStoreAddress {
                Output.line("\(photos) saved in the database.")
            } else if report.photos > 0 {
                let files = "\(report.photoFilesWritten) new file\(report.photoFilesWritten == 1 ? "" : "s")"
                let folder = Catalog.externalPhotoDirectory(forStoreAt: storeURL).path
                Output.line("\(photos) saved; \(files) in \(folder).")
            }
        }
    }
}

private struct ReportJSON: Encodable {
    var file: String
    var store: String
    var dryRun: Bool
    var added: Int
    var updated: Int
    var unchanged: Int
    var photos: Int
    var photoFilesWritten: Int
    var distinctPhotos: Int
    /// The first warnings, as printed.
    var warnings: [String]
    /// The rest, counted by kind: `{"kind": "missingImage", "count":
    /// 399980, "exact": true, "message": "… and 399,980 more records ..."}`.
    var moreWarnings: [MoreWarnings]

    struct MoreWarnings: Encodable {
        var kind: String
        var count: Int
        var exact: Bool
        var message: String
    }

    init(_ report: ImportReport, file: String, store: String) {
        self.file = file
        self.store = store
        dryRun = report.dryRun
        added = report.added
        updated = report.updated
        unchanged = report.unchanged
        photos = report.photos
        photoFilesWritten = report.photoFilesWritten
        distinctPhotos = report.distinctPhotos
        warnings = report.warnings.map(\.description)
        moreWarnings = report.moreWarnings.map {
            MoreWarnings(kind: $0.kind.rawValue, count: $0.count, exact: $0.isExact, message: $0.message)
        }
    }
}

extension ImportFormat: ExpressibleByArgument {}
