import Crypto
import Foundation

/// One self-contained HTML page about the catalog: summary figures, a
/// gallery of cards and a table that sorts and filters in the browser.
///
/// ```swift
/// let report = HTMLReport(ties: ties, now: Date()) { tie in try catalog.readPhoto(of: tie) }
/// let page = try report.render()
/// ```
///
/// The page asks for nothing outside itself: no fonts, scripts or images
/// from elsewhere. Photos are `data:` URIs, and its Content-Security-Policy
/// (a `<meta>` tag) allows only its own style and script, by their
/// SHA-256, and `data:` images. Every text from the catalog is escaped
/// (``HTMLText``), and the table's script builds cells with `textContent`.
///
/// Each distinct photo is embedded once, as a CSS class every card that
/// shows it names. A PNG or JPEG larger than ``Limits/photoSide`` pixels
/// (or than ``Limits/photoBytes``) is scaled down to fit first
/// (``PhotoScaler``); a photo still over ``Limits/photoBytes``, or one
/// that cannot be read, is left out, and once ``Limits/photoBudget``
/// bytes of photos are in, the others are too; each card says why it
/// shows none. The gallery holds at most ``Limits/cards`` cards; the table
/// holds every tie (about 90 bytes each).
///
/// The page is written as it is made (``render(to:)``): the gallery's
/// cards are made first (the style sheet, whose hash the policy names,
/// holds their photos), then the table's rows go out one by one from
/// ``rows``, so memory does not grow with the number of ties.
public struct HTMLReport {
    /// How large the page may grow.
    public struct Limits: Sendable {
        /// Cards in the gallery, in the order of the ties.
        public var cards: Int
        /// The largest photo embedded, in bytes (after scaling).
        public var photoBytes: Int
        /// All embedded photos together, in bytes (before Base64's third more).
        public var photoBudget: Int
        /// Photos with a longer side are scaled down to it: a card's photo
        /// box at twice the density of a standard screen.
        public var photoSide: Int

        public init(
            cards: Int = 200, photoBytes: Int = 512 * 1024, photoBudget: Int = 5 * 1024 * 1024, photoSide: Int = 480
        ) {
            self.cards = cards
            self.photoBytes = photoBytes
            self.photoBudget = photoBudget
            self.photoSide = photoSide
        }
    }

    /// How the page turned out, for the command to report.
    public struct Outcome: Sendable {
        public var ties: Int
        public var cards: Int
        /// Distinct photos embedded, and their bytes.
        public var photosEmbedded: Int
        public var photoBytesEmbedded: Int
        /// Of those, the photos scaled down to fit.
        public var photosScaled: Int
        /// Cards whose tie has a photo the page does not show.
        public var photosLeftOut: Int
    }

    /// What the table shows of one tie.
    public struct TableRow: Sendable {
        public var key: String
        public var name: String
        public var rating: Double
        public var timesWorn: Int64
        public var lastWorn: Date?
        public var isFavorite: Bool
        /// Sorted as ``BowTie/tags``.
        public var tags: [String]
        /// `#RRGGBB`, or empty.
        public var colour: String

        public init(
            key: String, name: String, rating: Double, timesWorn: Int64, lastWorn: Date?, isFavorite: Bool,
            tags: [String], colour: String
        ) {
            self.key = key
            self.name = name
            self.rating = rating
            self.timesWorn = timesWorn
            self.lastWorn = lastWorn
            self.isFavorite = isFavorite
            self.tags = tags
            self.colour = colour
        }

        public init(_ tie: BowTie) {
            self.init(
                key: tie.searchKey ?? "", name: tie.name ?? "", rating: tie.rating, timesWorn: Int64(tie.timesWorn),
                lastWorn: tie.lastWorn, isFavorite: tie.isFavorite, tags: tie.tags,
                colour: tie.tintColor?.hexString ?? "")
        }
    }

    /// Reads a tie's photo: nil when it has none (``Catalog/readPhoto(of:)``).
    public typealias PhotoReader = (BowTie) throws -> Result<Data, PhotoProblem>?
    /// Calls its argument with each table row, in order.
    public typealias RowSource = ((TableRow) throws -> Void) throws -> Void

    public var summary: CatalogSummary
    /// The ties of the gallery's cards (at most ``Limits/cards`` are shown).
    public var cards: [BowTie]
    public var now: Date
    public var limits: Limits
    /// What selected the ties (`rating:4..`), shown under the title; empty for all.
    public var selection: String
    private let rows: RowSource
    private let readPhoto: PhotoReader

