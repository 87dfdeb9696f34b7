import Foundation

/// Stores a ``Color`` as 36 bytes: the magic `BTC1`, then red, green, blue
/// and alpha as big-endian IEEE 754 doubles.
///
/// The format is fixed-size and self-identifying, so decoding refuses
/// anything else: wrong length, wrong magic, components that are not finite
/// numbers in 0...1.
public struct ColorAttributeTransformer: AttributeValueTransformer {
    /// The name the model uses for this transformer.
    public static let name = "ColorAttributeTransformer"

    private static let magic: [UInt8] = Array("BTC1".utf8)
    private static let encodedCount = 4 + 4 * 8

    public init() {}

    public func transformedValue(_ value: AttributeValue) throws -> Data {
        guard case .color(let color) = value else {
            throw TransformerError.unsupportedValue(transformer: Self.name, value: value.displayText)
        }
        guard color.isValid else {
            throw TransformerError.unsupportedValue(
                transformer: Self.name, value: "a colour with components outside 0...1")
        }
        // Written in place, with no array between: every colour saved or
        // imported comes through here.
        var data = Data(count: Self.encodedCount)
        data.withUnsafeMutableBytes { bytes in
            for (offset, byte) in Self.magic.enumerated() { bytes[offset] = byte }
            let components = (color.red, color.green, color.blue, color.alpha)
            bytes.storeBytes(of: components.0.bitPattern.bigEndian, toByteOffset: 4, as: UInt64.self)
            bytes.storeBytes(of: components.1.bitPattern.bigEndian, toByteOffset: 12, as: UInt64.self)
            bytes.storeBytes(of: components.2.bitPattern.bigEndian, toByteOffset: 20, as: UInt64.self)
            bytes.storeBytes(of: components.3.bitPattern.bigEndian, toByteOffset: 28, as: UInt64.self)
        }
        return data
    }

    public func reverseTransformedValue(_ data: Data) throws -> AttributeValue {
        try data.withUnsafeBytes { try reverseTransformedValue(bytes: $0) }
    }

    /// Decodes the bytes in place: an export decodes one colour per row,
    /// straight from the bytes SQLite lends, with no `Data` or array.
    public func reverseTransformedValue(bytes: UnsafeRawBufferPointer) throws -> AttributeValue {
        func malformed(_ reason: String) -> TransformerError {
            .malformedData(transformer: Self.name, reason: reason)
        }
        guard bytes.count == Self.encodedCount else {
            throw malformed("expected \(Self.encodedCount) bytes, found \(bytes.count)")
        }
        guard bytes[0] == UInt8(ascii: "B"), bytes[1] == UInt8(ascii: "T"), bytes[2] == UInt8(ascii: "C"),
            bytes[3] == UInt8(ascii: "1")
        else { throw malformed("missing the BTC1 header") }
        func component(_ index: Int) -> Double {
            let start = 4 + index * 8
            var bits: UInt64 = 0
            for offset in start..<start + 8 { bits = bits << 8 | UInt64(bytes[offset]) }
            return Double(bitPattern: bits)
        }
        let color = Color(red: component(0), green: component(1), blue: component(2), alpha: component(3))
        guard color.isValid else { throw malformed("components must be numbers from 0 to 1") }
        return .color(color)
    }
}
