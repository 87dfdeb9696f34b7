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
}
