/// How many colours the terminal can show.
public enum ColorDepth: Int, Hashable, Sendable, Comparable {
    /// No colour codes at all (NO_COLOR, --no-color, vt100, unknown terminals).
    case none = 0
    /// The 8 basic colours and their bright forms (SGR 30-37, 90-97).
    case basic16 = 16
    /// The xterm 256-colour palette (SGR 38;5;N).
    case palette256 = 256

    /// Fewer colours sort first.
    public static func < (lhs: ColorDepth, rhs: ColorDepth) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What the terminal can show, decided once from the environment and flags.
///
/// SSH passes `TERM` and usually `LANG`/`LC_*` but not `COLORTERM`, so the
/// colour depth is guessed from `TERM` alone; `COLORTERM` only ever raises it.
public struct DisplayOptions: Hashable, Sendable {
    /// Colours the renderer may use.
    public var colorDepth: ColorDepth
    /// Whether bold, reverse video and dim may be used (false only for dumb terminals and plain text).
    public var attributes: Bool
    /// Whether pieces and frames may use Unicode characters (●, │, ▼) rather than ASCII.
    public var unicode: Bool
    /// Whether the caller should use plain mode (no TTY, `TERM=dumb` or no `TERM`).
    public var prefersPlainMode: Bool
    /// Whether the full screen rings the terminal bell when a local seat's turn
    /// begins after another seat moved (on unless `--no-bell` or the settings file's `bell = no`).
    public var bell = false

    /// Options spelled out; `detect` is what a program normally calls.
    public init(colorDepth: ColorDepth, attributes: Bool = true, unicode: Bool, prefersPlainMode: Bool = false) {
        self.colorDepth = colorDepth
        self.attributes = attributes
        self.unicode = unicode
        self.prefersPlainMode = prefersPlainMode
    }

    /// Plain text: no colour, no attributes, ASCII (what pipes and tests get).
    public static let plainASCII = DisplayOptions(colorDepth: .none, attributes: false, unicode: false, prefersPlainMode: true)

    /// Whether any colour code may be written.
    public var usesColor: Bool { colorDepth != .none }

    /// Decides from the environment and the command-line flags.
    ///
    /// - Colour unless `NO_COLOR` is set (any value, even empty), `--no-color`,
    ///   or `TERM` is `dumb`/unset; depth from `TERM` (`*-256color` → 256,
    ///   xterm/screen/tmux/linux/rxvt/ansi… → 16, vt100/vt220 and unknown → none).
    /// - Unicode unless `--ascii` or the locale (the first set of `LC_ALL`,
    ///   `LC_CTYPE`, `LANG`) does not name UTF-8.
    /// - Plain mode preferred when `isTTY` is false or `TERM` is `dumb` or unset.
    public static func detect(environment: [String: String], isTTY: Bool,
                              noColorFlag: Bool = false, asciiFlag: Bool = false) -> DisplayOptions {
        let term = (environment["TERM"] ?? "").lowercased()
        let dumb = term.isEmpty || term == "dumb"
        var depth = colorDepth(forTerm: term)
        if let colorTerm = environment["COLORTERM"]?.lowercased(), !dumb,
           ["truecolor", "24bit", "256color"].contains(colorTerm) || colorTerm.hasSuffix("256") {
            depth = .palette256
        }
        if environment["NO_COLOR"] != nil || noColorFlag || dumb || !isTTY { depth = .none }
        let unicode = !asciiFlag && localeIsUTF8(environment)
        return DisplayOptions(colorDepth: depth, attributes: !dumb && isTTY, unicode: unicode,
                              prefersPlainMode: dumb || !isTTY)
    }

    /// The colour depth a `TERM` value implies, before NO_COLOR and flags.
    public static func colorDepth(forTerm term: String) -> ColorDepth {
        let term = term.lowercased()
        if term.isEmpty || term == "dumb" { return .none }
        if term.contains("256color") || term.contains("truecolor") || term.contains("direct") { return .palette256 }
        let family = term.split(separator: "-").first.map(String.init) ?? term
        let sixteen: Set<String> = ["xterm", "screen", "tmux", "linux", "rxvt", "ansi", "cygwin", "putty",
                                     "konsole", "gnome", "alacritty", "foot", "kitty", "wezterm", "st", "vte",
                                     "eterm", "iterm", "iterm2", "xterm256", "contour", "mintty"]
        if sixteen.contains(family) || term.hasPrefix("xterm") || term.hasPrefix("screen") { return .basic16 }
        return .none  // vt100, vt220 and anything unknown: monochrome is the safe guess
    }

    /// Whether the effective locale (LC_ALL, then LC_CTYPE, then LANG) uses UTF-8.
    public static func localeIsUTF8(_ environment: [String: String]) -> Bool {
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy
            .compactMap { environment[$0] }
            .first { !$0.isEmpty } ?? ""
        let normalized = locale.uppercased().filter { $0 != "-" && $0 != "_" }
        return normalized.contains("UTF8")
    }
}
