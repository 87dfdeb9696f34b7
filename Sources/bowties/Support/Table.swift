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
        let all = [header] + rows
        let widths = header.indices.map { column in
            all.map { Self.visibleWidth($0[column]) }.max() ?? 0
        }
        return all.map { row in
            row.indices.map { column in
                Self.pad(row[column], toWidth: widths[column], right: rightAligned.contains(column))
            }
            .joined(separator: "  ")
            .trimmingTrailingSpaces()
        }
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
        TerminalText.displayWidth(text)
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
