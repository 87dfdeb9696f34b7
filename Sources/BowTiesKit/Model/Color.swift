/// An RGBA colour with components from 0 to 1, as `UIColor` holds it.
public struct Color: Sendable, Hashable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// A colour from 8-bit components, as the sample property list writes
    /// them (`red`, `green`, `blue` from 0 to 255).
    public init(red8: Int, green8: Int, blue8: Int) {
        self.init(red: Double(red8) / 255, green: Double(green8) / 255, blue: Double(blue8) / 255)
    }

    /// The components as 8-bit integers (rounded).
    public var rgb8: (red: Int, green: Int, blue: Int) {
        func byte(_ component: Double) -> Int { Int((min(max(component, 0), 1) * 255).rounded()) }
        return (byte(red), byte(green), byte(blue))
    }

    /// `#RRGGBB`, upper-case hexadecimal (alpha is not part of it).
    public var hexString: String {
        // Bytes, not strings joined: `list` writes one per tie, a million
        // in a large catalog.
        let (r, g, b) = rgb8
        let digits: StaticString = "0123456789ABCDEF"
        return digits.withUTF8Buffer { hex in
            String(unsafeUninitializedCapacity: 7) { text in
                text[0] = UInt8(ascii: "#")
                text[1] = hex[(r >> 4) & 0xF]
                text[2] = hex[r & 0xF]
                text[3] = hex[(g >> 4) & 0xF]
                text[4] = hex[g & 0xF]
                text[5] = hex[(b >> 4) & 0xF]
                text[6] = hex[b & 0xF]
                return 7
            }
        }
    }

    /// True when every component (alpha included) is a finite number in 0...1.
    public var isValid: Bool {
        // No array of the four: this runs for every colour read or written.
        func inRange(_ component: Double) -> Bool { component.isFinite && (0...1).contains(component) }
        return inRange(red) && inRange(green) && inRange(blue) && inRange(alpha)
    }
}
