internal import CImageCodecs
import Foundation

/// Shrinks a PNG or JPEG photo to fit a size, with libpng and libjpeg
/// (the only file that calls them, through `CImageCodecs`).
///
/// ```swift
/// let small = try PhotoScaler.scale(photo, toFit: 480).get()
/// small.format   // .jpeg for an opaque photo, .png when it has transparency
/// ```
///
/// The bytes are treated as hostile: a damaged file is a
/// ``Failure/damaged(_:_:)`` (libjpeg's errors come back through the
/// shim's `setjmp`, libpng's through its simplified API), and an image
/// larger than ``maximumSide`` or ``maximumPixels`` is refused before any
/// pixel is allocated. Exif orientation is not applied.
enum PhotoScaler {
    /// The longest side decoded.
    static let maximumSide = 20_000
    /// The most pixels decoded (RGBA: 4 bytes each, 200 MB at most).
    static let maximumPixels = 50_000_000
    /// JPEG quality for scaled photos: no visible loss at card size.
    static let jpegQuality: Int32 = 85

    /// A photo made to fit.
    struct Scaled {
        var data: Data
        var format: ImageFormat
        var width: Int
        var height: Int
        /// The original's size in pixels.
        var originalWidth: Int
        var originalHeight: Int
    }

    enum Failure: Error, CustomStringConvertible {
        /// Not a PNG or JPEG, or damaged: libpng's or libjpeg's words.
        case damaged(ImageFormat, String)
        /// Larger than ``maximumSide`` or ``maximumPixels``.
        case tooLarge(width: Int, height: Int)
        /// Neither PNG nor JPEG.
        case unsupported(ImageFormat)
        case cannotEncode(String)

        var description: String {
            switch self {
            case .damaged(let format, let why):
                "cannot read it as \(format.rawValue)" + (why.isEmpty ? "" : " (\(why))")
            case .tooLarge(let width, let height):
                "\(width)×\(height) pixels is more than the report scales "
                    + "(\(PhotoScaler.maximumSide.groupedDigits) a side, "
                    + "\(PhotoScaler.maximumPixels / 1_000_000) megapixels)"
            case .unsupported(let format):
                "bowties cannot scale \(format.rawValue) images"
            case .cannotEncode(let why):
                "cannot encode the smaller image (\(why))"
            }
        }
    }

    /// `data` decoded and, when its long side is over `side`, shrunk to
    /// fit it: a PNG with transparency stays a PNG; an opaque image
    /// becomes a JPEG, or a PNG when that is smaller (flat drawings).
    ///
    /// - Returns: Also when nothing was shrunk (the image fits), the
    ///   image re-encoded; callers compare sizes.
    static func scale(_ data: Data, toFit side: Int) -> Result<Scaled, Failure> {
        do throws(Failure) {
            let (bitmap, width, height) = try decode(data, fitting: side)
            let small = bitmap.scaled(toFit: side)
            var best: (Data, ImageFormat)
            if small.isOpaque {
                let rgb = small.droppingAlpha()
                let jpeg = try encodeJPEG(rgb)
                best = (jpeg, .jpeg)
                if ImageFormat(data: data) == .png {
                    let png = try encodePNG(rgb)
                    if png.count < jpeg.count { best = (png, .png) }
                }
            } else {
                let png = try encodePNG(small)
                best = (png, .png)
            }
            return .success(
                Scaled(
                    data: best.0, format: best.1, width: small.width, height: small.height,
                    originalWidth: width, originalHeight: height))
        } catch {
            return .failure(error)
        }
    }

    /// The pixels of a PNG or JPEG, and the image's own size (a JPEG
    /// decodes at 1/2, 1/4 or 1/8 when its long side stays at least `side`).
    static func decode(_ data: Data, fitting side: Int) throws(Failure) -> (Bitmap, width: Int, height: Int) {
        let format = ImageFormat(data: data)
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: UInt32 = 0
        var height: UInt32 = 0
        var outWidth: UInt32 = 0
        var outHeight: UInt32 = 0
        var channels: UInt32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let code: Int32 = data.withUnsafeBytes { bytes in
            message.withUnsafeMutableBufferPointer { text in
                switch format {
                case .png:
                    let code = CImageCodecs_pngDecode(
                        bytes.baseAddress, bytes.count, UInt(maximumSide), UInt(maximumPixels),
                        &pixels, &width, &height, &channels, text.baseAddress, text.count)
                    (outWidth, outHeight) = (width, height)
                    return code
                case .jpeg:
                    return CImageCodecs_jpegDecode(
                        bytes.baseAddress, bytes.count, UInt(maximumSide), UInt(maximumPixels),
                        UInt32(clamping: max(1, side)), &pixels, &width, &height, &outWidth, &outHeight,
                        &channels, text.baseAddress, text.count)
                default:
                    return -1
                }
            }
        }
        defer { CImageCodecs_free(pixels) }
        switch code {
        case CImageCodecs_decoded:
            guard let pixels, channels == 3 || channels == 4, outWidth > 0, outHeight > 0 else {
                throw Failure.damaged(format, "no pixels")
            }
            let count = Int(outWidth) * Int(outHeight) * Int(channels)
            let bitmap = Bitmap(
                width: Int(outWidth), height: Int(outHeight), channels: Int(channels),
                pixels: Array(UnsafeBufferPointer(start: pixels, count: count)))
            return (bitmap, Int(width), Int(height))
        case CImageCodecs_tooLarge:
            throw Failure.tooLarge(width: Int(width), height: Int(height))
        case -1:
            throw Failure.unsupported(format)
        default:
            throw Failure.damaged(format, Self.text(message))
        }
    }

    /// `bitmap` as a PNG (`png_image_write_to_memory`).
    static func encodePNG(_ bitmap: Bitmap) throws(Failure) -> Data {
        try encode { bytes, size, message, capacity in
            CImageCodecs_pngEncode(
                bitmap.pixels, UInt32(bitmap.width), UInt32(bitmap.height), UInt32(bitmap.channels), bytes, size,
                message, capacity)
        }
    }

    /// An RGB `bitmap` as a JPEG (`jpeg_mem_dest`, ``jpegQuality``).
    static func encodeJPEG(_ bitmap: Bitmap) throws(Failure) -> Data {
        try encode { bytes, size, message, capacity in
            CImageCodecs_jpegEncode(
                bitmap.pixels, UInt32(bitmap.width), UInt32(bitmap.height), jpegQuality, bytes, size, message,
                capacity)
        }
    }

    private static func encode(
        _ call: (
            UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int>, UnsafeMutablePointer<CChar>?,
            Int
        ) -> Int32
    ) throws(Failure) -> Data {
        var bytes: UnsafeMutableRawPointer?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let code = message.withUnsafeMutableBufferPointer { text in
            call(&bytes, &size, text.baseAddress, text.count)
        }
        defer { CImageCodecs_free(bytes) }
        guard code == 1, let bytes else { throw Failure.cannotEncode(Self.text(message)) }
        return Data(bytes: bytes, count: size)
    }

    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
