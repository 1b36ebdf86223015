import Testing
@testable import TerminalUI

/// The frontend a match is shown with, for the flags and the terminal a person has.
@Suite struct FrontendChoiceTests {
    static let xterm = ["TERM": "xterm-256color", "LANG": "en_GB.UTF-8"]

    @Test func aColourTerminalGetsTheFullScreenWithColourAndTheBell() throws {
        let choice = FrontendChoice(output: .automatic, environment: Self.xterm, colorAllowed: true, ascii: false, bell: true, isTTY: true)
        let screen = try #require(choice.frontend as? FullScreenFrontend)
        #expect(choice.isFullScreen && !choice.isJSON)
        #expect(screen.options.usesColor && screen.options.unicode && screen.options.bell)
    }

    @Test func aPipeOrADumbTerminalGetsPlainLinesWithoutUnicodeIntoThePipe() throws {
        let piped = FrontendChoice(output: .automatic, environment: Self.xterm, colorAllowed: true, ascii: false, bell: true, isTTY: false)
        let plain = try #require(piped.frontend as? PlainFrontend)
        #expect(!piped.isFullScreen && !plain.options.unicode && !plain.options.usesColor)
        let dumb = FrontendChoice(output: .automatic, environment: ["TERM": "dumb", "LANG": "C.UTF-8"], colorAllowed: true,
                                  ascii: false, bell: true, isTTY: true)
        #expect(dumb.frontend is PlainFrontend && !dumb.isFullScreen)
    }

    @Test func theFlagsWinOverTheTerminal() throws {
        let plain = FrontendChoice(output: .plain, environment: Self.xterm, colorAllowed: true, ascii: false, bell: true, isTTY: true)
        #expect(try #require(plain.frontend as? PlainFrontend).options.unicode, "--plain on a UTF-8 terminal keeps Unicode pieces")
        let json = FrontendChoice(output: .json, environment: Self.xterm, colorAllowed: true, ascii: false, bell: true, isTTY: true)
        #expect(json.frontend is JSONFrontend && json.isJSON && !json.isFullScreen)
        let ascii = FrontendChoice(output: .automatic, environment: Self.xterm, colorAllowed: false, ascii: true, bell: false, isTTY: true)
        let screen = try #require(ascii.frontend as? FullScreenFrontend)
        #expect(!screen.options.usesColor && !screen.options.unicode && !screen.options.bell)
    }
}
