import Games

/// The shells `parlor completions` writes a script for.
public enum CompletionShell: String, Sendable, Hashable, CaseIterable {
    /// GNU bash (the `complete -F` protocol; works with or without the bash-completion package).
    case bash
    /// zsh's completion system (`compinit`), as an autoloadable `_parlor` or sourced.
    case zsh
    /// fish's `complete` builtin.
    case fish
}

/// Shell completion scripts, generated from the same command specs as
/// `--help` and the parser, so a new command or flag completes as soon as it
/// exists.
///
/// Every script completes the same things: command words (and `bench`'s
/// subcommands, and `help`'s topics); each command's options, long and short;
/// the values an option takes where they are a known list (games, bot levels,
/// seats, opponents); and positional arguments that are a known list (a
/// game, a shell). Pure: no I/O.
public enum CompletionScript {
    /// The script for `shell`, ready to be written to a file or sourced.
    public static func script(for shell: CompletionShell) -> String {
        let model = CompletionModel.current
        switch shell {
        case .bash: return BashCompletion(model: model).script
        case .zsh: return ZshCompletion(model: model).script
        case .fish: return FishCompletion(model: model).script
        }
    }
}

/// What every script completes, drawn from `CommandRegistry` and `GameCatalog`.
struct CompletionModel {
    /// A word to offer, with the line of help that describes it.
    struct Word {
        let word: String
        let help: String
    }

    /// One option of one command.
    struct Option {
        let long: String
        let short: String?
        /// Whether the next word is this option's value (`--port 7477`).
        let takesValue: Bool
        /// The values to offer for it; empty when they cannot be listed.
        let values: [String]
        let help: String
    }

    /// A command, by its path as typed (`play`, `bench turns`, `help`).
    struct Command {
        let path: String
        let options: [Option]
        /// The values to offer for each positional argument, in order.
        let arguments: [[Word]]
    }

    /// The words that may follow `parlor`.
    let topLevel: [Word]
    /// Each group's name and its subcommands.
    let groups: [(name: String, children: [Word])]
    /// Every command, `help` included.
    let commands: [Command]

    static var current: CompletionModel {
        let games = GameCatalog.all.map { Word(word: $0.id, help: $0.displayName) }
        let specs = CommandRegistry.specs
        var topLevel: [Word] = []
        for spec in specs where !topLevel.contains(where: { $0.word == spec.path[0] }) {
            if spec.path.count == 1 {
                topLevel.append(Word(word: spec.path[0], help: spec.abstract))
            } else if let group = CommandRegistry.groups.first(where: { $0.name == spec.path[0] }) {
                topLevel.append(Word(word: group.name, help: group.abstract))
            }
        }
        topLevel.append(Word(word: "help", help: "Show help for parlor or for one command."))
        let groups = CommandRegistry.groups.map { group in
            (name: group.name,
             children: specs.filter { $0.path.count == 2 && $0.path[0] == group.name }
                 .map { Word(word: $0.path[1], help: $0.abstract) })
        }
        let helpOption = Option(long: "help", short: "h", takesValue: false, values: [], help: "Show help.")
        var commands = specs.map { spec in
            Command(
                path: spec.name,
                options: spec.options.map { option(for: $0, games: games.map(\.word)) } + [helpOption],
                arguments: spec.arguments.map { candidates(for: $0, games: games) })
        }
        commands.append(Command(path: "help", options: [], arguments: [topLevel.filter { $0.word != "help" }]))
        return CompletionModel(topLevel: topLevel, groups: groups, commands: commands)
    }

    private static func option(for spec: OptionSpec, games: [String]) -> Option {
        var takesValue = false
        var values: [String] = []
        if case .required(let valueName) = spec.kind {
            takesValue = true
            values = candidates(option: spec.name, valueName: valueName, games: games)
        }
        return Option(long: spec.name, short: spec.short.map(String.init), takesValue: takesValue, values: values,
                      help: spec.help)
    }

