/// How far apart two words are, for "did you mean …?" suggestions.
///
/// ```swift
/// EditDistance.between("lsit", "list")                           // 1: a transposition
/// EditDistance.between("fabric", "rating", atMost: 2)            // 3: more than 2
/// EditDistance.suggestion(for: "Rating", among: ["rating", "name"])  // "rating"
/// ```
public enum EditDistance {
    /// The optimal-string-alignment (restricted Damerau–Levenshtein)
    /// distance: insertions, deletions, substitutions and swaps of two
    /// neighbouring characters each cost 1. Compares characters exactly.
    ///
    /// - Parameter limit: The largest distance the caller cares about (a
    ///   suggestion's bound): past it the answer is `limit + 1`, found
    ///   without filling the rest of the table, so that a long word costs
    ///   little more than reading it.
    public static func between(_ a: String, _ b: String, atMost limit: Int = .max) -> Int {
        let a = Array(a)
        let b = Array(b)
        let beyond = limit == .max ? limit : limit + 1
        if abs(a.count - b.count) > limit { return beyond }
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        // Three rows: the one before the previous one is needed for swaps.
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, before[j - 2] + 1)
                }
                current[j] = best
            }
            // A row's smallest value never falls in the rows below it.
            if (current.min() ?? 0) > limit { return beyond }
            (before, previous, current) = (previous, current, before)
        }
        return min(previous[b.count], beyond)
    }

    /// The candidate closest to `word`, ignoring case, when it is close
    /// enough to be a slip: at most 1 edit for words up to 4 characters,
    /// 2 up to 8, else 3. Nil when none is, or when `word` is a candidate.
    /// On a tie the earlier candidate wins.
    public static func suggestion(for word: String, among candidates: some Sequence<String>) -> String? {
        let lowered = word.lowercased()
        let limit = word.count <= 4 ? 1 : word.count <= 8 ? 2 : 3
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            if candidate == word { return nil }
            let distance = between(lowered, candidate.lowercased(), atMost: limit)
            if distance <= limit, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }
}
