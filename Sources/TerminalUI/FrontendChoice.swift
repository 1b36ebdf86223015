#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Which frontend shows a match, decided in one place from the output flag,
/// the environment and whether stdin and stdout are a terminal.
public struct FrontendChoice: Sendable {
    /// What the command line asked for.
    public enum Output: Sendable, Hashable {
        /// Full screen on a terminal that can take it, plain text otherwise.
        case automatic
        /// `--plain`: text lines whatever the terminal.
        case plain
        /// `--json`: one JSON object per line on stdout.
        case json
    }

    /// The frontend to play with.
    public let frontend: any MatchFrontend
    /// Whether a person watches a full-screen board.
    public let isFullScreen: Bool
    /// Whether stdout carries JSON events.
    public let isJSON: Bool

    /// Full screen on a terminal; plain when stdin or stdout is not a TTY,
    /// `TERM` is dumb or unset, or `--plain`; JSON with `--json`. Colour only
    /// when `colorAllowed` (no `--no-color`, no `NO_COLOR`); ASCII with `ascii`.
    public init(output: Output, environment: [String: String], colorAllowed: Bool, ascii: Bool, bell: Bool,
                isTTY: Bool = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1) {
        var detected = DisplayOptions.detect(environment: environment, isTTY: isTTY, noColorFlag: !colorAllowed, asciiFlag: ascii)
        detected.bell = bell
        switch output {
        case .json:
            frontend = JSONFrontend()
            isFullScreen = false
            isJSON = true
        case .plain:
            frontend = PlainFrontend(options: .plainText(unicode: detected.unicode && isTTY))
            isFullScreen = false
            isJSON = false
        case .automatic:
            if detected.prefersPlainMode {
                frontend = PlainFrontend(options: .plainText(unicode: detected.unicode && isTTY))
                isFullScreen = false
            } else {
                frontend = FullScreenFrontend(options: detected)
                isFullScreen = true
            }
            isJSON = false
        }
    }
}

extension DisplayOptions {
    /// Plain text, Unicode pieces only when allowed.
    public static func plainText(unicode: Bool) -> DisplayOptions {
        var options = DisplayOptions.plainASCII
        options.unicode = unicode
        return options
    }
}
