/// A colour a renderer asks for; mapped to the terminal's depth when encoded.
public enum TextColor: Hashable, Sendable {
    /// The colours a renderer may ask for, ones every colour terminal has; gray is
    /// bright black (SGR 90) on a 16-colour terminal and colour 245 on a 256-colour one.
    case red, yellow, green, cyan, blue, magenta, gray
}

/// How a run of text looks. Styles that the terminal cannot show are dropped when encoding.
public struct TextStyle: Hashable, Sendable {
    /// Text colour; nil keeps the terminal's default.
    public var foreground: TextColor?
    /// Bold (also brightens on many terminals).
    public var bold = false
    /// Faint text, for hints such as empty cells.
    public var dim = false
    /// Swapped foreground and background, for the cursor.
    public var reverse = false
    /// Underlined text.
    public var underline = false

    /// A style; all attributes off by default.
    public init(foreground: TextColor? = nil, bold: Bool = false, dim: Bool = false,
                reverse: Bool = false, underline: Bool = false) {
        self.foreground = foreground
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }

    /// No colour, no attributes.
    public static let plain = TextStyle()
}

/// A run of text in one style.
public struct Span: Hashable, Sendable {
    /// The characters, without control codes.
    public var text: String
    /// How they look.
    public var style: TextStyle
    /// A span; `text` must hold no control characters (renderers sanitize names).
    public init(_ text: String, _ style: TextStyle = .plain) {
        self.text = text
        self.style = style
    }
}

/// One screen line as styled spans.
public struct StyledLine: Hashable, Sendable {
    /// The runs of text, left to right.
    public var spans: [Span] = []

    /// An empty line.
    public init() {}
    /// A line of plain text.
    public init(_ text: String, _ style: TextStyle = .plain) { spans = [Span(text, style)] }

    /// Appends text in a style.
    public mutating func append(_ text: String, _ style: TextStyle = .plain) {
        guard !text.isEmpty else { return }
        if let last = spans.last, last.style == style {
            spans[spans.count - 1].text += text
        } else {
            spans.append(Span(text, style))
        }
    }

    /// The text without styles.
    public var text: String { spans.map(\.text).joined() }

    /// Columns the line occupies on a terminal.
    public var width: Int { spans.reduce(0) { $0 + displayWidth($1.text) } }

    /// The line cut to at most `columns` terminal columns.
    public func clipped(to columns: Int) -> StyledLine {
        var result = StyledLine()
        var remaining = columns
        for span in spans {
            guard remaining > 0 else { break }
            var text = ""
            for character in span.text {
                let width = displayWidth(character)
                guard width <= remaining else { remaining = 0; break }
                text.append(character)
                remaining -= width
            }
            result.append(text, span.style)
        }
        return result
    }

    /// The line broken at spaces into lines of at most `columns` terminal
    /// columns, each in the style of this line's first span (used for the
    /// one-style status, message and key lines); the leading spaces stay on
    /// the first line, continuation lines start with `indent`. A word longer
    /// than a line is cut where the line ends.
    public func wrapped(to columns: Int, indent: String) -> [StyledLine] {
        guard width > columns, columns > displayWidth(indent) + 1 else { return [self] }
        let style = spans.first?.style ?? .plain
        let whole = text
        let leading = String(whole.prefix { $0 == " " })
        var lines: [StyledLine] = []
        var current = leading
        var lineHasWord = false
        for word in whole.dropFirst(leading.count).split(separator: " ") {
            let candidate = lineHasWord ? current + " " + word : current + word
            if displayWidth(candidate) <= columns || !lineHasWord {
                current = candidate
            } else {
                lines.append(StyledLine(current, style).clipped(to: columns))
                current = indent + word
            }
            lineHasWord = true
        }
        lines.append(StyledLine(current, style).clipped(to: columns))
        return lines
    }
}

/// A whole screen: lines from the top left. Pure data, built by `Renderer`.
public struct Frame: Hashable, Sendable {
    /// The lines, top first.
    public var lines: [StyledLine]

    /// A frame of these lines.
    public init(lines: [StyledLine] = []) { self.lines = lines }

    /// The lines without styles, as a person would read them.
    public var textLines: [String] { lines.map(\.text) }
    /// Widest line in terminal columns.
    public var width: Int { lines.map(\.width).max() ?? 0 }
    /// Number of lines.
    public var height: Int { lines.count }
}

/// A terminal's size in character cells.
public struct TerminalSize: Hashable, Sendable, CustomStringConvertible {
    /// Width in character cells.
    public var columns: Int
    /// Height in lines.
    public var rows: Int
    /// A size; negative values are treated as zero.
    public init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
    }
    /// The classic 80x24 terminal.
    public static let standard = TerminalSize(columns: 80, rows: 24)
    /// `80x24`.
    public var description: String { "\(columns)x\(rows)" }
}

/// Terminal columns a character takes: 2 for East Asian wide and most emoji, 0 for combining marks.
func displayWidth(_ character: Character) -> Int {
    guard let scalar = character.unicodeScalars.first else { return 0 }
    let value = scalar.value
    if value < 0x300 { return 1 }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    if scalar.properties.isEmojiPresentation { return 2 }
    switch value {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
         0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
         0xFFE0...0xFFE6, 0x20000...0x3FFFD:
        return 2
    default:
        return 1
    }
}

/// Terminal columns a string takes.
func displayWidth(_ text: String) -> Int { text.reduce(0) { $0 + displayWidth($1) } }

/// Replaces control characters (ESC included) so text from a peer cannot drive the terminal.
func sanitized(_ text: String) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return "?"
        default: return scalar
        }
    }))
}

/// Pads `text` with spaces to `width` columns (never cuts).
func padded(_ text: String, to width: Int) -> String {
    let missing = width - displayWidth(text)
    return missing > 0 ? text + String(repeating: " ", count: missing) : text
}
