#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Asks for a secret (a passcode) on the terminal without showing it.
///
/// The terminal's echo, line editing and signal keys are off while the
/// line is read, and always restored before returning. Ctrl-C and Ctrl-D
/// cancel (nil), Backspace deletes, Enter ends the line. Blocking: call it
/// from a thread of its own, never from the cooperative pool.
public enum SecretPrompt {
    /// What ended the prompt.
    public enum Answer: Hashable, Sendable {
        /// The line typed (without the newline).
        case line(String)
        /// Ctrl-C, Ctrl-D on an empty line, or end of input.
        case cancelled
    }

    /// Writes `prompt` to `output`, reads one line from `input` with echo
    /// off, then writes a newline. Throws `notATerminal` when `input` is not
    /// a terminal (the caller must then ask for the secret another way).
    public static func ask(_ prompt: String, input: Int32 = STDIN_FILENO, output: Int32 = STDERR_FILENO) throws(TerminalError) -> Answer {
        guard Terminal.isTTY(input) else { throw .notATerminal(fd: input) }
        var original = termios()
        guard tcgetattr(input, &original) == 0 else { throw .systemCall("tcgetattr", errno: errno) }
        var quiet = original
        quiet.c_lflag &= ~tcflag_t(ICANON | ECHO | ECHONL | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &quiet.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        _ = writeAll(fd: output, Array(prompt.utf8))
        guard retryingEINTR({ Int(tcsetattr(input, TCSANOW, &quiet)) }) == 0 else { throw .systemCall("tcsetattr", errno: errno) }
        defer {
            _ = retryingEINTR { Int(tcsetattr(input, TCSANOW, &original)) }
            _ = writeAll(fd: output, Array("\n".utf8))
        }
        var line: [UInt8] = []
        while true {
            var byte: UInt8 = 0
            let count = retryingEINTR { Glibc.read(input, &byte, 1) }
            guard count == 1 else { return .cancelled }
            switch byte {
            case 0x0a, 0x0d: return .line(String(decoding: line, as: UTF8.self))
            case 0x03: return .cancelled                       // Ctrl-C
            case 0x04 where line.isEmpty: return .cancelled    // Ctrl-D
            case 0x7f, 0x08: if !line.isEmpty { line.removeLast() }
            case 0x15: line.removeAll()                        // Ctrl-U
            default: if byte >= 0x20 && line.count < 256 { line.append(byte) }
            }
        }
    }
}