    /// The values a required-value option takes, where they are a fixed list.
    private static func candidates(option name: String, valueName: String, games: [String]) -> [String] {
        if name == "game" { return games }
        if name == "vs" { return Opponent.spellings }
        if valueName == "LEVEL" { return BotLevelChoice.allCases.map(\.rawValue) }
        // `first|second|random`: the alternatives are spelled out.
        // A placeholder among them (`first|second|random|N`) is not a word to offer.
        let alternatives = valueName.split(separator: "|").map(String.init).filter { $0 != $0.uppercased() }
        if alternatives.count > 1, alternatives.allSatisfy({ $0.allSatisfy { $0.isLowercase || $0.isNumber } }) {
            return alternatives
        }
        return []
    }

    private static func candidates(for argument: ArgumentSpec, games: [Word]) -> [Word] {
        switch argument.name {
        case "GAME": games
        case "SHELL": CompletionShell.allCases.map { Word(word: $0.rawValue, help: "\($0.rawValue) completion script") }
        default: []
        }
    }
}

/// Shell-quoting and case-pattern helpers shared by the three writers.
private enum Shell {
    /// `text` in single quotes, safe in bash, zsh and fish alike.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A one-line description: the first sentence of a help text, without quotes that need escaping.
    static func summary(_ help: String) -> String {
        var line = help.split(separator: "\n").first.map(String.init) ?? ""
        if let end = line.range(of: ". ") { line = String(line[..<end.lowerBound]) }
        if line.hasSuffix(".") { line.removeLast() }
        return line
    }

    /// The three lookup functions bash and zsh share (their `case` syntax is
    /// the same): `_parlor_value_words PATH OPTION` (fails when the option
    /// takes no value), `_parlor_option_words PATH` and
    /// `_parlor_argument_words PATH INDEX`, each filling `array`. Option and
    /// argument words are written by `list`; values are always plain words.
    static func lookupFunctions(_ model: CompletionModel, array: String,
                                list: ([CompletionModel.Word]) -> String) -> String {
        var out = "_parlor_value_words() {\n    case \"$1 $2\" in\n"
        for command in model.commands {
            for option in command.options where option.takesValue {
                var patterns = ["\"\(command.path) --\(option.long)\""]
                if let short = option.short { patterns.append("\"\(command.path) -\(short)\"") }
                out += "        \(patterns.joined(separator: "|"))) \(array)=(\(option.values.map(quoted).joined(separator: " "))); return 0 ;;\n"
            }
        }
        out += "    esac\n    return 1\n}\n\n_parlor_option_words() {\n    case \"$1\" in\n"
        for command in model.commands {
            let flags = command.options.flatMap { option -> [CompletionModel.Word] in
                let help = summary(option.help)
                return [.init(word: "--" + option.long, help: help)] + (option.short.map { [.init(word: "-" + $0, help: help)] } ?? [])
            }
            out += "        \(quoted(command.path))) \(array)=(\(list(flags))) ;;\n"
        }
        out += "        *) \(array)=() ;;\n    esac\n}\n\n_parlor_argument_words() {\n    case \"$1 $2\" in\n"
        for command in model.commands {
            for (index, words) in command.arguments.enumerated() where !words.isEmpty {
                out += "        \"\(command.path) \(index)\") \(array)=(\(list(words))) ;;\n"
            }
        }
        for group in model.groups {
            out += "        \"\(group.name) 0\") \(array)=(\(list(group.children))) ;;\n"
        }
        out += "        \" 0\") \(array)=(\(list(model.topLevel))) ;;\n        *) \(array)=() ;;\n    esac\n}\n"
        return out
    }

    /// How a command's path grows as words are read: `bench` then `bench turns`.
    static func pathStep(_ model: CompletionModel, variable: String) -> String {
        var lines = ["if [[ -z $path ]]; then path=$\(variable)"]
        for group in model.groups {
            lines.append("elif [[ $path == \(group.name) ]]; then path=\"\(group.name) $\(variable)\"")
        }
        lines.append("else (( count++ )); fi")
        return lines.joined(separator: "\n                    ")
    }
}

