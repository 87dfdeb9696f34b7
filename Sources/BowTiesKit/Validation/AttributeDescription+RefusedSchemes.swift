extension AttributeDescription {
    /// Schemes a stored link may not use, whatever the file says: opening
    /// them runs script or shows a page the file itself supplies
    /// (`javascript:alert(1)`, `data:text/html,...`), never a page about
    /// the tie. Other schemes (`https:`, `file:`, `mailto:`...) stay valid.
    static let refusedURISchemes: Set<String> = ["javascript", "vbscript", "data"]

    /// The scheme of `text`, lowercased, when it is one of
    /// ``refusedURISchemes``; nil otherwise. Validation of `.uri` values
    /// refuses such a link with 1690, like a URI that is not absolute.
    ///
    /// ```
    /// refusedScheme(of: "JavaScript:alert(1)")   // "javascript"
    /// refusedScheme(of: "https://example.com/")  // nil
    /// ```
    static func refusedScheme(of text: String) -> String? {
        // On bytes, and only schemes as long as a refused one are
        // lowercased and looked up: this runs for every link imported.
        let utf8 = text.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let length = utf8.distance(from: utf8.startIndex, to: colon)
        guard refusedSchemeLengths.contains(length) else { return nil }
        let scheme = String(text[..<colon]).lowercased()
        return refusedURISchemes.contains(scheme) ? scheme : nil
    }

    private static let refusedSchemeLengths = Set(refusedURISchemes.map(\.utf8.count))
}
