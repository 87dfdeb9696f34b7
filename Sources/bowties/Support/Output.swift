import BowTiesKit
import Foundation

/// Human-readable and JSON renderings of bow ties.
enum Output {
    /// Prints a line to standard output.
    static func line(_ text: String = "") {
        Terminal.standardOutput.write(text + "\n")
    }

    /// Prints a warning to standard error.
    static func warning(_ text: String) {
        Terminal.standardError.write("bowties: warning: \(text)\n")
    }

    /// Prints `value` as pretty JSON with sorted keys.
    static func json<Value: Encodable>(_ value: Value) throws {
        line(String(decoding: try jsonData(value), as: UTF8.self))
    }

    /// `value` as pretty JSON with sorted keys.
    static func jsonData<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// `3.5`, `4`, `4.75`, `3.33` (for 3.333…): a rating for people, with
    /// at most two decimals. `--json` and `export` keep the exact value.
    static func number(_ value: Double) -> String {
        AttributeValue.twoDecimalText(value) ?? AttributeValue.double(value).displayText
    }

    /// The rating's scale in words, from the declaration
    /// (``BowTieModel/ratingScale``): `0 to 5`.
    static let ratingScale =
        "\(number(BowTieModel.ratingScale.lowerBound)) to \(number(BowTieModel.ratingScale.upperBound))"

    /// The rating's scale as a range: `0...5`.
    static let ratingRange =
        "\(number(BowTieModel.ratingScale.lowerBound))...\(number(BowTieModel.ratingScale.upperBound))"

    /// A rating on its scale: `3.5/5`.
    static func rating(_ value: Double) -> String {
        "\(number(value))/\(number(BowTieModel.ratingScale.upperBound))"
    }

    /// `2014-06-19 18:15:24 UTC`.
    static func date(_ date: Date) -> String {
        let iso = ISO8601.string(from: date)  // 2014-06-19T18:15:24Z
        // Interpolated, not `+` on substrings: that generic entry point's
        // first call looks its associated types up by name (0.3 M
        // instructions; bench/README.md, "Point commands, session 11").
        return "\(iso.prefix(10)) \(iso.dropFirst(11).prefix(8)) UTC"
    }

    /// `today`, `yesterday`, `12 days ago`, `in the future`.
    static func relative(_ date: Date, now: Date = Date()) -> String {
        RelativeDate.words(for: date, now: now)
    }

    /// `1 bow tie`, `7 bow ties`, `2 entries` (with `plural`).
    static func count(_ value: Int, _ singular: String, plural: String? = nil) -> String {
        "\(grouped(value)) \(value == 1 ? singular : plural ?? singular + "s")"
    }

    /// `text` with control characters and bidirectional controls shown
    /// as escapes (`\n`, `\e`, `\u{202E}`), so that a value cannot break a
    /// line, a table or the terminal (``TerminalText/escaped(_:)``).
    static func escaped(_ text: String) -> String {
        TerminalText.escaped(text)
    }

    /// `16,698`.
    static func grouped(_ value: Int) -> String {
        value.groupedDigits
    }

    /// Two cells of the colour when colour output is on, else nothing:
    /// 24-bit where the terminal says it can, else the nearest of the
    /// 256-colour palette (``Terminal/colorDepth``).
    static func swatch(_ color: Color?, depth: Terminal.ColorDepth = Terminal.colorDepth) -> String {
        guard let color else { return "" }
        let (r, g, b) = color.rgb8
        switch depth {
        case .none: return ""
        case .trueColor: return "\u{1B}[48;2;\(r);\(g);\(b)m  \u{1B}[0m"
        case .palette256: return "\u{1B}[48;5;\(palette256(red: r, green: g, blue: b))m  \u{1B}[0m"
        }
    }

    /// The xterm 256-colour index nearest to a colour: the 6×6×6 cube
    /// (16–231, levels 0, 95, 135, 175, 215, 255) or the grey ramp
    /// (232–255, 8 to 238 by 10), whichever is closer.
    static func palette256(red: Int, green: Int, blue: Int) -> Int {
        let levels = [0, 95, 135, 175, 215, 255]
        func cube(_ value: Int) -> Int {
            levels.indices.min { abs(levels[$0] - value) < abs(levels[$1] - value) } ?? 0
        }
        let (r, g, b) = (cube(red), cube(green), cube(blue))
        let cubeDistance = [(levels[r], red), (levels[g], green), (levels[b], blue)]
            .reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }
        let average = (red + green + blue) / 3
        let grey = min(23, max(0, (average - 3) / 10))
        let greyLevel = 8 + 10 * grey
        let greyDistance = [red, green, blue].reduce(0) { $0 + (greyLevel - $1) * (greyLevel - $1) }
        return greyDistance < cubeDistance ? 232 + grey : 16 + 36 * r + 6 * g + b
    }

    /// `Classic Red Bow Tie (R)`, escaped for the terminal (``escaped(_:)``).
    static func title(_ tie: BowTie) -> String {
        let name = escaped(tie.name ?? tie.id.uuidString)
        return tie.searchKey.map { "\(name) (\(escaped($0)))" } ?? name
    }
}

/// The JSON form of a bow tie (`--json`): the record's JSON
/// (``RecordJSON``, from the declaration), with the photo's file and,
/// when it was read, its type and problem.
struct BowTieJSON: Encodable {
    var json: RecordJSON

    /// A tie as the catalog records it, without reading its photo (`list`,
    /// `export`: no `photo.type`, no `photoProblem`).
    init(_ tie: BowTie, catalog: Catalog) {
        var blobs: [String: BlobJSON] = [:]
        for attribute in tie.record.entity.attributes {
            guard case .blob(let info)? = tie.record[attribute.name] else { continue }
            blobs[attribute.name] = BlobJSON(
                bytes: info.byteCount, sha256: info.sha256, storage: info.storage.rawValue,
                file: catalog.photoFileURL(for: tie)?.path)
        }
        json = RecordJSON(tie.record, blobs: blobs)
    }

    /// A tie whose photo was read back (`show`, `photo`): with the photo's
    /// type, and `photoProblem`: what is wrong with the photo, in the words
    /// of `show`'s photo line, null when it is intact or there is none.
    ///
    /// - Parameter checked: The photo as read; nil when the tie has none.
    init(_ tie: BowTie, catalog: Catalog, checked: CheckedPhoto?) {
        self.init(tie, catalog: catalog)
        for name in json.blobs.keys { json.blobs[name]?.type = checked?.type }
        json.extra["photoProblem"] = ExplicitNull(checked?.problem?.description)
    }

    func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}
