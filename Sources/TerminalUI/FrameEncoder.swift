/// Turns frames into the bytes of one terminal write; pure, no I/O.
///
/// It remembers what it last encoded and rewrites only the lines that
/// changed, so a turn redraw over a slow SSH link is a few hundred bytes in
/// one write instead of a full screen in many. `invalidate()` (after a resize,
/// or when the screen may hold anything) makes the next frame a full redraw.
public struct FrameEncoder: Sendable {
    private var previous: [[UInt8]]? = nil
    private var size: TerminalSize?
    /// What the terminal can show; styles beyond it are dropped.
    public let options: DisplayOptions

    /// An encoder for a terminal with these options.
    public init(options: DisplayOptions) { self.options = options }

    /// Forgets the screen's contents; the next `encode` clears and draws everything.
    public mutating func invalidate() { previous = nil }

    /// The bytes that turn the screen from the last encoded frame into `frame`.
    ///
    /// Lines are clipped to `size` so nothing wraps or scrolls. Returns an empty
    /// array when nothing changed.
    public mutating func encode(_ frame: Frame, size: TerminalSize) -> [UInt8] {
        if size != self.size { previous = nil; self.size = size }
        let rows = min(frame.lines.count, size.rows)
        let encoded = (0..<rows).map { encodeLine(frame.lines[$0].clipped(to: size.columns)) }
        var out: [UInt8] = []
        out.reserveCapacity(2048)
        if let previous {
            for row in 0..<max(rows, previous.count) {
                let new = row < rows ? encoded[row] : []
                let old = row < previous.count ? previous[row] : []
                guard new != old else { continue }
                out += moveTo(row: row)
                out += new
                out += Array("\u{1B}[K".utf8)
            }
        } else {
            out += Array("\u{1B}[H\u{1B}[2J".utf8)
            for row in 0..<rows where !encoded[row].isEmpty {
                out += moveTo(row: row)
                out += encoded[row]
            }
        }
        previous = encoded
        return out
    }

    /// `ESC [ row ; 1 H`, 1-based.
    private func moveTo(row: Int) -> [UInt8] { Array("\u{1B}[\(row + 1);1H".utf8) }

    /// A line's text with SGR codes around each styled span, ending in the default style.
    private func encodeLine(_ line: StyledLine) -> [UInt8] {
        var out: [UInt8] = []
        var styled = false
        for span in line.spans {
            let codes = sgr(span.style)
            if codes.isEmpty {
                if styled { out += Array("\u{1B}[0m".utf8); styled = false }
            } else {
                out += Array("\u{1B}[0;\(codes)m".utf8)
                styled = true
            }
            out += Array(span.text.utf8)
        }
        if styled { out += Array("\u{1B}[0m".utf8) }
        return out
    }

    /// The SGR parameters for a style at this terminal's depth ("" for none).
    func sgr(_ style: TextStyle) -> String {
        var codes: [String] = []
        if options.attributes {
            if style.bold { codes.append("1") }
            if style.dim { codes.append("2") }
            if style.underline { codes.append("4") }
            if style.reverse { codes.append("7") }
        }
        if let color = style.foreground {
            switch options.colorDepth {
            case .none: break
            case .basic16: codes.append(Self.basic(color))
            case .palette256: codes.append("38;5;\(Self.palette(color))")
            }
        }
        return codes.joined(separator: ";")
    }

    private static func basic(_ color: TextColor) -> String {
        switch color {
        case .red: "91"
        case .yellow: "93"
        case .green: "92"
        case .cyan: "96"
        case .blue: "94"
        case .magenta: "95"
        case .gray: "90"
        }
    }

    private static func palette(_ color: TextColor) -> Int {
        switch color {
        case .red: 196
        case .yellow: 220
        case .green: 40
        case .cyan: 45
        case .blue: 33
        case .magenta: 170
        case .gray: 245
        }
    }
}

/// The escape sequences that enter and leave full-screen mode.
public enum ScreenControl {
    /// Alternate screen, hidden cursor, no autowrap (so the last column never scrolls), cleared.
    public static let enter: [UInt8] = Array("\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[H\u{1B}[2J".utf8)
    /// Default style, autowrap and cursor back, main screen back.
    public static let leave: [UInt8] = Array("\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l".utf8)

    /// Plain lines drawn over the whole screen from the top left, each line
    /// cleared to its end and the rest of the screen cleared after the last:
    /// a redraw without flicker, for screens of text (the lobby). In raw
    /// mode lines end in CR LF.
    public static func page(_ lines: [String], rawMode: Bool = true) -> [UInt8] {
        let newline = rawMode ? "\r\n" : "\n"
        return Array(("\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: newline) + "\u{1B}[J").utf8)
    }

    /// Clears a normal-mode terminal and puts the cursor at the top left (`browse --watch`).
    public static let clear: [UInt8] = Array("\u{1B}[H\u{1B}[2J".utf8)
}
