internal import CZlib
import Foundation

/// Raw DEFLATE (RFC 1951, no zlib or gzip header), as Core Data writes
/// `Z_MODELCACHE`, inflated with zlib.
enum Inflate {
    /// Output larger than this is refused: a model of a thousand entities
    /// archives to a few megabytes, and a hostile blob of a few kilobytes
    /// could otherwise inflate to gigabytes.
    static let maximumOutput = 64 << 20

    /// Inflates `data`.
    /// - Returns: The inflated bytes, or `nil` when `data` is not complete,
    ///   valid raw DEFLATE or inflates past ``maximumOutput``.
    static func raw(_ data: Data) -> Data? {
        var stream = z_stream()
        guard CZlib_inflateInitRaw(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var input = [UInt8](data)
        let status: Int32 = input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputBuffer.count)
            while true {
                let code = chunk.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                output.append(contentsOf: chunk[0..<produced])
                if output.count > maximumOutput { return Z_MEM_ERROR }
                if code == Z_STREAM_END { return Z_STREAM_END }
                // Z_BUF_ERROR with no input left: the stream is truncated.
                if code != Z_OK || (produced == 0 && stream.avail_in == 0) { return code == Z_OK ? Z_BUF_ERROR : code }
            }
        }
        return status == Z_STREAM_END ? output : nil
    }
}
