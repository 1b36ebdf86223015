#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation

/// The one way parlor reads a typed line outside a match: each read blocks a
/// thread of its own, never Swift's cooperative pool. The join picker, the
/// rematch and "play again" questions in plain mode, `forget`'s question and
/// the passcode prompt all use it (each had its own way).
public enum LinePrompt {
    /// One line from standard input without its newline; nil at end of input.
    public static func line() async -> String? {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: Swift.readLine(strippingNewline: true)) }
            thread.name = "parlor-line"
            thread.start()
        }
    }

    /// Writes `question` to standard output and reads the answer: y or yes
    /// (any case, spaces around) is yes; anything else, or end of input, is no.
    public static func yesNo(_ question: String) async -> Bool {
        fflush(nil)  // what `print` buffered comes first
        _ = writeAll(fd: STDOUT_FILENO, Array(question.utf8))
        guard let answer = await line()?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return answer == "y" || answer == "yes"
    }

    /// A secret typed without echo (`SecretPrompt`), read on a thread of its own.
    public static func secret(_ prompt: String) async -> Result<SecretPrompt.Answer, TerminalError> {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: Result { () throws(TerminalError) in try SecretPrompt.ask(prompt) }) }
            thread.name = "parlor-secret"
            thread.start()
        }
    }
}
