import ArgumentParser
import BowTiesKit
import Foundation

/// What the shell completion scripts (`bowties --generate-completion-script
/// bash|zsh|fish`) offer beyond commands and options: the catalog's search
/// keys, and the query language's fields.
///
/// The script runs `bowties ---completion …` at each Tab; these closures
/// run then. They open the catalog read-only (the one `--store` on the
/// line names, else the default) and answer nothing rather than fail:
/// a Tab must never print an error.
enum Completions {
    /// Search keys of the catalog, for arguments that take a tie's key.
    static let searchKeys = CompletionKind.custom { words, _, prefix in
        keys(prefix: prefix, words: words)
    }

    /// Query terms: `field:` for every declared attribute, `is:`, `has:`,
    /// `tag:` and `sort:` forms, and the catalog's keys and tags.
    static let queryTerms = CompletionKind.custom { words, _, prefix in
        queryTerms(prefix: prefix, words: words)
    }

    /// Field names for `--fields a,b,c`: the export's fields not yet on
    /// the list, each after what is already typed (`searchKey,na` offers
    /// `searchKey,name`), since the shell completes the whole word.
    static let fieldNames = CompletionKind.custom { _, _, prefix in
        fieldNames(prefix: prefix)
    }

    static func fieldNames(prefix: String) -> [String] {
        let typed = prefix.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let given = typed.dropLast()
        let partial = typed.last ?? ""
        let head = given.isEmpty ? "" : given.joined(separator: ",") + ","
        return Catalog.exportFieldNames.filter { !given.contains($0) && $0.hasPrefix(partial) }.map { head + $0 }
    }

    static func queryTerms(prefix: String, words: [String]) -> [String] {
        let attributes = BowTieModel.entity.attributes
        if prefix.hasPrefix("tag:") || prefix.hasPrefix("^tag:") {
            let negation = prefix.hasPrefix("^") ? "^" : ""
            let tags = (try? catalog(words: words)?.tags().map(\.name)) ?? []
            return printable(tags).map { negation + "tag:" + $0 }.filter {
                $0.lowercased().hasPrefix(prefix.lowercased())
            }
        }
        var terms: [String] = []
        for attribute in attributes {
            terms.append(attribute.name + ":")
            terms.append("sort:" + attribute.name + "-")
            terms.append("sort:" + attribute.name + "+")
            if attribute.type == .boolean { terms.append("is:" + attribute.name) }
            if attribute.isOptional { terms.append("has:" + attribute.name) }
        }
        terms += ["is:favorite", "has:photo", "has:tags", "tag:"]
        var seen: Set<String> = []
        terms = terms.filter { seen.insert($0).inserted }
        let matching = terms.filter { $0.hasPrefix(prefix) || ("^" + $0).hasPrefix(prefix) }
            .map { prefix.hasPrefix("^") ? "^" + $0 : $0 }
        if prefix.contains(":") { return matching }
        return matching + keys(prefix: prefix, words: words)
    }

    static func keys(prefix: String, words: [String]) -> [String] {
        printable((try? catalog(words: words)?.searchKeys(startingWith: prefix)) ?? [])
    }

    /// Words a shell can offer as they are: none with a control
    /// character, which the terminal would obey when the list is shown.
    private static func printable(_ words: [String]) -> [String] {
        words.filter { word in !word.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } }
    }

    /// The catalog `--store` names on the line being completed, else
    /// `$BOWTIES_STORE` or the default; nil when there is none.
    private static func catalog(words: [String]) throws -> Catalog? {
        var explicit: String?
        for (index, word) in words.enumerated() {
            if word == "--store", index + 1 < words.count {
                explicit = words[index + 1]
            } else if word.hasPrefix("--store=") {
                explicit = String(word.dropFirst("--store=".count))
            }
        }
        let url = StoreLocation.resolve(explicit: explicit.map { NSString(string: $0).expandingTildeInPath })
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try Catalog(url: url, mode: .readOnly, wait: WaitPolicy(limit: 0.5))
    }

    /// The fish script, when `arguments` ask for it
    /// (`--generate-completion-script fish`, or no shell and fish is the
    /// user's): swift-argument-parser's, with one repair. Nil for any
    /// other arguments, which ArgumentParser then handles.
    ///
    /// The script passes the cursor's place in the word being completed as
    /// `commandline -tC`. Fish 3 refuses that (an error, and no number)
    /// whenever the command line is one `complete -C` was given rather than
    /// the one being edited: in scripts, in tests, and whenever fish
    /// completes a command after another (`env X=1 bowties show <Tab>`,
    /// `sudo bowties …`). The script then calls `bowties ---completion`
    /// without the number and ArgumentParser answers "Invalid state": no
    /// key, tag or field was ever offered there. In that case the cursor
    /// is at the end of the word, so its length is the place.
    static func fishScript(for arguments: [String]) -> String? {
        let shell: CompletionShell?
        switch arguments.count {
        case 1 where arguments[0] == "--generate-completion-script": shell = CompletionShell.autodetected()
        case 1 where arguments[0].hasPrefix("--generate-completion-script="):
            shell = CompletionShell(rawValue: String(arguments[0].dropFirst("--generate-completion-script=".count)))
        case 2 where arguments[0] == "--generate-completion-script": shell = CompletionShell(rawValue: arguments[1])
        default: shell = nil
        }
        guard shell == .fish else { return nil }
        let script = BowTies.completionScript(for: .fish)
        let cursorCall = "(__bowties_tokens -tC)"
        // Kept as it is once a release of ArgumentParser asks otherwise.
        guard script.contains(cursorCall) else { return script }
        return script.replacingOccurrences(of: cursorCall, with: "(__bowties_cursor_index)") + """

            # bowties: the cursor's place in the word being completed. Fish 3
            # cannot say under `complete -C` (`env X=1 bowties show <Tab>`);
            # there the cursor is at the end of the word.
            function __bowties_cursor_index
                commandline -tC 2>/dev/null
                or string length -- "$(commandline -ct)"
            end

            """
    }
}
