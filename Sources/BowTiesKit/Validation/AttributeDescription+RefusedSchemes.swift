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
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon].lowercased()
        return refusedURISchemes.contains(scheme) ? scheme : nil
    }
}
