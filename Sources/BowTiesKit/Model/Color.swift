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
        let (r, g, b) = rgb8
        return "#" + [r, g, b].map { hexByte($0) }.joined()
    }

    /// True when every component (alpha included) is a finite number in 0...1.
    public var isValid: Bool {
        [red, green, blue, alpha].allSatisfy { $0.isFinite && (0...1).contains($0) }
    }
}

private func hexByte(_ value: Int) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[(value >> 4) & 0xF], digits[value & 0xF]])
}
