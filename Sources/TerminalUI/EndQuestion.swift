import Synchronization

/// A yes/no question the full screen asks on the final board, answered with
/// one key (y, or n / q / Esc), such as "Rematch with seats swapped?" or
/// "Play again?". While it waits, the caller may tell it what the other side
/// said (`tell`), shown as it comes; a settled note withdraws the question
/// (the other side said no, or left) and any key then leaves.
///
/// A spectator's board has no question, only notes ("waiting to see whether
/// they play again"); when the players start a rematch, `moveOn()` makes the
/// final board give way to it, unless the person left it first.
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
        var movedOn = false
        var left = false
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

    /// The next match began: the final board gives way to it. False when the
    /// person had already left the board (then it stays left).
    @discardableResult
    public func moveOn() -> Bool {
        let listener = state.withLock { state -> (@Sendable () -> Void)?? in
            guard !state.left else { return nil }
            state.movedOn = true
            return .some(state.listener)
        }
        guard let listener else { return false }
        listener?()
        return true
    }

    /// The board gave way to the next match (`moveOn`), rather than to a key.
    public var movedOn: Bool { state.withLock { $0.movedOn } }

    /// A key left the final board with no question open.
    func leftTheBoard() { state.withLock { if !$0.movedOn { $0.left = true } } }

    /// Records the person's key.
    func answered(_ yes: Bool) { state.withLock { if $0.answer == nil { $0.answer = yes } } }

    /// Calls `listener` (on any thread) whenever a note arrives.
    func onChange(_ listener: (@Sendable () -> Void)?) { state.withLock { $0.listener = listener } }
}