/// The bash script: `complete -F _parlor parlor`.
private struct BashCompletion {
    let model: CompletionModel

    var script: String {
        var out = """
            # bash completion for parlor, generated by 'parlor completions bash'.
            # Install: parlor completions bash > ~/.local/share/bash-completion/completions/parlor
            # (or add 'source <(parlor completions bash)' to ~/.bashrc).

            """
        out += Shell.lookupFunctions(model, array: "_parlor_words") { $0.map { Shell.quoted($0.word) }.joined(separator: " ") }
        out += """

            _parlor() {
                # Split the line ourselves: bash's COMP_WORDS breaks 'bot:easy' and '--game=x' apart.
                local line=${COMP_LINE:0:COMP_POINT} cur= prev= path= word skip=0 count=0 i
                local -a words _parlor_words
                read -ra words <<< "$line"
                [[ $line == *[[:space:]] || ${#words[@]} -le 1 ]] && words+=("")
                cur=${words[${#words[@]}-1]}
                prev=${words[${#words[@]}-2]}
                for (( i = 1; i < ${#words[@]} - 1; i++ )); do
                    word=${words[i]}
                    if (( skip )); then skip=0; continue; fi
                    case $word in
                        --*=*) ;;
                        -*) _parlor_value_words "$path" "$word" && skip=1 ;;
                        *)  \(Shell.pathStep(model, variable: "word"))
                            ;;
                    esac
                done
                local prefix=
                if [[ $cur == --*=* ]]; then
                    _parlor_value_words "$path" "${cur%%=*}" || _parlor_words=()
                    prefix="${cur%%=*}="
                    cur=${cur#*=}
                elif (( ! skip )) && [[ $cur == -* ]]; then
                    _parlor_option_words "$path"
                elif (( skip )); then
                    _parlor_value_words "$path" "$prev" || _parlor_words=()
                else
                    _parlor_argument_words "$path" "$count"
                fi
                COMPREPLY=()
                for word in "${_parlor_words[@]}"; do
                    [[ $word == "$cur"* ]] && COMPREPLY+=("$prefix$word")
                done
                # bash replaces only the part after the last word break (':' '='): offer that part.
                local typed=$prefix$cur breaks=
                [[ $COMP_WORDBREAKS == *:* ]] && breaks+=:
                [[ $COMP_WORDBREAKS == *=* ]] && breaks+==
                if [[ -n $breaks && $typed == *[$breaks]* ]]; then
                    local head=${typed%[$breaks]*}
                    COMPREPLY=("${COMPREPLY[@]#"$head"?}")
                fi
            }
            complete -F _parlor parlor

            """
        return out
    }
}

/// The zsh script: an autoloadable `_parlor` (`#compdef parlor`) that also works when sourced.
private struct ZshCompletion {
    let model: CompletionModel

    /// `(word:help ...)` for `_describe`.
    private func described(_ words: [CompletionModel.Word]) -> String {
        words.map { Shell.quoted($0.word.replacingOccurrences(of: ":", with: "\\:") + ":" + Shell.summary($0.help)) }
            .joined(separator: " ")
    }

    var script: String {
        var out = """
            #compdef parlor
            # zsh completion for parlor, generated by 'parlor completions zsh'.
            # Install: parlor completions zsh > ~/.zfunc/_parlor, with 'fpath=(~/.zfunc $fpath)'
            # before 'compinit' in ~/.zshrc (or 'source <(parlor completions zsh)' after it).

            """
        out += Shell.lookupFunctions(model, array: "reply", list: described)
        out += """

            _parlor() {
                local cur=${words[CURRENT]} prev=${words[CURRENT-1]} path= word skip=0 count=0 i
                local -a reply
                for (( i = 2; i < CURRENT; i++ )); do
                    word=${words[i]}
                    if (( skip )); then skip=0; continue; fi
                    case $word in
                        --*=*) ;;
                        -*) _parlor_value_words "$path" "$word" && skip=1 ;;
                        *)  \(Shell.pathStep(model, variable: "word"))
                            ;;
                    esac
                done
                if [[ $cur == --*=* ]]; then
                    _parlor_value_words "$path" "${cur%%=*}" || reply=()
                    compset -P '*='
                    compadd -a reply
                elif (( skip )); then
                    _parlor_value_words "$path" "$prev" || reply=()
                    compadd -a reply
                elif [[ $cur == -* ]]; then
                    _parlor_option_words "$path"
                    _describe -t options 'option' reply
                else
                    _parlor_argument_words "$path" "$count"
                    _describe -t values 'argument' reply
                fi
            }

            if [[ $funcstack[1] == _parlor ]]; then
                _parlor "$@"
            else
                compdef _parlor parlor
            fi

            """
        return out
    }
}

