import ArgumentParser
import BowTiesKit
import Foundation

/// The table of `bowties list`, streamed: one line per tie as it is read,
/// so that memory stays flat however large the catalog.
///
/// Column widths come first (``Widths``). From the first ``firstPage``
/// ties on a terminal or into a pipe, so that the first line appears at
/// once (a later, wider cell pushes the rest of its line to the right).
/// Into a file, from one pass over every selected tie before the table
/// (``measuredWidths()``): the widths are the display widths of the cells
/// the table will write, so every line of the file lines up, a wide name
/// on the millionth line included. The pass reads the measured columns
/// only, unsorted, and makes no `String` of plain ASCII text; at a
/// million ties it still takes about 0.6 s, too long to wait for
/// `bowties list | head -1`.
struct BowTieTable {
    /// How the columns are sized: `list --widths`.
    enum Widths: String, CaseIterable, Sendable {
        /// From every tie listed, read once before the table.
        case all
        /// From the first ``BowTieTable/firstPage`` ties.
        case page

        /// `all` into a regular file, `page` on a terminal or into a pipe
        /// (where the reader wants the first line now).
        static func automatic(standardOutput descriptor: Int32) -> Widths {
            Terminal.isRegularFile(descriptor) ? .all : .page
        }

        /// The `--widths` option's help, one text for `list` and `export`.
        /// - Parameter table: What the command calls its table.
        static func help(table: String) -> ArgumentHelp {
            ArgumentHelp(
                """
                How \(table) sizes its columns: all (from every tie, read once first: every \
                line lines up) or page (from the first 100: the first line comes at once). \
                Default: all when writing into a file, page on a terminal or into a pipe.
                """, valueName: "all|page")
        }
    }

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
    var reverse: Bool

    /// The fields the table shows, by export name, in column order.
    static let fields = ["searchKey", "name", "rating", "timesWorn", "lastWorn", "isFavorite", "tintColor"]
    /// The fields ``measuredWidths()`` reads: those of the columns that
    /// can grow.
    static let measuredFields = ["searchKey", "name", "rating", "timesWorn", "lastWorn"]

    /// Where a row of ``fields`` holds each one: found by name once per
    /// statement (``FieldRow/field(_:)``), then read on every row.
    struct Columns {
        var key, name, rating, timesWorn, lastWorn: FieldRow.Field
        /// Nil in the measuring pass, which does not read them.
        var isFavorite, tintColor: FieldRow.Field?

        init(_ row: FieldRow, measuring: Bool = false) throws {
            key = try row.field("searchKey")
            name = try row.field("name")
            rating = try row.field("rating")
            timesWorn = try row.field("timesWorn")
            lastWorn = try row.field("lastWorn")
            if !measuring {
                isFavorite = try row.field("isFavorite")
                tintColor = try row.field("tintColor")
            }
        }
    }

    /// A row's cells.
    static func cells(_ row: FieldRow, _ columns: Columns) throws -> [String] {
        [
            // Text from the catalog, escaped: a newline or an escape
            // sequence in a name cannot break the table or the terminal.
            row.text(columns.key).map(TerminalText.escaped) ?? "-",
            row.text(columns.name).map(TerminalText.escaped) ?? "",
            Output.number(row.number(columns.rating) ?? 0),
            Output.grouped(Int(row.integer(columns.timesWorn) ?? 0)),
            row.date(columns.lastWorn).map { String(ISO8601.string(from: $0).prefix(10)) } ?? "never",
            columns.isFavorite.flatMap(row.flag) == true ? "*" : "",
            try columns.tintColor.flatMap(row.value).map { value in
                guard case .color(let color) = value else { return "" }
                let swatch = Output.swatch(color)
                return swatch.isEmpty ? color.hexString : swatch + " " + color.hexString
            } ?? "",
        ]
    }

    /// The width of each column over every selected tie: the display
    /// width (``Table/visibleWidth(_:)``) of the cells ``cells(_:)``
    /// would make, the header's included. Nil when none is selected.
    ///
    /// Computed without making the cells: a key or name of printable
    /// ASCII is as wide as its bytes (other text is escaped and measured
    /// as the cell will be); numbers by their digits; a date is 10 wide
    /// and `never` 5. The favourite mark and the colour are never wider
    /// than their headers (the colour is the last column: it is not padded).
    func measuredWidths() throws -> [Int]? {
        var widths = Self.header.map(Table.visibleWidth)
        var count = 0
        var fewestWorn = Int64.max
        var mostWorn = Int64.min
        try catalog.forEachRow(
            of: Self.measuredFields, matching: selection, reverse: reverse, ordered: false,
            resolving: { try Columns($0, measuring: true) },
            each: { row, columns in
                count += 1
                widths[0] = max(widths[0], row.withUTF8(columns.key) { $0.map(Self.textWidth) ?? 1 })
                widths[1] = max(widths[1], row.withUTF8(columns.name) { $0.map(Self.textWidth) ?? 0 })
                widths[2] = max(widths[2], Self.numberWidth(row.number(columns.rating) ?? 0))
                let worn = row.integer(columns.timesWorn) ?? 0
                fewestWorn = min(fewestWorn, worn)
                mostWorn = max(mostWorn, worn)
                widths[4] = max(widths[4], row.number(columns.lastWorn) == nil ? 5 : 10)
            })
        guard count > 0 else { return nil }
        widths[3] = max(
            widths[3], Output.grouped(Int(fewestWorn)).utf8.count, Output.grouped(Int(mostWorn)).utf8.count)
        return widths
    }

    /// Cells a key or name takes once escaped, from its UTF-8 bytes.
    static func textWidth(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        // Printable ASCII, nearly every name: one cell a byte.
        if utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return utf8.count }
        return Table.visibleWidth(TerminalText.escaped(String(decoding: utf8, as: UTF8.self)))
    }

    /// The length of ``Output/number(_:)``'s text for `value` (`4`, `3.5`,
    /// `-0.25`), from its digits, without formatting it.
    static func numberWidth(_ value: Double) -> Int {
        // Beyond what twoDecimalText writes: the text itself (rare).
        guard value.isFinite, abs(value) < 1e15 else { return Output.number(value).utf8.count }
        let cents = Int64((value * 100).rounded())
        let whole = (cents / 100).magnitude
        var digits = 1
        var rest = whole / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        let sign = cents < 0 ? 1 : 0
        if cents % 100 == 0 { return sign + digits }
        return sign + digits + (cents % 10 == 0 ? 2 : 3)
    }

    /// Writes the header and every selected tie to `output`, but nothing
    /// when no tie is selected.
    /// - Parameter widths: How to size the columns.
    /// - Returns: What was written.
    /// - Throws: ``CatalogError`` (`.outputClosed` when the reader went away).
    func write(to output: ExportOutput, widths: Widths) throws -> Counts {
        let measured = widths == .all ? try measuredWidths() : nil
        if widths == .all, measured == nil { return Counts() }
        var writer = Writer(output: output, widths: measured)
        try catalog.forEachRow(
            of: Self.fields, matching: selection, reverse: reverse, resolving: { try Columns($0) },
            each: { row, columns in try writer.add(row, columns) })
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

        mutating func add(_ row: FieldRow, _ columns: Columns) throws {
            counts.ties += 1
            if columns.isFavorite.flatMap(row.flag) == true { counts.favourites += 1 }
            let cells = try BowTieTable.cells(row, columns)
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
            Table.appendLine(cells, widths: widths, rightAligned: BowTieTable.rightAligned, to: &text)
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
