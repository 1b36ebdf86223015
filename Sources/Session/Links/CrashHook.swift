#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Synchronization

/// A test hook that kills this process with SIGKILL at a chosen phase of a
/// turn, so end-to-end tests can crash a peer deterministically (issue 5).
///
/// Set `PARLOR_TEST_CRASH_AT=PHASE[:N]` in the environment of a `parlor`
/// process; it dies the N-th time (default 1) it reaches PHASE. Nothing else
/// reads the variable, and without it every call here is a cheap no-op.
/// It is documented in docs/PROTOCOL.md ("Test hook") and the man page.
///
/// | phase | guest | host |
/// |-------|-------|------|
/// | `before-send` | its own TURN/QUIT is about to go out | its own change is about to be committed |
/// | `after-send` | the CONFIRM for its TURN arrived, not yet processed | its own change was pushed |
/// | `before-confirm` | (not reached) | a guest TURN/QUIT passed validation, not yet committed |
/// | `after-confirm` | the CONFIRM was committed | the CONFIRM was sent |
/// | `at-end` | its record of the end is saved, its GOODBYE(matchOver) not sent | its record of the end is saved, nothing of it sent |
///
/// The `after-*` phases wait a moment before dying so the bytes just written
/// leave the socket and the peer reads them before the kernel's reset.
///
/// Why it lives here and not in a test module: the real-process tests crash
/// a real `parlor` at real points of a turn, so the calls must be in the
/// shipped code paths. It is internal to Session: no other module can see
/// or switch it, and the environment variable is its only input.
enum CrashHook {
    /// A point in a turn where the hook may fire.
    enum Phase: String, Sendable, CaseIterable {
        case beforeSend = "before-send"
        case afterSend = "after-send"
        case beforeConfirm = "before-confirm"
        case afterConfirm = "after-confirm"
        case atEnd = "at-end"
    }

    /// The environment variable read once per process.
    static let variable = "PARLOR_TEST_CRASH_AT"

    private struct Plan: Sendable {
        var phase: Phase
        var occurrence: Int
    }

    private static let plan: Plan? = {
        guard let raw = getenv(variable) else { return nil }
        return parse(String(cString: raw))
    }()

    private static let reached = Mutex(0)

    /// Parses `PHASE[:N]`; nil for anything else (the hook then stays off).
    static func parsePlan(_ text: String) -> (Phase, Int)? {
        guard let plan = parse(text) else { return nil }
        return (plan.phase, plan.occurrence)
    }

    private static func parse(_ text: String) -> Plan? {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard let first = parts.first, let phase = Phase(rawValue: first) else { return nil }
        var occurrence = 1
        if parts.count == 2 {
            guard let number = Int(parts[1]), number >= 1 else { return nil }
            occurrence = number
        }
        return Plan(phase: phase, occurrence: occurrence)
    }

    /// Called by the session at `phase`; kills the process if the plan says so.
    static func reach(_ phase: Phase) {
        guard let plan, plan.phase == phase else { return }
        let count = reached.withLock { count -> Int in
            count += 1
            return count
        }
        guard count == plan.occurrence else { return }
        switch phase {
        case .afterSend, .afterConfirm:
            // Blocks this thread on purpose: the process is about to die, and
            // the session must not act on anything else meanwhile.
            usleep(300_000)
        case .beforeSend, .beforeConfirm, .atEnd:
            break
        }
        kill(getpid(), SIGKILL)
    }
}