    /// A report of ties in memory.
    public init(
        ties: [BowTie], now: Date = Date(), limits: Limits = Limits(), selection: String = "",
        readPhoto: @escaping PhotoReader
    ) {
        self.init(
            summary: CatalogSummary(ties, now: now), cards: Array(ties.prefix(max(0, limits.cards))), now: now,
            limits: limits, selection: selection,
            rows: { body in for tie in ties { try body(TableRow(tie)) } }, readPhoto: readPhoto)
    }

    /// A report whose figures, cards and rows come from elsewhere
    /// (``Catalog/writeReport(matching:to:limits:now:)``: the store).
    ///
    /// - Parameters:
    ///   - summary: The figures of every tie the report covers.
    ///   - cards: The first ties, in order, for the gallery.
    ///   - rows: Every tie's table row, in order, once per ``render(to:)``.
    public init(
        summary: CatalogSummary, cards: [BowTie], now: Date = Date(), limits: Limits = Limits(),
        selection: String = "", rows: @escaping RowSource, readPhoto: @escaping PhotoReader
    ) {
        self.summary = summary
        self.cards = cards
        self.now = now
        self.limits = limits
        self.selection = selection
        self.rows = rows
        self.readPhoto = readPhoto
    }

    /// The page, and what went into it (the page in memory: for tests and
    /// small catalogs; ``render(to:)`` streams it).
    /// - Throws: What ``PhotoReader`` and ``RowSource`` throw.
    public func render() throws -> (html: String, outcome: Outcome) {
        var html = ""
        let outcome = try render { html += $0 }
        return (html, outcome)
    }

    /// Writes the page in pieces, in order, to `write`.
    /// - Throws: What `write`, ``PhotoReader`` and ``RowSource`` throw.
    public func render(to write: (String) throws -> Void) throws -> Outcome {
        let cardTies = cards.prefix(max(0, limits.cards))
        var styles = StyleSheet()
        var photos = PhotoEmbedder(limits: limits, read: readPhoto)
        var cardsHTML = ""
        for tie in cardTies {
            cardsHTML += try card(tie, styles: &styles, photos: &photos)
        }
        let css = Self.css + styles.rules
        let script = Self.script
        try write(
            """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="\(Self.policy(css: css, script: script))">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <title>\(HTMLText.escaped(title))</title>
            <style>\(css)</style>
            </head>
            <body>

            """)
        try write(header())
        try write(figures(summary))
        try write(gallery(cardsHTML, shown: cardTies.count, summary: summary))
        try write(table())
        try write("\n<script type=\"application/json\" id=\"ties-data\">[")
        var first = true
        try rows { row in
            try write((first ? "" : ",\n") + Self.tableData(row))
            first = false
        }
        try write(
            """
            ]</script>
            <script>\(script)</script>
            </body>
            </html>

            """)
        return Outcome(
            ties: summary.ties, cards: cardTies.count, photosEmbedded: photos.embedded,
            photoBytesEmbedded: photos.bytesEmbedded, photosScaled: photos.scaled, photosLeftOut: photos.leftOut)
    }

