import ArgumentParser
import BowTiesKit
import Foundation

/// Options every command shares: where the catalog is, how long to wait
/// for it, whether to print for people or for scripts, through a pager or
/// not, and in colour or not (``ColorOption``). They may come before the
/// command's name too (`bowties --store X list`): see
/// ``BowTies/argumentsWithSharedOptionsAfterCommand(_:)``.
///
/// `add` takes ``CommonOptions``, the same without `--color`: its own
/// `--color` is the new tie's colour.
@dynamicMemberLookup
struct CatalogOptions: ParsableArguments {
    /// The options above as they are spelled, and whether each takes a
    /// value: what may be moved from before the command's name to after it.
    static let names: [String: Bool] = [
        "--store": true, "--wait": true, "--json": false, "--no-pager": false, "--color": true,
    ]

    @OptionGroup var common: CommonOptions

    @OptionGroup var colorOption: ColorOption

    subscript<Value>(dynamicMember keyPath: KeyPath<CommonOptions, Value>) -> Value {
        common[keyPath: keyPath]
    }

    /// The options as plain values, for a command's work.
    var settings: CatalogSettings { common.settings }

    /// See ``CommonOptions/withCatalogCreatedIfMissing(_:)``.
    func withCatalogCreatedIfMissing<T>(_ body: (Catalog) throws -> T) throws -> T {
        try common.withCatalogCreatedIfMissing(body)
    }

    /// See ``CommonOptions/openCatalog(_:)``.
    func openCatalog(_ mode: Catalog.OpenMode) throws -> Catalog {
        try common.openCatalog(mode)
    }
}

/// `--store`, `--wait`, `--json` and `--no-pager`: ``CatalogOptions``
/// without `--color`, for `add`.
struct CommonOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The catalog file to use, or a PostgreSQL database's address (postgresql://USER@HOST:PORT/DB).",
            discussion:
                "Default: $BOWTIES_STORE, else $XDG_DATA_HOME/bowties/catalog.sqlite (~/.local/share/bowties/catalog.sqlite). An address takes what it leaves out from libpq's PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD and ~/.pgpass; put a password there, not in the address, which other users can see in the process list.",
            valueName: "path"))
    var store: String?

    // Unconditional: `--wait -1` must reach validate()'s message, not be
    // read as an option (see BowTies.optionsTakingNumbers).
    @Option(
        name: .long,
        parsing: .unconditional,
        help: ArgumentHelp(
            "Wait at most this long for another command that is changing the catalog.",
            discussion: "Without it, a command waits as long as the other one runs (and says who it waits for).",
            valueName: "seconds"))
    var wait: Double?

    @Flag(name: .long, help: "Print JSON for scripts instead of text for people.")
    var json = false

    @Flag(
        name: .customLong("no-pager"),
        help: "Print long output directly instead of through $PAGER (default: less -FRX) on a terminal.")
    var noPager = false

    func validate() throws {
        if let problem = settings.problem { throw ValidationError(problem) }
    }

    /// The options as plain values, for a command's work.
    var settings: CatalogSettings { CatalogSettings(store: store, wait: wait, json: json, noPager: noPager) }

    /// See ``CatalogSettings/storeURL``.
    var storeURL: URL { settings.storeURL }

    /// See ``CatalogSettings/waitPolicy``.
    var waitPolicy: WaitPolicy { settings.waitPolicy }

    /// See ``CatalogSettings/withCatalogCreatedIfMissing(_:)``.
    func withCatalogCreatedIfMissing<T>(_ body: (Catalog) throws -> T) throws -> T {
        try settings.withCatalogCreatedIfMissing(body)
    }

    /// See ``CatalogSettings/openCatalog(_:)``.
    func openCatalog(_ mode: Catalog.OpenMode) throws -> Catalog {
        try settings.openCatalog(mode)
    }
}

/// `--store`, `--wait`, `--json` and `--no-pager` as plain values: what a
/// command's work reads of ``CommonOptions``.
///
/// ``FastPath`` fills one without ArgumentParser: creating the options'
/// property wrappers (`Option<String?>`, `Flag<Bool>`…) is a first-time
/// generic instantiation each, whose protocol lookups scan the binary
/// (1.4 M of the 19 M instructions of `bowties show R`, bench/README.md).
struct CatalogSettings: Sendable {
    var store: String?
    var wait: Double?
    var json = false
    var noPager = false

    /// Why the values are refused (ArgumentParser's validation says it),
    /// or nil.
    var problem: String? {
        if let store, store.isEmpty {
            return "--store needs a path: an empty one does not mean the default catalog."
        }
        if let wait, !(wait >= 0) || !wait.isFinite {
            return "--wait takes a number of seconds, 0 or more."
        }
        return nil
    }

    /// The resolved store path.
    var storeURL: URL { StoreLocation.resolve(explicit: store) }

    /// How to wait for the catalog: as `--wait` says, and saying once on
    /// standard error who it waits for.
    var waitPolicy: WaitPolicy {
        WaitPolicy(limit: wait, describeHolder: LockHolderText.describe) { holder in
            Terminal.standardError.write("waiting for the catalog: \(holder)…\n")
        }
    }

    /// Opens the catalog, creating it when missing, for `body`. When the
    /// command fails, a store (and folder) it created is removed again,
    /// unless another command has started to use it meanwhile: a failed
    /// command leaves nothing behind. The catalog is closed before that.
    func withCatalogCreatedIfMissing<T>(_ body: (Catalog) throws -> T) throws -> T {
        let storeURL = storeURL
        let storeExisted = FileManager.default.fileExists(atPath: storeURL.path)
        let folder = storeURL.deletingLastPathComponent()
        let folderExisted = FileManager.default.fileExists(atPath: folder.path)
        do {
            return try body(openCatalog(.createIfMissing))
        } catch {
            if !storeExisted, Catalog.removeStoreIfUnused(at: storeURL), !folderExisted {
                rmdir(folder.path)
            }
            throw error
        }
    }

    /// Opens the catalog; commands that only read pass `.readOnly`.
    ///
    /// A command that writes upgrades a catalog an earlier release made,
    /// atomically, and says so once on standard error; one that reads
    /// reads it as it is.
    func openCatalog(_ mode: Catalog.OpenMode) throws -> Catalog {
        let catalog = try Catalog(url: storeURL, mode: mode, wait: waitPolicy)
        if let upgrade = catalog.upgradedSchema {
            Terminal.standardError.write(
                "bowties: upgraded the catalog from schema v\(upgrade.store) to v\(upgrade.current)\n")
        }
        return catalog
    }
}

/// `--color auto|always|never`, as git and ls spell it; applied to
/// ``Terminal/colorChoice`` when the command line is validated, before
/// the command runs.
struct ColorOption: ParsableArguments {
    @Option(
        name: .customLong("color"),
        help: ArgumentHelp(
            "When to colour the output: auto, always or never.",
            discussion: """
                auto (the default): on a terminal, unless NO_COLOR is set or TERM=dumb \
                (CLICOLOR_FORCE colours a pipe too); always: even when piped; never. \
                24-bit colour when COLORTERM is truecolor or 24bit, else the 256-colour palette.
                """,
            valueName: "when"),
        completion: .list(Terminal.ColorChoice.allCases.map(\.rawValue)))
    var color: String?

    func validate() throws {
        guard let color else { return }
        // Our own message: the one `add`'s --color before its name gets too.
        guard let choice = Terminal.ColorChoice(rawValue: color) else {
            throw ValidationError("--color takes auto, always or never, not '\(Output.escaped(color))'.")
        }
        Terminal.colorChoice = choice
    }
}
