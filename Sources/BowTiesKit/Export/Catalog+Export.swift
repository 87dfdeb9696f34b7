import CSV
import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#endif

/// Where an export goes.
public enum ExportDestination: Sendable {
    case standardOutput
    /// A file, written atomically: it appears whole or not at all.
    case file(URL)
}

extension Catalog {
    /// The CSV header: one column per attribute in declaration order; the
    /// photo becomes its size and SHA-256.
    public static var csvColumns: [String] {
        BowTieModel.entity.attributes.flatMap { attribute -> [String] in
            attribute.type == .binaryData ? ["photoBytes", "photoSHA256"] : [attribute.name]
        }
    }

    /// Writes the catalog as CSV (RFC 4180: UTF-8, CRLF line ends, a header
    /// row, one row per tie), streamed row by row from one consistent
    /// snapshot.
    ///
    /// Cells: `lastWorn` in ISO 8601 UTC, `isFavorite` as `true`/`false`,
    /// `tintColor` as `#RRGGBB`, empty for missing values.
    /// - Returns: The number of ties written.
    /// - Throws: ``CatalogError`` `.cannotCreateOutput` when the file
    ///   cannot be written (nothing is left behind).
    @discardableResult
    public func exportCSV(to destination: ExportDestination) throws -> Int {
        let file: AtomicFile?
        let sink: ([UInt8]) throws -> Void
        switch destination {
        case .standardOutput:
            file = nil
            sink = { try writeToStandardOutput($0) }
        case .file(let url):
            let atomic = try AtomicFile(destination: url)
            file = atomic
            sink = { try atomic.write($0) }
        }
        let stream = ByteSinkOutputStream(sink: sink)
        let writer = try CSVWriter(stream: stream, newline: .crlf)
        let count = try read { db in
            try writer.write(row: Self.csvColumns)
            var count = 0
            let rows = try Row.fetchCursor(db, sql: BowTie.selection + " ORDER BY bowtie.rowid")
            while let row = try rows.next() {
                let tie = try BowTie(row: row, transformers: transformers)
                try writer.write(row: Self.csvCells(tie))
                count += 1
                if stream.sinkError != nil { break }
            }
            return count
        }
        _ = stream.write(Array("\r\n".utf8), maxLength: 2)
        stream.close()
        try stream.flush()
        try file?.commit()
        return count
    }

    static func csvCells(_ tie: BowTie) -> [String] {
        BowTieModel.entity.attributes.flatMap { attribute -> [String] in
            let value = tie.value(forAttribute: attribute.name)
            switch value {
            case nil:
                return attribute.type == .binaryData ? ["", ""] : [""]
            case .string(let text)?: return [text]
            case .date(let date)?: return [ISO8601.string(from: date)]
            case .binary(let count)?: return [String(count), tie.photo?.sha256 ?? ""]
            case let value?: return [value.displayText]
            }
        }
    }
}

private func writeToStandardOutput(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return }
        var offset = 0
        while offset < raw.count {
            let written = Glibc.write(1, base + offset, raw.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw CatalogError(
                    .cannotCreateOutput, "cannot write to standard output: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }
}
