extension Int {
    /// `399,980`: the digits grouped by three with commas, whatever the
    /// locale, as every count bowties prints is written. For counts and
    /// sizes, which are never negative.
    public var groupedDigits: String {
        let digits = String(self)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.append(character)
        }
        return result
    }
}
