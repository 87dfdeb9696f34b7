// libFuzzer target: CSVReader (CSV and TSV) on arbitrary bytes, then the
// importer's reading of its rows as records (a header naming the columns)
// and their decoding.
//
// For each input and each dialect it checks that:
// - reading never crashes; every error is a PropertyListError named after
//   the document and located inside it (line 1 to the last, column 1 or
//   more); after an error, nextRow() returns nil;
// - every field is located inside the document, and no row has more than
//   CSVReader.maximumFields fields;
// - the file path and the descriptor path with a prefix (as `import -`
//   streams standard input) agree, fields, locations and errors;
// - the rows, written back (CSV quoted where needed, TSV escaped), read
//   again to the same fields;
// and then that decoding the rows as `bowties import` does
// (RecordDecoding) throws only a located ImportError naming its record,
// or a located PropertyListError.
@_spi(Fuzzing) import BowTiesKit
import Foundation
import FuzzSupport
import PropertyList

enum Outcome {
    case rows([[CSVReader.Field]])
    case failure(PropertyListError)
}

let scratch = ScratchFile(tag: "csv")
let rewritten = ScratchFile(tag: "csv-rewritten")

func readAll(_ reader: CSVReader, lines: Int) -> Outcome {
    var rows: [[CSVReader.Field]] = []
    do {
        while let row = try reader.nextRow() {
            if row.isEmpty || row.count > CSVReader.maximumFields { fatalError("a row of \(row.count) fields") }
            for field in row { TextInvariants.check(field.location, lines: lines, "a field") }
            rows.append(row)
        }
        if try reader.nextRow() != nil { fatalError("a row after nil") }
        return .rows(rows)
    } catch {
        TextInvariants.check(error, lines: lines)
        do {
            if try reader.nextRow() != nil { fatalError("a row after an error") }
        } catch {
            fatalError("nextRow() threw again after an error: \(error)")
        }
        return .failure(error)
    }
}

func open(_ file: ScratchFile, dialect: CSVReader.Dialect) -> CSVReader {
    do {
        return try CSVReader(contentsOf: file.url, displayName: Invariants.displayName, dialect: dialect)
    } catch {
        fatalError("cannot open the scratch file: \(error)")
    }
}

/// The rows as the writer of `dialect` would write them, after a UTF-8
/// byte-order mark (which the reader skips: a first field that starts
/// with U+FEFF keeps it).
func written(_ rows: [[CSVReader.Field]], dialect: CSVReader.Dialect) -> String {
    var text = "\u{FEFF}"
    for row in rows {
        let cells = row.map { field -> String in
            switch dialect {
            case .tsv:
                var cell = ""
                for character in field.text.unicodeScalars {
                    switch character {
                    case "\t": cell += "\\t"
                    case "\n": cell += "\\n"
                    case "\r": cell += "\\r"
                    case "\\": cell += "\\\\"
                    default: cell.unicodeScalars.append(character)
                    }
                }
                return cell
            case .csv:
                // A row of one empty field would be a blank line, which
                // the reader skips: quoted, it stays a row.
                let quote =
                    row.count == 1 && field.text.isEmpty
                    || field.text.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
                return quote ? "\"" + field.text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field.text
            }
        }
        text += cells.joined(separator: dialect == .tsv ? "\t" : ",") + (dialect == .tsv ? "\n" : "\r\n")
    }
    return text
}

func fuzz(_ bytes: [UInt8]) {
    guard scratch.write(bytes) else { return }
    let lines = TextInvariants.lineCount(bytes)
    for dialect in [CSVReader.Dialect.csv, .tsv] {
        let fromFile = readAll(open(scratch, dialect: dialect), lines: lines)

        let descriptor = scratch.openForReading()
        guard descriptor >= 0 else { return }
        let split = bytes.count / 2
        _ = lseek(descriptor, off_t(split), SEEK_SET)
        let streamed = readAll(
            CSVReader(
                descriptor: descriptor, displayName: Invariants.displayName, prefix: Array(bytes[..<split]),
                dialect: dialect),
            lines: lines)
        close(descriptor)

        switch (fromFile, streamed) {
        case (.rows(let a), .rows(let b)):
            if a != b { fatalError("the file and the stream read different rows") }
            let text = written(a, dialect: dialect)
            guard rewritten.write(Array(text.utf8)) else { return }
            switch readAll(open(rewritten, dialect: dialect), lines: TextInvariants.lineCount(Array(text.utf8))) {
            case .rows(let again):
                if again.map({ $0.map(\.text) }) != a.map({ $0.map(\.text) }) {
                    fatalError("the rows written back read differently:\n\(text.prefix(2000))")
                }
            case .failure(let error):
                fatalError("the rows written back do not read: \(error)\n\(text.prefix(2000))")
            }
        case (.failure(let a), .failure(let b)):
            if a.description != b.description { fatalError("the file and the stream failed differently: \(a) / \(b)") }
        default:
            fatalError("the file and the stream disagree: \(fromFile) / \(streamed)")
        }
    }

    for format in [ImportFormat.csv, .tsv] {
        for stopAtFirst in [false, true] {
            do {
                _ = try RecordDecoding.decodeAll(
                    contentsOf: scratch.url, format: format, displayName: Invariants.displayName,
                    stopAtFirstInvalidRecord: stopAtFirst)
            } catch let error as ImportError {
                guard let location = error.location else { fatalError("unlocated import error: \(error)") }
                TextInvariants.check(location, lines: lines, error.description)
                if error.recordNumber == nil || error.message.isEmpty {
                    fatalError("import error without a record or message: \(error)")
                }
            } catch let error as PropertyListError {
                TextInvariants.check(error, lines: lines)
            } catch {
                fatalError("decoding threw \(type(of: error)): \(error)")
            }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzz(bytes.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
    return 0
}
