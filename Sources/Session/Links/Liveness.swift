/// Heartbeats, silence and the grace period of one session, as a pure state
/// machine driven by a periodic tick (the shell supplies the clock).
///
/// - A HEARTBEAT goes out every `interval`.
/// - A peer not heard from for `timeout` is *silent*: the player is told,
///   and the grace period starts. Hearing it again within grace ends that.
/// - A closed connection is *gone*: the player is told, and the grace period
///   starts; the peer may reconnect within it.
/// - While the peer is away, `stillWaiting` reminds the player every
///   `noticeInterval` how much of the grace period is left.
/// - When the grace period runs out, `graceExpired` is returned once.
///
/// It is the one place that decides when a HEARTBEAT is due and when a peer
/// is silent, for every link of the process: the in-match links (`GuestLink`,
/// `HostLink`) and, with no grace (`grace` zero: the tick that finds the peer
/// silent gives it up), a guest seated at a filling table on both sides
/// (`MatchHost`, `JoinAttempt`), the host's spectators (`SpectatorGallery`)
/// and a spectator's link to the host (`SpectatorFeed`). A closed connection
/// is each shell's own: it passes `open`, or lets its reader report the close.
public struct Liveness: Sendable {
    /// The timing of one session.
    public struct Settings: Hashable, Sendable {
        /// Time between heartbeats sent.
        public var interval: Duration
        /// Silence after which the peer counts as silent.
        public var timeout: Duration
        /// Time a silent or disconnected peer has to come back; zero: none,
        /// a silent peer is given up on the tick that finds it silent.
        public var grace: Duration
        /// How often the player is reminded how long is left while the peer is away.
        public var noticeInterval: Duration
        /// Settings; `timeout` should be a few intervals.
        public init(interval: Duration, timeout: Duration, grace: Duration, noticeInterval: Duration = .seconds(10)) {
            self.interval = interval
            self.timeout = timeout
            self.grace = grace
            self.noticeInterval = noticeInterval
        }
    }

    /// What the shell must do after a tick.
    public enum Action: Hashable, Sendable {
        /// Send HEARTBEAT now: `interval` has passed since the last one and the connection is open.
        case sendHeartbeat
        /// The peer went quiet; the grace period (`wait`) started.
        case peerSilent(wait: Duration)
        /// The connection closed; the grace period (`wait`) started.
        case peerDisconnected(wait: Duration)
        /// The peer is heard again after being silent.
        case peerBack
        /// The peer is still away; `left` of the grace period remains.
        case stillWaiting(left: Duration)
        /// The grace period ran out; the peer counts as gone for good.
        case graceExpired
    }

    private enum Phase: Hashable, Sendable {
        case connected
        case silent(since: ContinuousClock.Instant)
        case disconnected(since: ContinuousClock.Instant)
        case expired
    }

    /// The timing this machine runs with.
    public let settings: Settings
    private var phase: Phase = .connected
    private var lastSent: ContinuousClock.Instant
    private var lastReminder: ContinuousClock.Instant

    /// A session that starts now: the peer counts as just heard. The first
    /// HEARTBEAT is due one interval from now, or with `heartbeatAtOnce` on
    /// the first tick (a guest told its seat at a filling table answers at once).
    public init(settings: Settings, now: ContinuousClock.Instant, heartbeatAtOnce: Bool = false) {
        self.settings = settings
        self.lastSent = heartbeatAtOnce ? now - settings.interval : now
        self.lastReminder = now
    }

    /// How often the shell should tick: often enough for every timer to fire
    /// within a quarter of its length (a zero grace has no timer of its own).
    public var tickInterval: Duration {
        let grace = settings.grace > .zero ? settings.grace / 4 : .seconds(1)
        return min(settings.interval, settings.timeout / 4, grace, .seconds(1))
    }

    /// The next instant at which `tick` may have something to do, for a
    /// shared timer (`LivenessClock`) instead of a tick every `tickInterval`:
    /// while the peer is present and the connection open, the next heartbeat
    /// or the instant its silence would reach `timeout` (bytes heard since
    /// only make that later, so ticking then is never too late); a closed
    /// connection at once; while the peer is away (or after the grace ran
    /// out), every `tickInterval` as before, since hearing it again is seen
    /// only by a tick. Fire it within `tolerance`.
    public func nextTick(lastHeard: ContinuousClock.Instant, open: Bool, now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        switch phase {
        case .connected where !open:
            return now
        case .connected:
            return min(lastSent + settings.interval, lastHeard + settings.timeout)
        case .silent, .disconnected, .expired:
            return now + tickInterval
        }
    }

    /// How late a tick at `nextTick` may come: a quarter of the shortest
    /// timer, at most 100 ms (so ticks due close together share a wake-up).
    public var tolerance: Duration {
        min(tickInterval / 4, .milliseconds(100))
    }

    /// Whether the peer is currently counted as present.
    public var isPeerPresent: Bool { phase == .connected }

    /// Advances to `now`; `lastHeard` is when bytes last arrived, `open`
    /// whether the connection is still open.
    public mutating func tick(now: ContinuousClock.Instant, lastHeard: ContinuousClock.Instant, open: Bool) -> [Action] {
        var actions: [Action] = []
        switch phase {
        case .expired:
            return []
        case .connected:
            if !open {
                phase = .disconnected(since: now)
                lastReminder = now
                actions.append(.peerDisconnected(wait: settings.grace))
            } else if now - lastHeard >= settings.timeout {
                phase = .silent(since: now)
                lastReminder = now
                actions.append(.peerSilent(wait: settings.grace))
            }
        case .silent(let since):
            if !open {
                phase = .disconnected(since: since)
                actions.append(.peerDisconnected(wait: settings.grace - (now - since)))
            } else if now - lastHeard < settings.timeout {
                phase = .connected
                actions.append(.peerBack)
            }
        case .disconnected:
            break
        }
        switch phase {
        case .silent(let since), .disconnected(let since):
            if now - since >= settings.grace {
                phase = .expired
                actions.append(.graceExpired)
                return actions
            }
            if actions.isEmpty, now - lastReminder >= settings.noticeInterval {
                lastReminder = now
                actions.append(.stillWaiting(left: settings.grace - (now - since)))
            }
        case .connected, .expired:
            break
        }
        if open, now - lastSent >= settings.interval {
            lastSent = now
            actions.append(.sendHeartbeat)
        }
        return actions
    }
}
