// `parlor join` with no name on a terminal: the games found, numbered, and a
// line read to choose one. The words and the answers live here; what a
// number stands for (a game on the LAN) is the caller's.

/// Asks which of a numbered list to take, one line at a time.
public struct NumberedChoice: Sendable {
    /// What the person answered.
    public enum Answer: Hashable, Sendable {
        /// The candidate at this index (0-based) of the list shown.
        case chosen(Int)
        /// Enter on its own: look again (the list may have changed).
        case lookAgain
        /// q, or the end of input.
        case cancelled
    }

    private let say: @Sendable (String) -> Void
    private let readLine: @Sendable () async -> String?

    /// Writes the lists and prompts through `say` (stdout, or stderr beside
    /// `--json`) and reads each answer with `readLine` (a line from the terminal).
    public init(say: @escaping @Sendable (String) -> Void,
                readLine: @escaping @Sendable () async -> String? = { await LinePrompt.line() }) {
        self.say = say
        self.readLine = readLine
    }

    /// Shows `numbered` (one line per candidate and its heading, numbered from 1)
    /// and asks for a number from 1 to `count` until one is given, Enter or q;
    /// with no candidate (`count` 0), shows `seen` (every game found, none
    /// joinable) and asks whether to look again.
    public func ask(numbered: [String], count: Int, seen: [String]) async -> Answer {
        if count == 0 {
            var text = seen.isEmpty ? "No games found on the LAN.\n"
                : "No game on the LAN can be joined now:\n" + seen.joined(separator: "\n") + "\n"
            text += "Press Enter to look again, or q to quit: "
            say(text)
            guard let line = await readLine() else { return .cancelled }
            return Self.trimmed(line).lowercased().hasPrefix("q") ? .cancelled : .lookAgain
        }
        say("Games you can join:\n" + numbered.joined(separator: "\n") + "\n")
        while true {
            say("Join which game? [1-\(count), Enter to look again, q to quit]: ")
            guard let line = await readLine() else { return .cancelled }
            let answer = Self.trimmed(line).lowercased()
            if answer.isEmpty { return .lookAgain }
            if answer.hasPrefix("q") { return .cancelled }
            if let number = Int(answer), (1...count).contains(number) { return .chosen(number - 1) }
            say("'\(Self.shown(answer))' is not one of the numbers shown.\n")
        }
    }

    /// `line` without leading and trailing whitespace.
    private static func trimmed(_ line: String) -> String {
        String(line.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    /// An answer echoed back, control and bidirectional characters shown as `\u{1B}` so it cannot drive the terminal.
    private static func shown(_ answer: String) -> String {
        answer.unicodeScalars.map { scalar in
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: String(scalar)
            }
        }.joined()
    }
}
