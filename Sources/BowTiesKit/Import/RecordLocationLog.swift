import Foundation
import PropertyList

/// Where each record of a bulk load starts in its file, on disk rather
/// than in memory, read back only when the load fails.
///
/// A bulk load finds a repeated id only when it builds the id's index,
/// after the records (``BulkKeyLoad``); the error must still name the
/// record as the import always has, `file:line:column: record N (…), id:`.
/// The record number is its row's rowid (a bulk load adds every record in
/// order, into an empty table, or stops), its key and name are in the row,
/// and its place in the file is here: 16 bytes a record (line and column,
/// as ``SourceLocation`` keeps them), appended to an unlinked temporary
/// file through a 64 KiB buffer, so memory stays flat at any size. A
/// stream from standard input cannot be read a second time, which is why
/// the places are kept rather than found again.
///
/// Not `Sendable`: it belongs to one import.
final class RecordLocationLog {
    private var file: UnsafeMutablePointer<FILE>?
    private var buffer: [Int64] = []
    private static let bufferCount = 8192
    /// Records logged so far.
    private(set) var count = 0
    /// The file every location names (one import reads one file).
    private var fileName: SourceLocation.FileName?
    /// True once a record came without a location, or the file failed:
    /// locations are then not given rather than given wrong.
    private var isIncomplete = false

    init() {
        buffer.reserveCapacity(Self.bufferCount)
    }

    deinit {
        if let file { fclose(file) }
    }

    /// Notes where the next record (number ``count`` + 1) starts.
    func append(_ location: SourceLocation?) {
        count += 1
        guard !isIncomplete else { return }
        guard let location, fileName == nil || fileName == location.fileName else {
            isIncomplete = true
            return
        }
        fileName = location.fileName
        buffer.append(Int64(location.line))
        buffer.append(Int64(location.column))
        if buffer.count >= Self.bufferCount { flush() }
    }

    /// Where record `number` (1-based) starts; nil when it was not logged.
    func location(ofRecord number: Int) -> SourceLocation? {
        guard !isIncomplete, let fileName, number >= 1, number <= count else { return nil }
        flush()
        guard let file, !isIncomplete else { return nil }
        var pair: (Int64, Int64) = (0, 0)
        let read = withUnsafeMutableBytes(of: &pair) { bytes -> Int in
            guard fseeko(file, off_t(number - 1) * 16, SEEK_SET) == 0 else { return 0 }
            return fread(bytes.baseAddress, 16, 1, file)
        }
        fseeko(file, 0, SEEK_END)
        guard read == 1 else { return nil }
        return SourceLocation(fileName: fileName, line: Int(pair.0), column: Int(pair.1))
    }

    private func flush() {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        if file == nil { file = tmpfile() }
        let written = buffer.withUnsafeBytes { bytes in
            file.map { fwrite(bytes.baseAddress, bytes.count, 1, $0) } ?? 0
        }
        if written != 1 { isIncomplete = true }
    }
}
