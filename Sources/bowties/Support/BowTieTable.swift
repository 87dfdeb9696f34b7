import BowTiesKit
import Foundation

/// The table of `bowties list`, streamed: one line per tie as it is read,
/// so that the first lines appear at once and memory stays flat however
/// large the catalog.
///
/// Column widths come first: on a terminal from the first
/// ``firstPage`` ties (a later, wider cell pushes its line to the
/// right); elsewhere from one query over every selected tie
/// (``Catalog/textLengths(of:matching:)``), which SQLite answers without
/// building a row.
struct BowTieTable {
    static let header = ["KEY", "NAME", "RATING", "WORN", "LAST WORN", "FAV", "COLOUR"]
    static let rightAligned: Set<Int> = [2, 3]
    /// The ties a terminal's widths are measured on.
    static let firstPage = 100

    /// What was written: the number of ties and of favourites among them.
    struct Counts {
        var ties = 0
        var favourites = 0
    }

    var catalog: Catalog
    var selection: Query
    var order: BowTieOrder
    var reverse: Bool

    /// A tie's cells.
    static func cells(_ tie: BowTie) -> [String] {
        [
            tie.searchKey ?? "-",
            tie.name ?? "",
            Output.number(tie.rating),
            String(tie.timesWorn),
            tie.lastWorn.map { String(Output.date($0).prefix(10)) } ?? "never",
            tie.isFavorite ? "*" : "",
            tie.tintColor.map { color in
                let swatch = Output.swatch(color)
                return swatch.isEmpty ? color.hexString : swatch + " " + color.hexString
            } ?? "",
        ]
    }

    /// Widths for every selected tie, from SQLite's longest text of each
    /// column's attribute (never narrower than the cells: a rating of 4
    /// is `4.0` to SQLite, `4` in the table). Nil when none is selected.
    func measuredWidths() throws -> [Int]? {
        let (count, lengths) = try catalog.textLengths(
            of: ["searchKey", "name", "rating", "timesWorn", "lastWorn"], matching: selection)
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
        try catalog.forEachBowTie(matching: selection, order: order, reverse: reverse) { tie in
            try writer.add(tie)
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

        mutating func add(_ tie: BowTie) throws {
            counts.ties += 1
            if tie.isFavorite { counts.favourites += 1 }
            let cells = BowTieTable.cells(tie)
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
