/// A plain-text table with columns padded to their widest cell, measured
/// in terminal cells (``TerminalText/displayWidth(_:)``): wide characters
/// take two, combining marks none, colour escapes none.
///
/// Cells are printed as given: callers escape text from the catalog
/// (``TerminalText/escaped(_:)``) before it becomes a cell, so that a
/// newline or an escape sequence in a name cannot break the table.
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
            Self.pad(cells[column], toWidth: widths[column], right: rightAligned.contains(column))
        }
        .joined(separator: "  ")
        .trimmingTrailingSpaces()
    }

    /// ``line(_:widths:rightAligned:)`` and a newline, appended to `text`
    /// without a padded string per cell: `list` writes a million lines.
    static func appendLine(_ cells: [String], widths: [Int], rightAligned: Set<Int>, to text: inout String) {
        // Spaces wait until a cell follows them, so none trail the line.
        var spaces = 0
        for column in cells.indices {
            let cell = cells[column]
            let padding = max(0, widths[column] - visibleWidth(cell))
            let right = rightAligned.contains(column)
            if column > 0 { spaces += 2 }
            if right { spaces += padding }
            if !cell.isEmpty {
                if spaces > 0 { text += String(repeating: " ", count: spaces) }
                spaces = 0
                text += cell
            }
            if !right { spaces += padding }
        }
        text += "\n"
    }

    /// `cell` padded with spaces to `width` terminal cells: on the left
    /// when `right` (numbers), else on the right. A cell already as wide
    /// or wider is returned as it is.
    ///
    /// ```swift
    /// Table.pad("蝶", toWidth: 4, right: false)  // "蝶  "
    /// Table.pad("42", toWidth: 4, right: true)   // "  42"
    /// ```
    static func pad(_ cell: String, toWidth width: Int, right: Bool) -> String {
        let padding = String(repeating: " ", count: max(0, width - visibleWidth(cell)))
        return right ? padding + cell : cell + padding
    }

    /// Cells `text` takes on screen (``TerminalText/displayWidth(_:)``).
    static func visibleWidth(_ text: String) -> Int {
        // Printable ASCII, the common case (a million rows): one cell a byte.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return TerminalText.displayWidth(text)
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
