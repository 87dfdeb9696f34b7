import Foundation

/// How long ago a date was, in whole UTC days, as `show` and the report
/// say it: `today`, `yesterday`, `12 days ago`, `2 years ago`, `in the
/// future`.
///
/// Days are counted between UTC midnights by arithmetic, not with
/// `Calendar`: a calendar costs `show` two million instructions at start,
/// for an answer that UTC's fixed 86,400-second days give exactly.
public enum RelativeDate {
    /// - Parameters:
    ///   - date: The moment described.
    ///   - now: The moment counted from.
    /// - Returns: The words, such as `3 days ago`.
    public static func words(for date: Date, now: Date) -> String {
        let days =
            Int((now.timeIntervalSince1970 / 86_400).rounded(.down))
            - Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        switch days {
        case ..<0: return "in the future"
        case 0: return "today"
        case 1: return "yesterday"
        case 2..<365: return "\(days) days ago"
        default: return "\(days / 365) year\(days / 365 == 1 ? "" : "s") ago"
        }
    }
}
