import ArgumentParser
import BowTiesKit
import CoreDataStore
import Foundation
import PropertyList

/// The exit statuses of bowties (sysexits.h values), and the one place that
/// maps errors to them.
enum ExitStatus: Int32 {
    case success = 0
    case noSuchRecord = 1
    case usage = 64
    case invalidData = 65
    case inputNotFound = 66
    /// EX_UNAVAILABLE: the editor of `bowties edit` could not be run, or
    /// failed; a library loaded on first use (libpng, libjpeg, libpq: see
    /// CLibraryLoader) could not be loaded, which the C loader says and
    /// exits with itself; or a PostgreSQL catalog's server cannot be
    /// reached (or the command is not yet available there).
    case editorFailed = 69
    case cannotCreateOutput = 73
    case storeIO = 74
    case storeBusy = 75
    /// EX_NOPERM: this user may not write the catalog, its folder or an
    /// output's folder.
    case permissionDenied = 77
    /// 128 + SIGINT: what a shell reports for Ctrl-C. Commands that trap
    /// signals exit with 128 + the signal they received.
    case interrupted = 130

    static let helpText = """
        Exit status: 0 success, 1 no such record, 64 usage error, 65 invalid data \
        (validation, malformed input), 66 input not found or unreadable, 69 the editor \
        failed (edit), a system library or bowties-serve is missing, or a PostgreSQL catalog's server is unreachable, 73 cannot create output, 74 store I/O error or not a bowties store, \
        75 store busy (past --wait), 77 permission denied (a folder or file this user may not write), \
        128 + N interrupted by signal N (130 for Ctrl-C).
        """

    /// The status for `error`.
    init(for error: Error) {
        switch error {
        case let error as CatalogError:
            // The library's mapping (`CatalogError.Kind.exitStatus`), which
            // `bowties serve` reports too.
            self = ExitStatus(rawValue: error.kind.exitStatus) ?? .storeIO
        case let error as PropertyListError:
            switch error.kind {
            case .fileNotFound, .unreadable: self = .inputNotFound
            default: self = .invalidData
            }
        case let error as CoreDataError:
            switch error.kind {
            case .storeNotFound, .unreadable: self = .inputNotFound
            case .noSuchEntity: self = .usage
            case .notCoreData, .damaged, .malformedArchive: self = .invalidData
            }
        case is BowTiesKit.ValidationError, is ImportError, is TransformerError, is ValueTextError,
            is RecordTextError:
            self = .invalidData
        case let error as EditorError:
            self = error.signal != nil ? .interrupted : .editorFailed
        case is HelperUnavailable:
            self = .editorFailed
        case is UsageError, is QueryError, is ExportFieldError:
            self = .usage
        default:
            self = .storeIO
        }
    }

    /// Prints `error` to standard error and exits with its status.
    /// ArgumentParser's usage errors are said in the same voice
    /// (``ArgumentError``) and exit 64; `--help` and `--version` keep its
    /// output.
    static func exit(reporting error: Error) -> Never {
        // The message goes below the paged text, once the pager is gone,
        // not into its screen.
        Pager.finish()
        if let error = error as? CatalogError, error.kind == .outputClosed {
            // `bowties list | head -1`: the reader has all it wanted.
            Foundation.exit(ExitStatus.success.rawValue)
        }
        switch error {
        case is CatalogError, is PropertyListError, is CoreDataError, is BowTiesKit.ValidationError, is ImportError, is TransformerError,
            is UsageError, is ValueTextError, is RecordTextError, is EditorError, is QueryError, is ExportFieldError,
            is HelperUnavailable:
            let status = ExitStatus(for: error)
            var error = error
            if var fields = error as? ExportFieldError {
                // The library says "the field list"; here it is an option.
                fields.listName = "--fields"
                error = fields
            }
            Terminal.standardError.write("bowties: error: \(error)\n")
            if let signal = (error as? EditorError)?.signal { Foundation.exit(128 + signal) }
            Foundation.exit(status.rawValue)
        default:
            // ArgumentParser's errors: help and --version keep its output
            // and status; a usage error is said in our voice.
            guard BowTies.exitCode(for: error) == .validationFailure else { BowTies.exit(withError: error) }
            Terminal.standardError.write("bowties: error: \(ArgumentError(error))\n")
            Foundation.exit(ExitStatus.usage.rawValue)
        }
    }
}

/// A command line ArgumentParser could not read, said as bowties says
/// every error: `bowties: error: missing value for '--name <name>'`, then
/// a `hint:` that names the command's help, instead of its `Error: …`,
/// `Help:` and usage lines. An unknown option gets bowties' suggestion
/// (``CommandOptionTable/suggestion(for:)``), not ArgumentParser's nearest
/// name, which offered `--store` for `--force`.
struct ArgumentError: CustomStringConvertible {
    var message: String
    var hint: String?

    init(_ error: Error) {
        var message = BowTies.message(for: error)
        // "See 'bowties list --help' for more information.": the command.
        let full = BowTies.fullMessage(for: error)
        var command: String?
        if let start = full.range(of: "See 'bowties "), let end = full[start.upperBound...].range(of: " --help'") {
            command = String(full[start.upperBound..<end.lowerBound])
        }
        if message.hasPrefix("Unknown option '"), let command, let table = CommandOptionTable(command: command) {
            let typed = String(message.dropFirst("Unknown option '".count).prefix { $0 != "'" })
            let suggestion = table.suggestion(for: typed).map { ". Did you mean '\($0)'?" } ?? ""
            message = "unknown option '\(Output.escaped(typed))'" + suggestion
        } else if message.hasPrefix("Missing value for '--"),
            let name = message.dropFirst("Missing value for '".count).split(separator: " ").first,
            let given = CommandLine.arguments.firstIndex(of: String(name)),
            given + 1 < CommandLine.arguments.count, CommandLine.arguments[given + 1].hasPrefix("-")
        {
            // `--name --x`: a value that looks like an option.
            let value = Output.escaped(CommandLine.arguments[given + 1])
            hint = "A value that starts with '-' goes after '=': \(name)=\(value)."
        }
        // "Please provide one of the following:" and a line per value: one
        // line, as the rest of bowties' messages.
        if let list = message.range(of: ". Please provide one of the following:\n") {
            let values = message[list.upperBound...].split(separator: "\n").map {
                $0.trimmingCharacters(in: .whitespaces).drop { $0 == "-" || $0 == " " }
            }
            message = message[..<list.lowerBound] + ": use " + values.joined(separator: ", ") + "."
        }
        // Our messages start in lower case, as git's do; "URL" stays.
        if let first = message.first, first.isUppercase, message.dropFirst().first?.isLowercase == true {
            message = first.lowercased() + message.dropFirst()
        }
        self.message = message
        let help = "`bowties \(command.map { $0 + " " } ?? "")--help` describes its arguments and options."
        hint = hint.map { $0 + " " + help } ?? help
    }

    var description: String {
        hint.map { "\(message)\nhint: \($0)" } ?? message
    }
}

/// A value on the command line that parses but cannot be used (a date
/// that is not one, or in the future): exit 64, reported as bowties
/// reports every error, naming the value.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    /// What to do instead, printed as a `hint:` line.
    var hint: String?

    init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }

    var description: String {
        hint.map { "\(message)\nhint: \($0)" } ?? message
    }
}
