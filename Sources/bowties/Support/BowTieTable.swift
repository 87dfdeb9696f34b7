import BowTiesKit
import Foundation

/// The table of `bowties list`, streamed: one line per tie as it is read,
/// so that the first lines appear at once and memory stays flat however
/// large the catalog.
///
/// Column widths come first: on a terminal from the first ``firstPage``
/// ties; elsewhere from one query over the first ``measuredTies`` ties
/// (``Catalog/textLengths(of:matching:order:reverse:limit:)``), which
/// SQLite answers without building a row. Beyond those, a wider cell
/// pushes the rest of its line to the right. Measuring every tie of a
/// million would read the whole table before the first line (0.6 s at
/// 1M), and `bowties list | head -1` must answer at once.
struct BowTieTable {
    static let header = ["KEY", "NAME", "RATING", "WORN", "LAST WORN", "FAV", "COLOUR"]
    static let rightAligned: Set<Int> = [2, 3]
    /// The ties a terminal's widths are measured on.
    static let firstPage = 100
    /// The ties a query measures widths on, for any other output.
    static let measuredTies = 10_000

    /// What was written: the number of ties and of favourites among them.
    struct Counts {
        var ties = 0
        var favourites = 0
    }

    var catalog: Catalog
    var selection: Query
    var order: BowTieOrder
    var reverse: Bool

    /// The fields the table shows, by export name, in column order.
    static let fields = ["searchKey", "name", "rating", "timesWorn", "lastWorn", "isFavorite", "tintColor"]

    /// A row's cells.
    static func cells(_ row: FieldRow) throws -> [String] {
        [
            // Text from the catalog, escaped: a newline or an escape
            // sequence in a name cannot break the table or the terminal.
            row.text(0).map(TerminalText.escaped) ?? "-",
            row.text(1).map(TerminalText.escaped) ?? "",
            Output.number(row.number(2) ?? 0),
            Output.grouped(Int(row.integer(3) ?? 0)),
            row.date(4).map { String(ISO8601.string(from: $0).prefix(10)) } ?? "never",
            row.flag(5) == true ? "*" : "",
            try row.value(6).map { value in
                guard case .color(let color) = value else { return "" }
                let swatch = Output.swatch(color)
                return swatch.isEmpty ? color.hexString : swatch + " " + color.hexString
            } ?? "",
        ]
    }

    /// Widths for the first ``measuredTies`` selected ties, from SQLite's
    /// longest text of each column's attribute (never narrower than the
    /// cells: a rating of 4 is `4.0` to SQLite, `4` in the table). Nil
    /// when none is selected.
    func measuredWidths() throws -> [Int]? {
        let (count, lengths) = try catalog.textLengths(
            of: Array(Self.fields.prefix(5)), matching: selection, order: order, reverse: reverse,
            limit: Self.measuredTies)
        guard count > 0 else { return nil }
        let header = Self.header.map(\.count)
        return [
            max(header[0], lengths[0]), max(header[1], lengths[1]), max(header[2], lengths[2]),
            max(header[3], lengths[3]), max(header[4], lengths[4] > 0 ? 10 : 5), header[5], header[6],
        ]
    }

    /// Writes the header and every selected tie to `output`, but nothing
    /// when no tie is selected.
    /// - Parameter terminal: Measure widths on the first page, not by a query.
    /// - Returns: What was written.
    /// - Throws: ``CatalogError`` (`.outputClosed` when the reader went away).
    func write(to output: ExportOutput, terminal: Bool) throws -> Counts {
        var writer = Writer(output: output, widths: terminal ? nil : try measuredWidths())
        if !terminal, writer.widths == nil { return Counts() }
        try catalog.forEachRow(of: Self.fields, matching: selection, order: order, reverse: reverse) { row in
            try writer.add(row)
        }
        try writer.finish()
        return writer.counts
    }

    /// Lines into a buffer handed to the output 64 KiB at a time; until
    /// widths are known, the first page waits in memory.
    private struct Writer {
        let output: ExportOutput
        var widths: [Int]?
        var pending: [[String]] = []
        var text = ""
        var counts = Counts()

        init(output: ExportOutput, widths: [Int]?) {
            self.output = output
            self.widths = widths
            if let widths { line(BowTieTable.header, widths) }
        }

        mutating func add(_ row: FieldRow) throws {
            counts.ties += 1
            if row.flag(5) == true { counts.favourites += 1 }
            let cells = try BowTieTable.cells(row)
            guard let widths else {
                pending.append(cells)
                if pending.count >= BowTieTable.firstPage { try measurePending() }
                return
            }
            line(cells, widths)
            if text.utf8.count >= 64 * 1024 {
                try output.write(text)
                text.removeAll(keepingCapacity: true)
            }
        }

        private mutating func line(_ cells: [String], _ widths: [Int]) {
            text += Table.line(cells, widths: widths, rightAligned: BowTieTable.rightAligned)
            text += "\n"
        }

        private mutating func measurePending() throws {
            let widths = Table.widths(header: BowTieTable.header, rows: pending)
            self.widths = widths
            line(BowTieTable.header, widths)
            for cells in pending { line(cells, widths) }
            pending = []
        }

        mutating func finish() throws {
            if widths == nil, !pending.isEmpty { try measurePending() }
            if !text.isEmpty { try output.write(text) }
            text = ""
        }
    }
}