    /// Only this page's own style and script (by hash) and `data:` images;
    /// no connections, frames, forms, plug-ins or base URL.
    static func policy(css: String, script: String) -> String {
        func hash(_ text: String) -> String {
            "'sha256-" + Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString() + "'"
        }
        return "default-src 'none'; img-src data:; style-src \(hash(css)); script-src \(hash(script)); "
            + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    private var title: String {
        selection.isEmpty ? "Bow ties" : "Bow ties: \(selection)"
    }

    // MARK: - Parts of the page

    private func header() -> String {
        let stamp = ISO8601.string(from: now).replacingOccurrences(of: "T", with: " ")
            .replacingOccurrences(of: "Z", with: " UTC")
        let what =
            selection.isEmpty ? "Every tie in the catalog" : "Ties matching <code>\(HTMLText.escaped(selection))</code>"
        return """
            <header class="top"><h1>\(HTMLText.escaped(title))</h1>\
            <p class="sub">\(what) · made by bowties on \(stamp)</p></header>
            <main>

            """
    }

    private func figures(_ summary: CatalogSummary) -> String {
        func figure(_ value: String, _ label: String, _ detail: String = "") -> String {
            "<div class=\"figure\"><div class=\"value\">\(value)</div><div class=\"label\">\(label)</div>"
                + (detail.isEmpty ? "" : "<div class=\"detail\">\(detail)</div>") + "</div>"
        }
        func standout(_ standout: CatalogSummary.Standout?) -> (String, String) {
            guard let standout else { return ("–", "none worn yet") }
            var detail = "<bdi>\(HTMLText.escaped(Self.title(standout.tie)))</bdi>"
            if standout.others > 0 {
                detail += " and \(standout.others.groupedDigits) other\(standout.others == 1 ? "" : "s")"
            }
            return (Int(standout.timesWorn).groupedDigits, detail)
        }
        let most = standout(summary.mostWorn)
        let least = standout(summary.leastWorn)
        let items = [
            figure(summary.ties.groupedDigits, summary.ties == 1 ? "tie" : "ties"),
            figure(summary.favourites.groupedDigits, summary.favourites == 1 ? "favourite" : "favourites"),
            figure(most.0, "most worn (times)", most.1),
            figure(least.0, "least worn (times, of those worn)", least.1),
            figure(summary.neverWorn.groupedDigits, "never worn"),
            figure(
                summary.notWornRecently.groupedDigits, "not worn in \(CatalogSummary.staleDays) days",
                "never worn included"),
            figure(
                Self.bytes(summary.photoBytes), "of photos",
                "\(summary.withPhoto.groupedDigits) tie\(summary.withPhoto == 1 ? "" : "s") with a photo"),
        ]
        return "<section aria-labelledby=\"h-figures\"><h2 id=\"h-figures\">In figures</h2>"
            + "<div class=\"figures\">\(items.joined())</div></section>\n"
    }

    private func gallery(_ cards: String, shown: Int, summary: CatalogSummary) -> String {
        var note = ""
        if shown < summary.ties {
            note =
                "<p class=\"note\">The gallery shows the first \(shown.groupedDigits) of "
                + "\(summary.ties.groupedDigits) ties, in the query's order "
                + "(<code>bowties report --cards N</code> changes that); the table below lists every one.</p>"
        }
        if summary.ties == 0 {
            return "<section><h2>Gallery</h2><p class=\"note\">No tie to show.</p></section>\n"
        }
        return "<section aria-labelledby=\"h-gallery\"><h2 id=\"h-gallery\">Gallery</h2>\(note)"
            + "<div class=\"gallery\">\(cards)</div></section>\n"
    }

    private func card(_ tie: BowTie, styles: inout StyleSheet, photos: inout PhotoEmbedder) throws -> String {
        var photoClasses = "photo"
        if let color = tie.tintColor { photoClasses += " " + styles.colorClass(color.hexString) }
        var inside = ""
        switch try photos.photo(for: tie) {
        case .none:
            inside = "<span class=\"initial\" aria-hidden=\"true\">\(HTMLText.escaped(tie.searchKey ?? ""))</span>"
        case .embedded(let uri):
            photoClasses += " " + styles.photoClass(uri)
        case .leftOut(let why):
            inside = "<span class=\"nophoto\">\(HTMLText.escaped(why))</span>"
        }
        let name = HTMLText.escaped(tie.name ?? "(no name)")
        let key = tie.searchKey.map { "<span class=\"key\" title=\"search key\">\(HTMLText.escaped($0))</span>" } ?? ""
        let favourite = tie.isFavorite ? "<span class=\"fav\" title=\"favourite\">♥</span> " : ""
        let lastWorn =
            tie.lastWorn.map { "\(Self.day($0)) <span class=\"muted\">(\(Self.relative($0, now: now)))</span>" }
            ?? "never"
        let tags =
            tie.tags.isEmpty
            ? ""
            : "<div class=\"tags\">"
                + tie.tags.map { "<span class=\"tag\"><bdi>\(HTMLText.escaped($0))</bdi></span>" }.joined() + "</div>"
        let label = HTMLText.escaped("Photo of " + (tie.name ?? "a tie"))
        return """
            <article class="card"><div class="\(photoClasses)" role="img" aria-label="\(label)">\(inside)</div>\
            <div class="body"><h3 class="name">\(favourite)<bdi>\(name)</bdi>\(key)</h3>\
            \(Self.stars(tie.rating))\
            <dl><dt>Worn</dt><dd>\(Int(tie.timesWorn).groupedDigits) time\(tie.timesWorn == 1 ? "" : "s")</dd>\
            <dt>Last worn</dt><dd>\(lastWorn)</dd></dl>\(tags)</div></article>

            """
    }

    private func table() -> String {
        """
        <section aria-labelledby="h-table"><h2 id="h-table">Every tie</h2>
        <div class="controls"><input type="search" id="filter" placeholder="Filter by key, name or tag" \
        aria-label="Filter by key, name or tag"><span id="table-status" class="muted" aria-live="polite"></span>\
        <span class="pager"><button type="button" id="prev">Previous</button> \
        <button type="button" id="next">Next</button></span></div>
        <noscript><p class="note">Sorting and filtering the table needs JavaScript; the gallery above works without.</p></noscript>
        <table id="ties"><thead><tr>\
        <th scope="col" tabindex="0" data-col="0">Key</th>\
        <th scope="col" tabindex="0" data-col="1">Name</th>\
        <th scope="col" tabindex="0" data-col="2" class="num">Rating</th>\
        <th scope="col" tabindex="0" data-col="3" class="num">Worn</th>\
        <th scope="col" tabindex="0" data-col="4">Last worn</th>\
        <th scope="col" tabindex="0" data-col="5">Favourite</th>\
        <th scope="col" tabindex="0" data-col="6">Tags</th>\
        <th scope="col" tabindex="0" data-col="7">Colour</th>\
        </tr></thead><tbody id="ties-body"></tbody></table></section>
        </main>
        <footer>Made by bowties. This file is self-contained: it loads nothing from anywhere else.</footer>
        """
    }

    /// A tie as `[key, name, rating, worn, lastWorn, favourite, tags, colour]`,
    /// JSON safe inside `<script>`.
    static func tableData(_ row: TableRow) -> String {
        var json = "["
        json += HTMLText.jsonString(row.key) + ","
        json += HTMLText.jsonString(row.name) + ","
        json += Self.rating(row.rating) + ","
        json += String(row.timesWorn) + ","
        json += HTMLText.jsonString(row.lastWorn.map(Self.day) ?? "") + ","
        json += (row.isFavorite ? "1" : "0") + ","
        json += HTMLText.jsonString(row.tags.joined(separator: ", ")) + ","
        json += HTMLText.jsonString(row.colour)
        return json + "]"
    }

    // MARK: - Words and numbers

    /// `Classic Red Bow Tie (R)`.
    static func title(_ tie: BowTie) -> String {
        let name = tie.name ?? tie.id.uuidString
        return tie.searchKey.map { "\(name) (\($0))" } ?? name
    }

    /// A rating with at most two decimals: `3.5`, `4`, `4.75`; JSON-safe
    /// (`0` for a value that is not finite).
    static func rating(_ value: Double) -> String {
        AttributeValue.twoDecimalText(value) ?? "0"
    }

    /// A star per point of the rating's scale (``BowTieModel/ratingScale``:
    /// five), filled to the nearest half, and the rating in figures.
    static func stars(_ rating: Double) -> String {
        let scale = BowTieModel.ratingScale
        let halves = Int((min(max(rating.isFinite ? rating : 0, scale.lowerBound), scale.upperBound) * 2).rounded())
        let most = Self.rating(scale.upperBound)
        var stars = ""
        for index in 0..<Int(scale.upperBound.rounded(.up)) {
            let kind = halves >= 2 * (index + 1) ? "full" : halves == 2 * index + 1 ? "half" : "empty"
            stars += "<span class=\"\(kind)\">★</span>"
        }
        let figure = Self.rating(rating)
        return "<div class=\"stars\" role=\"img\" aria-label=\"rated \(figure) of \(most)\">"
            + "<span aria-hidden=\"true\">\(stars)</span><span class=\"n\">\(figure)/\(most)</span></div>"
    }

    /// `2014-06-19` (UTC).
    static func day(_ date: Date) -> String {
        String(ISO8601.string(from: date).prefix(10))
    }

    /// `today`, `3 days ago`, `2 years ago`.
    static func relative(_ date: Date, now: Date) -> String {
        RelativeDate.words(for: date, now: now)
    }

    /// `1.2 MB`, `240 kB`, `812 bytes` (decimal units, as `ls -h --si`).
    static func bytes(_ count: Int) -> String {
        switch count {
        case ..<1000: return "\(count) bytes"
        case ..<1_000_000: return "\(Int((Double(count) / 1000).rounded())) kB"
        default: return String(format: "%.1f MB", Double(count) / 1_000_000)
        }
    }
}

/// Rules the cards need beyond the fixed style sheet: one class per tint
/// colour and one per photo, each written once however many cards use it.
/// Class names are numbers, never text from the catalog.
private struct StyleSheet {
    private var colors: [String: String] = [:]
    private var photos: [String: String] = [:]
    private(set) var rules = ""

    mutating func colorClass(_ hex: String) -> String {
        if let name = colors[hex] { return name }
        let name = "c\(colors.count)"
        colors[hex] = name
        // `Color.hexString` is always `#RRGGBB`; anything else is not written.
        if hex.count == 7, hex.hasPrefix("#"), hex.dropFirst().allSatisfy(\.isHexDigit) {
            rules += ".\(name){background-color:\(hex)}\n"
        }
        return name
    }

    mutating func photoClass(_ dataURI: String) -> String {
        if let name = photos[dataURI] { return name }
        let name = "p\(photos.count)"
        photos[dataURI] = name
        rules += ".\(name){background-image:url(\"\(dataURI)\")}\n"
        return name
    }
}
