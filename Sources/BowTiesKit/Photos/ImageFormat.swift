import Foundation

/// Recognises common image formats by their first bytes, to describe a
/// photo (`PNG image, 16,698 bytes`) and to name exported files.
public enum ImageFormat: String, Sendable {
    case png = "PNG"
    case jpeg = "JPEG"
    case gif = "GIF"
    case webp = "WebP"
    case heic = "HEIC"
    case unknown = "unknown"

    public init(data: Data) {
        let head = [UInt8](data.prefix(12))
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + bytes.count && Array(head[offset..<offset + bytes.count]) == bytes
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts(Array("GIF8".utf8)) {
            self = .gif
        } else if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(Array("ftyp".utf8), at: 4) {
            self = .heic
        } else {
            self = .unknown
        }
    }
}

extension ImageFormat {
    /// Why `data` cannot be a photo, or nil when it starts as an image
    /// of a format above does: `is empty`, `is not an image (it starts
    /// with "hello wor")`. A photo is what a report, an export and an
    /// image viewer can show; a text file or an empty one is none.
    public static func refusal(of data: Data) -> String? {
        if data.isEmpty { return "is empty, not an image" }
        guard ImageFormat(data: data) == .unknown else { return nil }
        return "is not an image (it starts with \(startDescription(data)))"
    }

    /// What to give instead, for a hint.
    public static let acceptedHint = "A photo is a PNG, JPEG, GIF, WebP or HEIC image file."

    /// The first bytes, as text when they are printable ASCII, else in
    /// hexadecimal: `"hello wor"`, `0x00 0x01 0x02 0x03`.
    private static func startDescription(_ data: Data) -> String {
        let head = data.prefix(8)
        if head.allSatisfy({ (0x20...0x7E).contains($0) }) {
            return "\"" + String(decoding: head, as: UTF8.self) + "\""
        }
        return head.prefix(4).map { String(format: "0x%02X", $0) }.joined(separator: " ")
    }
}
