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
        // A path that does not start with `~` is taken as it is, without
        // `NSString`'s bridge (0.6 M instructions at every Tab).
        let url = StoreLocation.resolve(
            explicit: explicit.map { $0.hasPrefix("~") ? NSString(string: $0).expandingTildeInPath : $0 })
        guard FileManager.default.fileExists(atPath: url.fileSystemPath) else { return nil }
        return try Catalog(url: url, mode: .readOnly, wait: WaitPolicy(limit: 0.5))
    }

    /// The completion script `arguments` ask for
    /// (`--generate-completion-script bash|zsh|fish`, or no shell: the
    /// user's): swift-argument-parser's, with bowties' repairs
    /// (``bashRepairs``, ``zshScript(_:)``, ``fishScript(_:)``). Nil for
    /// any other arguments, which ArgumentParser then handles.
    static func script(for arguments: [String]) -> String? {
        let shell: CompletionShell?
        switch arguments.count {
        case 1 where arguments[0] == "--generate-completion-script": shell = CompletionShell.autodetected()
        case 1 where arguments[0].hasPrefix("--generate-completion-script="):
            shell = CompletionShell(rawValue: String(arguments[0].dropFirst("--generate-completion-script=".count)))
        case 2 where arguments[0] == "--generate-completion-script": shell = CompletionShell(rawValue: arguments[1])
        default: shell = nil
        }
        switch shell {
        case .bash?: return BowTies.completionScript(for: .bash) + bashRepairs
        case .zsh?: return zshScript(BowTies.completionScript(for: .zsh))
        case .fish?: return fishScript(BowTies.completionScript(for: .fish))
        default: return nil
        }
    }

    /// `--color` before the command's name (`bowties --color never list`),
    /// which ``BowTies/extractingColorChoice(_:)`` and every command read
    /// but the root command does not declare: ArgumentParser's scripts
    /// offered command names after it. Its values, for each shell.
    static let colorValues = Terminal.ColorChoice.allCases.map(\.rawValue)

    /// What the bash script needs beyond ArgumentParser's: a function that
    /// runs first, registered in place of `_bowties`.
    ///
    /// Bash splits the line at the characters of `COMP_WORDBREAKS`, `:`
    /// among them, so for `list sort:ra` ArgumentParser's function saw the
    /// word `ra`, and bowties completed it to `rating:`, which bash then
    /// put after `sort:` as `sort:rating\:`; `tag:f` offered nothing. As
    /// bash-completion's `_get_comp_words_by_ref -n :` and
    /// `__ltrim_colon_completions` do, the function joins the words a
    /// colon split (`sort`, `:`, `ra` is `sort:ra`: no blank between them
    /// on the line) before ArgumentParser's function reads them, and takes
    /// the part up to the last colon off each completion after, since bash
    /// replaces only what follows that colon. Self-contained: the script
    /// works without the bash-completion package.
    ///
    /// It also offers auto, always and never after a `--color` that comes
    /// before the command's name.
    static var bashRepairs: String {
        let commands = BowTies.commandNames.joined(separator: "|")
        return """


            # bowties: query terms hold colons (sort:rating-, tag:formal, name::REGEX),
            # and bash splits words at the characters of COMP_WORDBREAKS, ':' among
            # them. Join what a colon split before the function above reads the
            # words, and take the part up to the last colon off each completion,
            # which bash puts after that colon (as bash-completion's
            # __ltrim_colon_completions does).
            __bowties_colon_words() {
                local rest="${COMP_LINE}" word joined_prefix=''
                local -i i j=-1 glue
                local previous=''
                __bowties_words=()
                __bowties_cword=0
                __bowties_cur="${2}"
                for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
                    word="${COMP_WORDS[i]}"
                    glue=0
                    if [[ "${rest}" == [[:blank:]]* ]]; then
                        rest="${rest#"${rest%%[![:blank:]]*}"}"
                    elif ((j >= 1)) && [[ ( -n "${word}" && -z "${word//:/}" ) || ( -n "${previous}" && -z "${previous//:/}" ) ]]; then
                        glue=1
                    fi
                    if [[ "${rest}" == "${word}"* ]]; then
                        rest="${rest#"${word}"}"
                    else
                        # The line does not read as the words do: leave them.
                        __bowties_words=("${COMP_WORDS[@]}")
                        __bowties_cword="${COMP_CWORD}"
                        __bowties_cur="${2}"
                        return
                    fi
                    if ((glue)); then
                        joined_prefix="${__bowties_words[j]}"
                        __bowties_words[j]+="${word}"
                    else
                        joined_prefix=''
                        __bowties_words[++j]="${word}"
                    fi
                    if ((i == COMP_CWORD)); then
                        __bowties_cword=j
                        # Bash gives an empty current word when it is the colon.
                        if [[ -z "${2}" && -n "${word}" && -z "${word//:/}" ]]; then
                            __bowties_cur="${joined_prefix}${word}"
                        else
                            __bowties_cur="${joined_prefix}${2}"
                        fi
                    fi
                    previous="${word}"
                done
                # The cursor after a blank at the end of the line: a new, empty word.
                ((COMP_CWORD >= ${#COMP_WORDS[@]})) && __bowties_cword=$((j + 1)) && __bowties_words[j + 1]=''
            }

            __bowties_complete_joined() {
                local -a __bowties_words
                local -i __bowties_cword
                local __bowties_cur
                __bowties_colon_words "$@"
                local -a COMP_WORDS=("${__bowties_words[@]}")
                local -i COMP_CWORD="${__bowties_cword}"
                local cur="${__bowties_cur}" prev="${__bowties_words[__bowties_cword - 1]}"
                COMPREPLY=()
                # --color before the command's name: its values, not command names.
                if [[ "${prev}" == --color ]]; then
                    local -i k named=0
                    for ((k = 1; k < COMP_CWORD - 1; k++)); do
                        case "${COMP_WORDS[k]}" in
                        \(commands)) named=1 ;;
                        esac
                    done
                    if ((!named)); then
                        COMPREPLY=($(compgen -W '\(colorValues.joined(separator: " "))' -- "${cur}"))
                        return
                    fi
                fi
                # `bowties --color never show <Tab>`: the function below knows
                # no --color before the command's name; complete without it.
                local COMP_LINE="${COMP_LINE}" head tail
                local -i COMP_POINT="${COMP_POINT}" k
                for ((k = 1; k < COMP_CWORD - 1; k++)); do
                    case "${COMP_WORDS[k]}" in
                    \(commands)) break ;;
                    --color)
                        head="${COMP_LINE%%--color*}"
                        tail="${COMP_LINE#*--color}"
                        tail="${tail#"${tail%%[![:blank:]]*}"}"
                        tail="${tail#"${COMP_WORDS[k + 1]}"}"
                        tail="${tail#"${tail%%[![:blank:]]*}"}"
                        COMP_POINT=$((COMP_POINT - ${#COMP_LINE} + ${#head} + ${#tail}))
                        COMP_LINE="${head}${tail}"
                        COMP_WORDS=("${COMP_WORDS[@]:0:k}" "${COMP_WORDS[@]:k+2}")
                        COMP_CWORD=$((COMP_CWORD - 2))
                        break
                        ;;
                    esac
                done
                _bowties "${1}" "${cur}" "${prev}"
                # A field (rating:) goes on with its value: no space, and no
                # backslash before the colon, which -o filenames would add.
                if [[ "${COMPREPLY[*]}" == *: || "${COMPREPLY[*]}" == *:\\ * ]]; then
                    compopt +o filenames -o nospace 2>/dev/null
                fi
                if [[ "${cur}" == *:* && "${COMP_WORDBREAKS}" == *:* ]]; then
                    local colon_prefix="${cur%"${cur##*:}"}" completion
                    local -a trimmed=()
                    for completion in "${COMPREPLY[@]}"; do
                        completion="${completion#"${colon_prefix}"}"
                        # Nothing left: what is typed is complete.
                        [[ -n "${completion}" ]] && trimmed+=("${completion}")
                    done
                    COMPREPLY=("${trimmed[@]}")
                fi
            }

            complete -o filenames -F __bowties_complete_joined bowties

            """
    }

    /// The zsh script, with `--color` and its values among the root
    /// command's options (see ``colorValues``).
    static func zshScript(_ script: String) -> String {
        let rootSpecs = """
                    '--version[Show the version.]'
                    '(-h --help)'{-h,--help}'[Show help information.]'
                    '(-): :->command'
            """
        let values = colorValues.joined(separator: " ")
        let color = "        '--color[When to colour the output\\: auto, always or never.]:when:(\(values))'\n"
        guard let range = script.range(of: rootSpecs) else { return script }
        return script.replacingCharacters(in: range, with: color + rootSpecs)
    }

    /// The fish script, with two repairs.
    ///
    /// `--color` before the command's name: the root's parser learns that
    /// it takes a value, and its values are offered (``colorValues``).
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
    static func fishScript(_ generated: String) -> String {
        var script = generated
        let rootParse = "__bowties_parse_subcommand 0 'version' 'h/help'"
        if script.contains(rootParse) {
            script = script.replacingOccurrences(
                of: rootParse, with: "__bowties_parse_subcommand 0 'color=' 'version' 'h/help'")
            script += """

                # bowties: --color before the command's name.
                complete -c 'bowties' -n '__bowties_should_offer_completions_for_flags_or_options "bowties" color' \
                -l 'color' -d 'When to colour the output: auto, always or never.' -rfka '\(colorValues.joined(separator: " "))'

                """
        }
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
