/// A plain-text table with columns padded to their widest cell.
struct Table {
    var header: [String]
    var rows: [[String]]
    /// Indexes of columns aligned to the right (numbers).
    var rightAligned: Set<Int> = []

    var lines: [String] {
        let widths = Self.widths(header: header, rows: rows)
        return ([header] + rows).map { Self.line($0, widths: widths, rightAligned: rightAligned) }
    }

    /// The width of each column: its widest cell, the header's included.
    static func widths(header: [String], rows: [[String]]) -> [Int] {
        header.indices.map { column in
            max(visibleWidth(header[column]), rows.map { visibleWidth($0[column]) }.max() ?? 0)
        }
    }

    /// One line of cells padded to `widths` (a cell wider than its column
    /// pushes the rest of its line to the right), without trailing spaces.
    static func line(_ cells: [String], widths: [Int], rightAligned: Set<Int>) -> String {
        cells.indices.map { column in
            let padding = String(repeating: " ", count: max(0, widths[column] - visibleWidth(cells[column])))
            return rightAligned.contains(column) ? padding + cells[column] : cells[column] + padding
        }
        .joined(separator: "  ")
        .trimmingTrailingSpaces()
    }

    /// Characters that take a cell on screen: ANSI escape sequences take none.
    static func visibleWidth(_ text: String) -> Int {
        // Printable ASCII, the common case: one cell per byte.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        var width = 0
        var inEscape = false
        for scalar in text.unicodeScalars {
            if inEscape {
                if scalar == "m" { inEscape = false }
            } else if scalar == "\u{1B}" {
                inEscape = true
            } else if scalar.properties.generalCategory != .nonspacingMark {
                width += 1
            }
        }
        return width
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
