import PropertyList

/// The warnings of one import, in memory that does not grow with them:
/// the first ``limit`` in file order, whatever their kind, then a count
/// per kind.
///
/// A file whose every record names a missing photo would otherwise keep,
/// and print, one warning per record (400,000 records took 145 MB). The
/// messages are built only for the warnings that are kept:
///
/// ```swift
/// var log = ImportWarningLog()
/// log.add(.unknownKey, at: location, "unknown key \"fabric\" ignored")
/// let (shown, more) = log.finish { kind, count in "… and \(count) more" }
/// ```
struct ImportWarningLog {
    /// How many warnings are kept whole.
    static let limit = 20

    private(set) var shown: [ImportWarning] = []
    /// Warnings past ``limit``, by ``ImportWarning/Kind/index``.
    private var counts = [Int](repeating: 0, count: ImportWarning.Kind.allCases.count)
    /// Kinds whose count is a lower bound.
    private var inexact = [Bool](repeating: false, count: ImportWarning.Kind.allCases.count)
    /// Kinds in the order their first uncounted-in-full warning came.
    private var overflowed: [ImportWarning.Kind] = []
    /// How many times ``add(_:at:_:)`` and ``markInexact(_:)`` were
    /// called: whether a step warned, without comparing warnings.
    private(set) var changes = 0

    /// Adds a warning: kept whole while fewer than ``limit`` are, else
    /// counted. `location` and `message` are evaluated only when kept.
    mutating func add(
        _ kind: ImportWarning.Kind, at location: @autoclosure () -> SourceLocation?,
        _ message: @autoclosure () -> String
    ) {
        changes += 1
        if shown.count < Self.limit {
            shown.append(ImportWarning(kind: kind, location: location(), message: message()))
            return
        }
        if counts[kind.index] == 0 && !inexact[kind.index] { overflowed.append(kind) }
        counts[kind.index] += 1
    }

    /// Says that warnings of `kind` may have gone uncounted, so that the
    /// summary says "at least".
    mutating func markInexact(_ kind: ImportWarning.Kind) {
        guard !inexact[kind.index] else { return }
        changes += 1
        if counts[kind.index] == 0 { overflowed.append(kind) }
        inexact[kind.index] = true
    }

    /// The kept warnings and one summary per kind for the rest.
    ///
    /// - Parameter describe: The summary line of a kind, given the count
    ///   as it should read: `399,980`, or `at least 4,076`.
    func finish(
        describe: (ImportWarning.Kind, _ count: String, _ plural: Bool) -> String
    ) -> (shown: [ImportWarning], more: [ImportWarningSummary]) {
        let more = overflowed.map { kind in
            let count = counts[kind.index]
            let exact = !inexact[kind.index]
            let text = (exact ? "" : "at least ") + count.groupedDigits
            return ImportWarningSummary(
                kind: kind, count: count, isExact: exact, message: describe(kind, text, count != 1 || !exact))
        }
        return (shown, more)
    }
}
