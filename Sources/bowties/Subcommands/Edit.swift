import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties edit KEY`: the tie as text in the user's editor.
    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Change a bow tie's fields in your text editor.",
            discussion: KeyArgument.discussion
                + """


                Opens $VISUAL, else $EDITOR, else vi, on the tie as text: one "field: value" \
                line per field you may change (name, searchKey, rating, isFavorite, url, \
                tintColor, tags), with comments on top that explain the format. Save and quit \
                to apply the change. What the model refuses (a rating of 7, a key another tie \
                uses) reopens the text with the error on top, as `crontab -e` does: fix it, or \
                quit without saving to give up.

                Quitting without saving changes nothing ("No change.", exit 0); so does \
                emptying the file. The wear counts follow `bowties wear`, the photo \
                `bowties photo --set`.
                """)

        @Argument(help: KeyArgument.help, completion: Completions.searchKeys)
        var key: String

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let catalog = try options.openCatalog(.mustExist)
            let original = try catalog.bowTie(matching: key)
            let form = RecordText(entity: original.record.entity, model: BowTieModel.model)
            let editor = Editor()
            let fileName = "bowtie-\(original.searchKey.map(Self.safeFileName) ?? original.id.uuidString).txt"

            var shown = form.render(original.record)
            while true {
                let saved = try editor.edit(shown, fileName: fileName)
                if saved == shown {
                    return try finish(original, catalog, "No change.")
                }
                do {
                    guard let record = try form.parse(saved, onto: original.record) else {
                        return try finish(original, catalog, "No change: the text was empty.")
                    }
                    let (tie, changed) = try catalog.applyEdit(of: original, to: BowTie(record: record))
                    return try finish(tie, catalog, changed ? "Edited \(Output.title(tie))." : "No change.")
                } catch let error as RecordTextError {
                    shown = form.withErrors([error.description], saved)
                } catch let error as BowTiesKit.ValidationError {
                    shown = form.withErrors([error.description], saved)
                } catch let error as CatalogError where error.kind == .conflict || error.kind == .invalidInput {
                    shown = form.withErrors([error.description], saved)
                }
            }
        }

        private func finish(_ tie: BowTie, _ catalog: Catalog, _ message: String) throws {
            if options.json {
                try Output.json(BowTieJSON(tie, catalog: catalog))
            } else {
                Output.line(message)
            }
        }

        /// A search key as part of a file name: letters, digits, `-` and
        /// `_`; anything else becomes `_`.
        static func safeFileName(_ key: String) -> String {
            String(key.prefix(32).map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "_" })
        }
    }
}
