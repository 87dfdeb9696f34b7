import Crypto
import Foundation

extension Data {
    /// Lower-case hexadecimal SHA-256 of the bytes: the name of an external
    /// photo file and the `photoSHA256` column of the export.
    var sha256Hex: String {
        SHA256.hash(data: self).hexString
    }
}

extension Sequence where Element == UInt8 {
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        for byte in self {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
