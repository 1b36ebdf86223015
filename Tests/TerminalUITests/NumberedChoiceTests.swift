import Synchronization
import Testing
@testable import TerminalUI

/// `parlor join` with no name: the numbered list, and what each answer does.
@Suite struct NumberedChoiceTests {
    /// A choice that reads `answers` one by one (then the end of input) and keeps what it said.
    final class Script: Sendable {
        let answers: Mutex<[String]>
        let said = Mutex("")
        init(_ answers: [String]) { self.answers = Mutex(answers) }
        var choice: NumberedChoice {
            NumberedChoice(say: { text in self.said.withLock { $0 += text } },
                           readLine: { self.answers.withLock { $0.isEmpty ? nil : $0.removeFirst() } })
        }
    }

    static let rows = ["     NAME", "  1  Ana's Connect Four", "  2  Bo's Reversi"]

    @Test(arguments: [(["2"], NumberedChoice.Answer.chosen(1)), ([" 1 "], .chosen(0)), ([""], .lookAgain),
                      (["Q"], .cancelled), ([], .cancelled), (["3", "x", "1"], .chosen(0))])
    func anAnswerChoosesLooksAgainOrLeaves(answers: [String], expected: NumberedChoice.Answer) async {
        let script = Script(answers)
        #expect(await script.choice.ask(numbered: Self.rows, count: 2, seen: []) == expected)
        let said = script.said.withLock { $0 }
        #expect(said.hasPrefix("Games you can join:\n" + Self.rows.joined(separator: "\n") + "\n"))
        #expect(said.contains("Join which game? [1-2, Enter to look again, q to quit]: "))
    }

    @Test func aNumberNotShownIsSaidBackSafelyAndAskedAgain() async {
        let script = Script(["7", "\u{1B}[2J", "2"])
        #expect(await script.choice.ask(numbered: Self.rows, count: 2, seen: []) == .chosen(1))
        let said = script.said.withLock { $0 }
        #expect(said.contains("'7' is not one of the numbers shown.\n"))
        #expect(said.contains("'\\u{1B}[2j' is not one of the numbers shown.\n"))
        #expect(!said.contains("\u{1B}"))
    }

    @Test func withNothingJoinableItSaysWhatWasSeenAndOffersToLookAgain() async {
        let nothing = Script([""])
        #expect(await nothing.choice.ask(numbered: [], count: 0, seen: []) == .lookAgain)
        #expect(nothing.said.withLock { $0 } == "No games found on the LAN.\nPress Enter to look again, or q to quit: ")

        let full = Script(["q"])
        #expect(await full.choice.ask(numbered: [], count: 0, seen: ["Ana's Connect Four  playing"]) == .cancelled)
        #expect(full.said.withLock { $0 }
                == "No game on the LAN can be joined now:\nAna's Connect Four  playing\nPress Enter to look again, or q to quit: ")
    }
}
