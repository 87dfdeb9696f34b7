import Foundation

extension Catalog {
    /// Writes a report (``HTMLReport``) of the ties `query` selects to `url`,
    /// all at once or not at all (a temporary file renamed into place).
    ///
    /// - Parameters:
    ///   - query: Which ties, in which order (the gallery takes the first ones).
    ///   - url: The HTML file to write.
    ///   - limits: How many cards and photo bytes the page may hold.
    ///   - now: The moment the report is made (figures count back from it).
    /// - Returns: What went into the page.
    /// - Throws: ``CatalogError`` when the store cannot be read
    ///   (`.storeIO`) or the file cannot be written (`.cannotCreateOutput`).
    public func writeReport(
        matching query: Query, to url: URL, limits: HTMLReport.Limits = .init(), now: Date = Date()
    ) throws -> HTMLReport.Outcome {
        let (html, outcome) = try report(matching: query, limits: limits, now: now)
        let file = try AtomicFile(destination: url)
        try file.write(html)
        try file.commit()
        return outcome
    }

    /// The report's page as text (for standard output).
    public func report(
        matching query: Query, limits: HTMLReport.Limits = .init(), now: Date = Date()
    ) throws -> (html: String, outcome: HTMLReport.Outcome) {
        let ties = try bowTies(matching: query)
        let report = HTMLReport(
            ties: ties, now: now, limits: limits, selection: query.terms.joined(separator: " ")
        ) { tie in try self.readPhoto(of: tie) }
        return try report.render()
    }
}
