import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties photo KEY [--output FILE | --set FILE | --remove]`.
    struct Photo: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "photo",
            abstract: "Save, replace or remove a bow tie's photo, or describe it.",
            discussion: KeyArgument.discussion + """


                Without an option, describes the photo. Photos up to the store's threshold \
                (100 KiB unless `bowties config` says otherwise) are kept inside the catalog; \
                larger ones in files named by their SHA-256 beside it, shared by identical \
                photos and removed when no tie uses them any more.

                Every read checks the photo against its SHA-256. A missing or damaged photo \
                is described as such, with a warning (exit 0); --output then exits 74 and \
                writes nothing. `bowties check --repair` sets such a photo to none.
                """)

        @Argument(help: KeyArgument.help, completion: Completions.searchKeys)
        var key: String

        @Option(
            help: ArgumentHelp("Write the photo to this file ('-' for standard output).", valueName: "file"),
            completion: .file())
        var output: String?

        @Option(help: ArgumentHelp("Replace the photo with this image file.", valueName: "file"), completion: .file())
        var set: String?

        @Flag(help: "Remove the photo.")
        var remove = false

        @OptionGroup var options: CatalogOptions

        func validate() throws {
            let chosen = [output != nil, set != nil, remove].filter { $0 }.count
            guard chosen <= 1 else {
                throw ArgumentParser.ValidationError("Choose one of --output, --set and --remove.")
            }
            if output == "-", Terminal.isTerminal(1) {
                throw ArgumentParser.ValidationError(
                    "--output - would write the photo's bytes to the terminal: write it to a file with "
                        + "--output FILE (e.g. --output tie.png), or redirect standard output.")
            }
        }

        func run() throws {
            let catalog = try options.openCatalog(set != nil || remove ? .mustExist : .readOnly)
            if let set {
                let data = try Catalog.readPhotoFile(at: URL(fileURLWithPath: set))
                let tie = try catalog.setPhoto(key, data: data)
                try report(tie, catalog, "Saved the photo of")
            } else if remove {
                let tie = try catalog.setPhoto(key, data: nil)
                try report(tie, catalog, "Removed the photo of")
            } else if let output {
                let tie = try catalog.bowTie(matching: key)
                if output == "-" {
                    guard let data = try catalog.photoData(for: tie) else {
                        throw CatalogError(.noSuchRecord, "\(tie.label) has no photo")
                    }
                    FileHandle.standardOutput.write(data)
                } else {
                    let count = try catalog.writePhoto(of: tie, to: URL(fileURLWithPath: output))
                    if options.json {
                        try Output.json(PhotoFileJSON(file: output, bytes: count))
                    } else {
                        Output.line(
                            "Wrote the photo of \(Output.title(tie)) to \(output) (\(Output.grouped(count)) bytes).")
                    }
                }
            } else {
                let tie = try catalog.bowTie(matching: key)
                try report(tie, catalog, nil)
            }
        }

        /// Describes the photo as `show` does: a damaged one is described
        /// and warned about, and the command still succeeds.
        private func report(_ tie: BowTie, _ catalog: Catalog, _ action: String?) throws {
            let photo = try CheckedPhoto(of: tie, in: catalog)
            photo?.warnIfDamaged(tie)
            if options.json {
                try Output.json(BowTieJSON(tie, catalog: catalog, checked: photo))
                return
            }
            if let action { Output.line("\(action) \(Output.title(tie)).") }
            guard let photo else {
                Output.line("\(Output.title(tie)) has no photo.")
                return
            }
            Output.line(photo.line)
            Output.line("SHA-256: \(photo.info.sha256)")
        }
    }
}

private struct PhotoFileJSON: Encodable {
    var file: String
    var bytes: Int
}