/// The fish script: one `complete` line per word, with conditions computed by `__parlor_at`.
private struct FishCompletion {
    let model: CompletionModel

    var script: String {
        var out = """
            # fish completion for parlor, generated by 'parlor completions fish'.
            # Install: parlor completions fish > ~/.config/fish/completions/parlor.fish

            # Whether the command typed so far is PATH (e.g. 'play', 'bench turns'),
            # with COUNT positional arguments after it when COUNT is given.
            function __parlor_at
                set -l tokens (commandline -opc)
                set -e tokens[1]
                set -l path ''
                set -l count 0
                set -l skip 0
                for word in $tokens
                    if test $skip = 1
                        set skip 0
                        continue
                    end
                    switch $word
                        case '--*=*'
                        case '-*'
                            if contains -- "$path $word" $__parlor_value_options
                                set skip 1
                            end
                        case '*'
                            if test -z "$path"
                                set path $word

            """
        for group in model.groups {
            out += """
                                else if test "$path" = \(group.name)
                                    set path "\(group.name) $word"

                """
        }
        out += """
                            else
                                set count (math $count + 1)
                            end
                    end
                end
                test "$path" = "$argv[1]"; or return 1
                test (count $argv) -lt 2; and return 0
                # At an option's value, no positional argument is offered.
                test $skip = 0; and test $count = $argv[2]
            end

            complete -c parlor -f

            """
        var valueOptions: [String] = []
        for command in model.commands {
            for option in command.options where option.takesValue {
                valueOptions.append("\(command.path) --\(option.long)")
                if let short = option.short { valueOptions.append("\(command.path) -\(short)") }
            }
        }
        out += "set -g __parlor_value_options \(valueOptions.map(Shell.quoted).joined(separator: " "))\n"
        for word in model.topLevel {
            out += "complete -c parlor -n '__parlor_at \"\" 0' -a \(Shell.quoted(word.word)) -d \(Shell.quoted(Shell.summary(word.help)))\n"
        }
        for group in model.groups {
            for child in group.children {
                out += "complete -c parlor -n '__parlor_at \(group.name) 0' -a \(Shell.quoted(child.word)) -d \(Shell.quoted(Shell.summary(child.help)))\n"
            }
        }
        for command in model.commands {
            let at = Shell.quoted("__parlor_at '\(command.path)'").replacingOccurrences(of: "'\\''", with: "\\'")
            for option in command.options {
                var line = "complete -c parlor -n \(at) -l \(option.long)"
                if let short = option.short { line += " -s \(short)" }
                if option.takesValue {
                    line += " -x"
                    if !option.values.isEmpty { line += " -a \(Shell.quoted(option.values.joined(separator: " ")))" }
                }
                out += line + " -d \(Shell.quoted(Shell.summary(option.help)))\n"
            }
            for (index, words) in command.arguments.enumerated() {
                for word in words {
                    let condition = Shell.quoted("__parlor_at '\(command.path)' \(index)").replacingOccurrences(of: "'\\''", with: "\\'")
                    out += "complete -c parlor -n \(condition) -a \(Shell.quoted(word.word)) -d \(Shell.quoted(Shell.summary(word.help)))\n"
                }
            }
        }
        return out
    }
}
