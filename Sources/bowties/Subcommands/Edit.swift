import ArgumentParser
import BowTiesKit
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

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
                uses) is said, and bowties asks whether to edit again; yes reopens the text \
                with the error on top, as `crontab -e` does: fix it, or quit without saving to \
                give up. When standard input is not a terminal, there is no one to ask: a \
                refused edit stops with the error (exit 65), and the edited text is kept in a \
                file of the temporary folder that the error names.

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
                    // Back unchanged: nothing to do, or, after a refusal,
                    // the user gave up on the text.
                    return try finish(original, catalog, "No change.")
                }
                let refusal: String
                do {
                    guard let record = try form.parse(saved, onto: original.record) else {
                        return try finish(original, catalog, "No change: the text was empty.")
                    }
                    let (tie, changed) = try catalog.applyEdit(of: original, to: BowTie(record: record))
                    return try finish(tie, catalog, changed ? "Edited \(Output.title(tie))." : "No change.")
                } catch let error as RecordTextError {
                    refusal = error.description
                } catch let error as BowTiesKit.ValidationError {
                    refusal = error.description
                } catch let error as CatalogError where error.kind == .conflict || error.kind == .invalidInput {
                    refusal = error.description
                }
                shown = form.withErrors([refusal], saved)
                // Reopening without a person to ask would loop for as
                // long as the editor (a script) keeps returning bad text.
                guard Terminal.isTerminal(0), Self.askToEditAgain(refusal) else {
                    throw Self.refusedEdit(refusal, text: shown, fileName: fileName, key: key)
                }
            }
        }

        /// Asks on the terminal whether to reopen the refused text:
        /// `[Y/n]`, where Enter or yes reopens, and anything else or the
        /// end of input declines.
        private static func askToEditAgain(_ refusal: String) -> Bool {
            Terminal.standardError.write("The edit was refused: \(refusal)\nEdit again? [Y/n] ")
            guard let answer = readLine(strippingNewline: true) else {
                Terminal.standardError.write("\n")
                return false
            }
            return ["", "y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
        }

        /// The error of an edit given up after a refusal (exit 65), the
        /// edited text kept in a file the user can find, as `kubectl
        /// edit` keeps it: the temporary file goes with the editor.
        private static func refusedEdit(_ refusal: String, text: String, fileName: String, key: String)
            -> CatalogError
        {
            let kept: String
            do {
                kept = "your edited text is saved in \(try keep(text, fileName: fileName).path)"
            } catch {
                kept = "your edited text could not be saved: \(error)"
            }
            return CatalogError(
                .invalidInput, "the edit was refused: \(refusal)",
                hint: "Nothing was changed; \(kept), to copy from when you run `bowties edit \(key)` again.")
        }

        /// Writes `text` to a new file of the temporary folder, private to
        /// the user (0600), named after `fileName`:
        /// `/tmp/bowtie-R-1a2B3c.txt`.
        private static func keep(_ text: String, fileName: String) throws -> URL {
            let stem = fileName.hasSuffix(".txt") ? String(fileName.dropLast(4)) : fileName
            var template = Array(
                (FileManager.default.temporaryDirectory.path + "/\(stem)-XXXXXX.txt").utf8CString)
            let descriptor = template.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress.map { mkstemps($0, 4) } ?? -1
            }
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            try handle.write(contentsOf: Data(text.utf8))
            let path = template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            return URL(fileURLWithPath: String(decoding: path, as: UTF8.self))
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
