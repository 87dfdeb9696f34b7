import ArgumentParser
import BowTiesKit
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
    /// EX_UNAVAILABLE: the editor of `bowties edit` could not be run, or failed.
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
        failed (edit), 73 cannot create output, 74 store I/O error or not a bowties store, \
        75 store busy (past --wait), 77 permission denied (a folder or file this user may not write), \
        128 + N interrupted by signal N (130 for Ctrl-C).
        """

    /// The status for `error`.
    init(for error: Error) {
        switch error {
        case let error as CatalogError:
            switch error.kind {
            case .noSuchRecord, .ambiguousKey: self = .noSuchRecord
            case .conflict, .invalidInput, .storeDamaged: self = .invalidData
            case .storeNotFound, .inputNotFound: self = .inputNotFound
            case .cannotCreateOutput: self = .cannotCreateOutput
            case .outputClosed: self = .success
            case .notAStore, .storeIO, .photoUnavailable: self = .storeIO
            case .storeBusy: self = .storeBusy
            case .permissionDenied: self = .permissionDenied
            case .interrupted: self = .interrupted
            }
        case let error as PropertyListError:
            switch error.kind {
            case .fileNotFound, .unreadable: self = .inputNotFound
            default: self = .invalidData
            }
        case is BowTiesKit.ValidationError, is ImportError, is TransformerError, is ValueTextError,
            is RecordTextError:
            self = .invalidData
        case let error as EditorError:
            self = error.signal != nil ? .interrupted : .editorFailed
        case is UsageError, is QueryError, is ExportFieldError:
            self = .usage
        default:
            self = .storeIO
        }
    }

    /// Prints `error` to standard error and exits with its status.
    /// ArgumentParser's own errors (usage, `--help`, `--version`) keep its
    /// formatting; usage errors exit 64.
    static func exit(reporting error: Error) -> Never {
        // The message goes below the paged text, once the pager is gone,
        // not into its screen.
        Pager.finish()
        if let error = error as? CatalogError, error.kind == .outputClosed {
            // `bowties list | head -1`: the reader has all it wanted.
            Foundation.exit(ExitStatus.success.rawValue)
        }
        switch error {
        case is CatalogError, is PropertyListError, is BowTiesKit.ValidationError, is ImportError, is TransformerError,
            is UsageError, is ValueTextError, is RecordTextError, is EditorError, is QueryError, is ExportFieldError:
            let status = ExitStatus(for: error)
            Terminal.standardError.write("bowties: error: \(error)\n")
            if let signal = (error as? EditorError)?.signal { Foundation.exit(128 + signal) }
            Foundation.exit(status.rawValue)
        default:
            BowTies.exit(withError: error)
        }
    }
}

/// A value on the command line that parses but cannot be used (a date
/// that is not one, or in the future): exit 64, reported as bowties
/// reports every error, naming the value.
struct UsageError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
