import Synchronization

/// A yes/no question the full screen asks on the final board, answered with
/// one key (y, or n / q / Esc), such as "Rematch with seats swapped?" or
/// "Play again?". While it waits, the caller may tell it what the other side
/// said (`tell`), shown as it comes; a settled note withdraws the question
/// (the other side said no, or left) and any key then leaves.
///
/// Made by the caller before the match, passed to `MatchFrontend.prepare`,
/// read (`answer`) after the run returned. Thread-safe.
public final class EndQuestion: Sendable {
    /// The question, without "(y/n)".
    public let question: String

    private struct State {
        var answer: Bool?
        var note: String?
        var settled = false
        var listener: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    /// A question that nobody has answered yet.
    public init(_ question: String) { self.question = question }

    /// The person's answer: nil when they left without one (the question was withdrawn, or never shown).
    public var answer: Bool? { state.withLock { $0.answer } }

    /// What the other side said, shown under the final board; `settled`
    /// withdraws the question (no answer of ours can change the outcome now).
    public func tell(_ note: String, settled: Bool) {
        let listener = state.withLock { state -> (@Sendable () -> Void)? in
            state.note = note
            state.settled = state.settled || settled
            return state.listener
        }
        listener?()
    }

    /// The latest note and whether the question still stands.
    var current: (note: String?, open: Bool) { state.withLock { ($0.note, !$0.settled && $0.answer == nil) } }

    /// Records the person's key.
    func answered(_ yes: Bool) { state.withLock { if $0.answer == nil { $0.answer = yes } } }

    /// Calls `listener` (on any thread) whenever a note arrives.
    func onChange(_ listener: (@Sendable () -> Void)?) { state.withLock { $0.listener = listener } }
}
