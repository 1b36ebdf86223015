import Testing
@testable import TerminalUI

@Suite("Display options")
struct DisplayOptionsTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var environment: [String: String]
        var isTTY = true
        var noColor = false
        var ascii = false
        var depth: ColorDepth
        var unicode: Bool
        var plain: Bool
        var testDescription: String { "\(environment) tty=\(isTTY) --no-color=\(noColor) --ascii=\(ascii)" }
    }

    static let utf8 = "en_US.UTF-8"
    static let cases: [Case] = [
        Case(environment: ["TERM": "xterm-256color", "LANG": utf8], depth: .palette256, unicode: true, plain: false),
        Case(environment: ["TERM": "screen-256color", "LANG": utf8], depth: .palette256, unicode: true, plain: false),
        Case(environment: ["TERM": "tmux-256color", "LANG": utf8], depth: .palette256, unicode: true, plain: false),
        Case(environment: ["TERM": "xterm", "LANG": utf8], depth: .basic16, unicode: true, plain: false),
        Case(environment: ["TERM": "linux", "LANG": utf8], depth: .basic16, unicode: true, plain: false),
        Case(environment: ["TERM": "screen", "LANG": utf8], depth: .basic16, unicode: true, plain: false),
        Case(environment: ["TERM": "vt100", "LANG": utf8], depth: .none, unicode: true, plain: false),
        // COLORTERM is not needed, but raises the depth when an SSH client does pass it.
        Case(environment: ["TERM": "xterm", "COLORTERM": "truecolor", "LANG": utf8], depth: .palette256, unicode: true, plain: false),
        // NO_COLOR wins over everything, even when empty.
        Case(environment: ["TERM": "xterm-256color", "NO_COLOR": "", "LANG": utf8], depth: .none, unicode: true, plain: false),
        Case(environment: ["TERM": "xterm-256color", "NO_COLOR": "1", "COLORTERM": "truecolor"], depth: .none, unicode: false, plain: false),
        Case(environment: ["TERM": "xterm-256color", "LANG": utf8], noColor: true, depth: .none, unicode: true, plain: false),
        // dumb or unset TERM: plain mode.
        Case(environment: ["TERM": "dumb", "LANG": utf8], depth: .none, unicode: true, plain: true),
        Case(environment: ["LANG": utf8], depth: .none, unicode: true, plain: true),
        Case(environment: ["TERM": "xterm-256color", "LANG": utf8], isTTY: false, depth: .none, unicode: true, plain: true),
        // Locale: LC_ALL beats LC_CTYPE beats LANG; C/POSIX or nothing means ASCII.
        Case(environment: ["TERM": "xterm", "LC_ALL": "C", "LANG": utf8], depth: .basic16, unicode: false, plain: false),
        Case(environment: ["TERM": "xterm", "LC_CTYPE": "de_DE.utf8", "LANG": "C"], depth: .basic16, unicode: true, plain: false),
        Case(environment: ["TERM": "xterm", "LC_ALL": "", "LANG": "C.UTF-8"], depth: .basic16, unicode: true, plain: false),
        Case(environment: ["TERM": "xterm", "LANG": "POSIX"], depth: .basic16, unicode: false, plain: false),
        Case(environment: ["TERM": "xterm"], depth: .basic16, unicode: false, plain: false),
        Case(environment: ["TERM": "xterm", "LANG": utf8], ascii: true, depth: .basic16, unicode: false, plain: false),
    ]

    @Test("detection from TERM, NO_COLOR, the locale and flags", arguments: cases)
    func detect(_ testCase: Case) {
        let options = DisplayOptions.detect(environment: testCase.environment, isTTY: testCase.isTTY,
                                            noColorFlag: testCase.noColor, asciiFlag: testCase.ascii)
        #expect(options.colorDepth == testCase.depth)
        #expect(options.unicode == testCase.unicode)
        #expect(options.prefersPlainMode == testCase.plain)
    }

    @Test("no colour code is written when NO_COLOR is set")
    func noColorEncodesNoColor() {
        let options = DisplayOptions.detect(environment: ["TERM": "xterm-256color", "NO_COLOR": "1"], isTTY: true)
        let encoder = FrameEncoder(options: options)
        #expect(encoder.sgr(TextStyle(foreground: .red)) == "")
        #expect(encoder.sgr(TextStyle(foreground: .red, bold: true)) == "1")
    }
}
