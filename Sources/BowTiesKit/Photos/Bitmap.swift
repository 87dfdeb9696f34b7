/// Decoded pixels: 8 bits a channel, RGB (3 channels) or RGBA (4, not
/// premultiplied), rows packed top to bottom.
struct Bitmap {
    var width: Int
    var height: Int
    var channels: Int
    var pixels: [UInt8]

    /// Whether every pixel is fully opaque (always for RGB).
    var isOpaque: Bool {
        guard channels == 4 else { return true }
        return pixels.withUnsafeBufferPointer { buffer in
            var index = 3
            while index < buffer.count {
                if buffer[index] != 255 { return false }
                index += 4
            }
            return true
        }
    }

    /// The same pixels without their alpha channel (for an opaque RGBA
    /// image that may become a JPEG).
    func droppingAlpha() -> Bitmap {
        guard channels == 4 else { return self }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { target in
                for pixel in 0..<(width * height) {
                    target[pixel * 3] = source[pixel * 4]
                    target[pixel * 3 + 1] = source[pixel * 4 + 1]
                    target[pixel * 3 + 2] = source[pixel * 4 + 2]
                }
            }
        }
        return Bitmap(width: width, height: height, channels: 3, pixels: rgb)
    }

    /// The size that fits `side` on the long side, keeping the aspect
    /// ratio (never larger than now, never 0).
    func sizeFitting(_ side: Int) -> (width: Int, height: Int) {
        let long = max(width, height)
        guard long > side, side > 0 else { return (width, height) }
        return (max(1, (width * side + long / 2) / long), max(1, (height * side + long / 2) / long))
    }

    /// The image shrunk to fit `side` on its long side by averaging each
    /// block of source pixels (a box filter: every source pixel counts
    /// once, so fine patterns do not alias). Colour is averaged weighted
    /// by alpha, so transparent pixels lend no colour to their
    /// neighbours' edges.
    func scaled(toFit side: Int) -> Bitmap {
        let (targetWidth, targetHeight) = sizeFitting(side)
        guard targetWidth < width || targetHeight < height else { return self }
        let channels = self.channels
        let columns = (0...targetWidth).map { $0 * width / targetWidth }
        var output = [UInt8](repeating: 0, count: targetWidth * targetHeight * channels)
        // Per target column: the sums of one block row's channels.
        var sums = [UInt64](repeating: 0, count: targetWidth * 4)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                sums.withUnsafeMutableBufferPointer { sums in
                    for targetY in 0..<targetHeight {
                        let top = targetY * height / targetHeight
                        let bottom = max(top + 1, (targetY + 1) * height / targetHeight)
                        for index in 0..<sums.count { sums[index] = 0 }
                        for y in top..<bottom {
                            let row = y * width * channels
                            for targetX in 0..<targetWidth {
                                var red: UInt64 = 0
                                var green: UInt64 = 0
                                var blue: UInt64 = 0
                                var alpha: UInt64 = 0
                                for x in columns[targetX]..<max(columns[targetX] + 1, columns[targetX + 1]) {
                                    let at = row + x * channels
                                    if channels == 4 {
                                        let weight = UInt64(source[at + 3])
                                        red += UInt64(source[at]) * weight
                                        green += UInt64(source[at + 1]) * weight
                                        blue += UInt64(source[at + 2]) * weight
                                        alpha += weight
                                    } else {
                                        red += UInt64(source[at])
                                        green += UInt64(source[at + 1])
                                        blue += UInt64(source[at + 2])
                                    }
                                }
                                sums[targetX * 4] += red
                                sums[targetX * 4 + 1] += green
                                sums[targetX * 4 + 2] += blue
                                sums[targetX * 4 + 3] += alpha
                            }
                        }
                        for targetX in 0..<targetWidth {
                            let count = UInt64(
                                (bottom - top) * max(1, columns[targetX + 1] - columns[targetX]))
                            let at = (targetY * targetWidth + targetX) * channels
                            let divisor = channels == 4 ? sums[targetX * 4 + 3] : count
                            for channel in 0..<3 {
                                let sum = sums[targetX * 4 + channel]
                                target[at + channel] = divisor == 0 ? 0 : UInt8((sum + divisor / 2) / divisor)
                            }
                            if channels == 4 {
                                target[at + 3] = UInt8((sums[targetX * 4 + 3] + count / 2) / count)
                            }
                        }
                    }
                }
            }
        }
        return Bitmap(width: targetWidth, height: targetHeight, channels: channels, pixels: output)
    }
}
