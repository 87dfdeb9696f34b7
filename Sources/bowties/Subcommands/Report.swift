import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties report [--output FILE] [QUERY...]`: one HTML page about the catalog.
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Write an HTML page about the catalog: figures, a gallery and a table.",
            discussion: """
                The page is one self-contained file that works offline: it loads nothing \
                from anywhere else (no fonts, scripts or images from the network), and its \
                Content-Security-Policy lets only its own style and script run. Open it in \
                any browser: `bowties report --output ties.html && xdg-open ties.html`.

                It shows the number of ties and favourites, the most and least worn, how \
                many were never worn or not in 90 days, and the photos' total size; a \
                gallery of cards (photo on the tie's colour, name, key, rating, times and \
                last worn, tags); and a table of every tie that sorts (click a heading) and \
                filters as you type.

                Each distinct photo is embedded once. A PNG or JPEG over 480 pixels on its \
                long side (or over 512 KiB) is scaled down to 480 first: a JPEG when it is \
                opaque, else a PNG. GIF and WebP photos are embedded as stored. A photo that \
                cannot be read, one still over 512 KiB, or any once 5 MiB of photos are in, \
                is left out, and its card says why. The gallery shows the first 200 ties \
                (--cards), the table all of them (about 90 bytes each): 100,000 ties made a \
                page of 9.5 MB. The page is written as the ties are read: memory stays the \
                same whatever the catalog's size.

                Without --output the page goes to standard output, unless that is a terminal.

                \(QueryArgument.help)
                """)

        @Option(
            name: [.short, .long],
            help: ArgumentHelp("Write the page to this file ('-' for standard output).", valueName: "file"),
            completion: .file(extensions: ["html"]))
        var output: String?

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Show at most this many cards in the gallery.", valueName: "n"))
        var cards = HTMLReport.Limits().cards

        @OptionGroup var options: CatalogOptions

        @OptionGroup var query: QueryArgument

        func validate() throws {
            guard cards >= 0 else { throw ValidationError("--cards takes a number of cards, 0 or more.") }
            if output == nil || output == "-", Terminal.isTerminal(1) {
                throw ValidationError(
                    "The report is an HTML page, not text for a terminal: write it to a file with "
                        + "--output FILE (e.g. `bowties report --output ties.html`), or redirect it.")
            }
            if let output, output.isEmpty { throw ValidationError("--output needs a file name.") }
        }

        func run() throws {
            let catalog = try options.openCatalog(.readOnly)
            let selection = try query.query(for: catalog)
            var limits = HTMLReport.Limits()
            limits.cards = cards
            guard let output, output != "-" else {
                // A reader that goes away (`| head`) ends the writing with
                // `.outputClosed`, not a signal.
                signal(SIGPIPE, SIG_IGN)
                let standardOutput = ExportOutput()
                _ = try catalog.writeReport(matching: selection, to: standardOutput, limits: limits)
                try standardOutput.commit()
                return
            }
            let outcome = try catalog.writeReport(matching: selection, to: URL(fileURLWithPath: output), limits: limits)
            if options.json {
                try Output.json(ReportJSON(file: output, outcome))
                return
            }
            var line =
                "Wrote \(output): \(Output.count(outcome.ties, "bow tie")), \(Output.count(outcome.cards, "card"))"
            line += ", \(Output.count(outcome.photosEmbedded, "photo")) embedded"
            line += " (\(Output.grouped(outcome.photoBytesEmbedded)) bytes"
            line += outcome.photosScaled > 0 ? ", \(Output.grouped(outcome.photosScaled)) scaled down)" : ")"
            if outcome.photosLeftOut > 0 {
                line += ", \(Output.grouped(outcome.photosLeftOut)) left out (their cards say why)"
            }
            Output.line(line + ".")
        }
    }
}

/// `report --json`: what went into the page.
private struct ReportJSON: Encodable {
    var file: String
    var ties: Int
    var cards: Int
    var photosEmbedded: Int
    var photoBytesEmbedded: Int
    var photosScaled: Int
    var photosLeftOut: Int

    init(file: String, _ outcome: HTMLReport.Outcome) {
        self.file = file
        ties = outcome.ties
        cards = outcome.cards
        photosEmbedded = outcome.photosEmbedded
        photoBytesEmbedded = outcome.photoBytesEmbedded
        photosScaled = outcome.photosScaled
        photosLeftOut = outcome.photosLeftOut
    }
}
