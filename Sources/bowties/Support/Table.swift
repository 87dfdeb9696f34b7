/// A plain-text table with columns padded to their widest cell.
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
                let padding = String(repeating: " ", count: widths[column] - Self.visibleWidth(row[column]))
                return rightAligned.contains(column) ? padding + row[column] : row[column] + padding
            }
            .joined(separator: "  ")
            .trimmingTrailingSpaces()
        }
    }

    /// Characters that take a cell on screen: ANSI escape sequences take none.
    static func visibleWidth(_ text: String) -> Int {
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
