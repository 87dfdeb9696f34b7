extension Array where Element == String {
    /// The strings with `separator` between them, as
    /// `joined(separator:)` gives them, without the standard library's
    /// generic entry point: its first call in a process looks up the
    /// collection's associated types by name, 0.3 M instructions of a
    /// point command that otherwise takes 7 M (bench/README.md, "Point
    /// commands, session 11").
    public func listed(separator: String) -> String {
        var text = ""
        for (index, part) in enumerated() {
            if index > 0 { text += separator }
            text += part
        }
        return text
    }
}
