import BowTiesKit
import Foundation
import Synchronization

/// A one-line progress display on standard error for long imports:
/// records and bytes done, rate, time left.
///
/// Shown only when standard error is a terminal, only once the import has
/// run for ``delay`` seconds, redrawn at most five times a second, and
/// erased at the end, so short runs, scripts and logs never see it.
final class ProgressLine: Sendable {
    /// Quiet for this long: most imports finish before.
    static let delay: TimeInterval = 1.5

    private struct State {
        var start = Date()
        var lastDraw: Date?
        var drawn = false
    }

    private let label: String
    private let enabled: Bool
    private let state = Mutex(State())

    /// - Parameter label: What is being imported (the file's name).
    init(label: String, enabled: Bool = Terminal.isTerminal(2)) {
        self.label = label
        self.enabled = enabled
    }

    /// Redraws the line if it is time to.
    func update(_ progress: ImportProgress) {
        guard enabled, !progress.isFinished else { return }
        let now = Date()
        let line: String? = state.withLock { state in
            let elapsed = now.timeIntervalSince(state.start)
            guard elapsed >= Self.delay else { return nil }
            if let last = state.lastDraw, now.timeIntervalSince(last) < 0.2 { return nil }
            state.lastDraw = now
            state.drawn = true
            return Self.text(label: TerminalText.escaped(label), progress: progress, elapsed: elapsed)
        }
        if let line {
            // Carriage return and erase-line: the display stays on one line,
            // cut to the window's width (asked at each draw, so a resize is
            // followed) so that it never wraps onto a second.
            let fitted = Self.fitted(line, columns: Terminal.columns(of: 2))
            Terminal.standardError.write("\r\u{1B}[2K" + fitted)
        }
    }

    /// Erases the line, if one was drawn.
    func finish() {
        let drawn = state.withLock { state in
            defer { state.drawn = false }
            return state.drawn
        }
        if drawn { Terminal.standardError.write("\r\u{1B}[2K") }
    }

    /// `line` cut to fit in one row of `columns` cells, leaving the last
    /// one free (a terminal wraps when the last column is written), with
    /// `…` where it was cut. Unchanged when the width is unknown.
    static func fitted(_ line: String, columns: Int?) -> String {
        guard let columns, TerminalText.displayWidth(line) > columns - 1 else { return line }
        let room = columns - 2
        guard room > 0 else { return "" }
        var result = ""
        var width = 0
        for character in line {
            let cells = TerminalText.displayWidth(String(character))
            if width + cells > room { break }
            result.append(character)
            width += cells
        }
        return result + "…"
    }

    /// `Importing big.plist: 412,000 records, 280 MB of 674 MB (41%), 52,000 records/s, about 8 s left`
    static func text(label: String, progress: ImportProgress, elapsed: TimeInterval) -> String {
        let megabytes = { (bytes: Int) in Output.grouped(Int((Double(bytes) / 1_000_000).rounded())) + " MB" }
        var parts = ["\(Output.grouped(progress.records)) records"]
        var left: String?
        if let total = progress.totalBytes, total > 0 {
            let fraction = min(Double(progress.bytesRead) / Double(total), 1)
            parts.append("\(megabytes(progress.bytesRead)) of \(megabytes(total)) (\(Int(fraction * 100))%)")
            if fraction > 0.01 { left = "about \(duration(elapsed / fraction - elapsed)) left" }
        } else {
            parts.append(megabytes(progress.bytesRead))
        }
        if elapsed > 0 { parts.append("\(Output.grouped(Int(Double(progress.records) / elapsed))) records/s") }
        if let left { parts.append(left) }
        return "Importing \(label): " + parts.joined(separator: ", ")
    }

    static func duration(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds.rounded(.up))
        return whole < 90 ? "\(whole) s" : "\(whole / 60) min \(whole % 60) s"
    }
}
