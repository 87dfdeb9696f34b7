import Foundation

/// A value decoded from an NSKeyedArchiver archive: what a transformable
/// attribute holds when its transformer is the default one (or
/// `NSSecureUnarchiveFromData`).
///
/// Foundation's value classes become their plain counterparts; a class
/// the decoder does not know keeps its name, so a reader can still tell
/// what the app stored.
public indirect enum ArchivedValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string(String)
    case data(Data)
    /// Seconds since 2001-01-01 00:00:00 UTC (`NSDate`).
    case date(Double)
    case array([ArchivedValue])
    /// `NSSet`: elements in archive order.
    case set([ArchivedValue])
    /// `NSDictionary`: keys in archive order.
    case dictionary([Entry])
    /// `NSURL`, absolute (its base resolved).
    case url(String)
    case uuid(UUID)
    /// `UIColor` or `NSColor` in an RGB or grey space: components 0...1.
    case color(red: Double, green: Double, blue: Double, alpha: Double)
    /// An instance of a class this decoder does not know: its class name
    /// (`$classname`) and no contents.
    case object(className: String)

    public struct Entry: Sendable, Equatable {
        public var key: ArchivedValue
        public var value: ArchivedValue

        public init(key: ArchivedValue, value: ArchivedValue) {
            self.key = key
            self.value = value
        }
    }
}

extension ArchivedValue {
    /// `#RRGGBB` for a colour, rounding each component to 0...255.
    public static func hexColor(red: Double, green: Double, blue: Double) -> String {
        func byte(_ value: Double) -> Int {
            guard value.isFinite else { return 0 }
            return Int((min(max(value, 0), 1) * 255).rounded())
        }
        let digits = Array("0123456789ABCDEF")
        var text = "#"
        for component in [byte(red), byte(green), byte(blue)] {
            text.append(digits[component >> 4])
            text.append(digits[component & 0xF])
        }
        return text
    }
}
