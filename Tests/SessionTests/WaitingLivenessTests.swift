import Games
import Match
import ParlorTestSupport
import Testing
@testable import Session

/// `Liveness` with no grace, as the links that wait run it: a guest seated at
/// a filling table (both sides), a spectator on the host, a watcher's link.
@Suite struct LivenessWithoutGraceTests {
    let settings = Liveness.Settings(interval: .seconds(3), timeout: .seconds(15), grace: .zero)

    @Test func aSilentPeerIsGivenUpOnTheTickThatFindsItSilentWithNoHeartbeat() {
        let start = ContinuousClock.now
        var machine = Liveness(settings: settings, now: start)
        #expect(machine.tick(now: start + .seconds(12), lastHeard: start, open: true) == [.sendHeartbeat])
        #expect(machine.nextTick(lastHeard: start, open: true, now: start + .seconds(12)) == start + .seconds(15))
        #expect(machine.tick(now: start + .milliseconds(14_999), lastHeard: start, open: true) == [])
        #expect(machine.tick(now: start + .seconds(15), lastHeard: start, open: true) == [.peerSilent(wait: .zero), .graceExpired])
        #expect(!machine.isPeerPresent)
        #expect(machine.tick(now: start + .seconds(30), lastHeard: start + .seconds(29), open: true) == [], "gone for good")
    }

    @Test func aPeerHeardWithinTheTimeoutGetsAHeartbeatEveryIntervalAndIsNeverGivenUp() {
        let start = ContinuousClock.now
        var machine = Liveness(settings: settings, now: start)
        var heartbeats = 0
        for second in stride(from: 3, through: 60, by: 3) {
            let actions = machine.tick(now: start + .seconds(second), lastHeard: start + .seconds(second - 14), open: true)
            #expect(!actions.contains(.graceExpired))
            if actions == [.sendHeartbeat] { heartbeats += 1 }
        }
        #expect(heartbeats == 20)
        #expect(machine.isPeerPresent)
    }

    @Test func theFirstHeartbeatMayBeDueAtOnce() {
        let start = ContinuousClock.now
        var machine = Liveness(settings: settings, now: start, heartbeatAtOnce: true)
        #expect(machine.nextTick(lastHeard: start, open: true, now: start) == start)
        #expect(machine.tick(now: start, lastHeard: start, open: true) == [.sendHeartbeat])
        #expect(machine.nextTick(lastHeard: start, open: true, now: start) == start + .seconds(3))
        var later = Liveness(settings: settings, now: start)
        #expect(later.tick(now: start, lastHeard: start, open: true) == [], "by default the first one is an interval away")
    }

    @Test func noGraceStillLetsTicksDueTogetherShareAWakeUp() {
        let machine = Liveness(settings: settings, now: .now)
        #expect(machine.tickInterval == .seconds(1))
        #expect(machine.tolerance == .milliseconds(100))
    }
}
