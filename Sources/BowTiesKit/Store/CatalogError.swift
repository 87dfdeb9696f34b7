/// An error of the catalog that is not about the data's validity: a record
/// that does not exist, a store that cannot be opened, a photo file gone.
///
/// ``kind`` is stable and is what the command line maps to exit codes.
public struct CatalogError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No record answers to the key.
        case noSuchRecord
        /// The key matches several records.
        case ambiguousKey
        /// A value clashes with another record's (a search key in use).
        case conflict
        /// A read command was pointed at a store that does not exist.
        case storeNotFound
        /// The file exists but is not a bowties store (or a newer one).
        case notAStore
        /// The store could not be read or written.
        case storeIO
        /// Another process held the store for longer than the command's
        /// `--wait` limit.
        case storeBusy
        /// The command was interrupted (``Catalog/interrupt()``, a signal):
        /// what it was doing was rolled back.
        case interrupted
        /// A photo's file is missing, or its bytes (in the file or inside
        /// the catalog) do not match its hash: ``PhotoProblem`` says which.
        case photoUnavailable
        /// An input file (plist, image, photo to set) is missing or unreadable.
        case inputNotFound
        /// An output file could not be created.
        case cannotCreateOutput
        /// The reader of standard output went away (`EPIPE`: `| head`
        /// closed the pipe). Not a failure: there is no one left to tell.
        case outputClosed
        /// Input that is not acceptable (a photo too large, ...).
        case invalidInput
        /// `bowties check` found problems in the store (or some remain
        /// after `--repair`).
        case storeDamaged
        /// This user may not write (or read) a file or folder the command
        /// needs: the catalog's folder, the catalog, an output's folder.
        case permissionDenied
        /// The store's server cannot be reached or does not hold the
        /// database (a PostgreSQL catalog), or the command is not yet
        /// available on that kind of store.
        case storeUnavailable
    }

    public var kind: Kind
    public var message: String
    /// What the user can do about it, when there is something to say.
    public var hint: String?

    public init(_ kind: Kind, _ message: String, hint: String? = nil) {
        self.kind = kind
        self.message = message
        self.hint = hint
    }

    public var description: String {
        hint.map { "\(message)\nhint: \($0)" } ?? message
    }
}

extension CatalogError.Kind {
    /// The status `bowties` exits with for an error of this kind
    /// (sysexits.h values; 0 for a closed output, 130 for an interruption),
    /// which `bowties serve`'s API reports beside its own status: one
    /// mapping for every face of the catalog.
    public var exitStatus: Int32 {
        switch self {
        case .outputClosed: 0
        case .noSuchRecord, .ambiguousKey: 1
        case .conflict, .invalidInput, .storeDamaged: 65
        case .storeNotFound, .inputNotFound: 66
        case .storeUnavailable: 69
        case .cannotCreateOutput: 73
        case .notAStore, .storeIO, .photoUnavailable: 74
        case .storeBusy: 75
        case .permissionDenied: 77
        case .interrupted: 130
        }
    }
}
