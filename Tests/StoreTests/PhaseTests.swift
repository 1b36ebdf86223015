import Match
import ParlorTestSupport
import Testing
@testable import Store

/// The Store's two phase rules: what a side writes (`Phase.toSave`) and where
/// a file stands now (`MatchStore.phase(of:)`), as `parlor matches` and
/// `parlor resume` show them.
struct PhaseTests {
    typealias Phase = StoredMatch.Phase

    static let going = (try? MatchFixtures.after([3, 3], in: MatchFixtures.newMatch(seed: 4))) ?? MatchFixtures.newMatch()
    static let over = (try? going.applying(.quit(0), now: 2)) ?? going

    /// (ended?, cause, last saved, what is written)
    static let rules: [(Bool, Phase.Cause, (Phase, UInt32)?, Phase)] = [
        (false, .changed, nil, .playing),
        (false, .stopped(resumable: false), nil, .playing),
        (false, .stopped(resumable: true), nil, .interrupted),
        (false, .leftForNow, nil, .interrupted),
        (false, .leftForNow, (.playing, 2), .interrupted),
        // Interrupted sticks while the state is no newer (a late event, a rollback)...
        (false, .changed, (.interrupted, 2), .interrupted),
        (false, .changed, (.interrupted, 5), .interrupted),
        // ...and the match going on makes it playing again.
        (false, .changed, (.interrupted, 1), .playing),
        (false, .changed, (.playing, 2), .playing),
        // An ended match is ended, whatever happened.
        (true, .changed, nil, .ended),
        (true, .leftForNow, nil, .ended),
        (true, .stopped(resumable: true), (.interrupted, 2), .ended),
    ]

    @Test(arguments: rules.indices)
    func whatASideWrites(_ index: Int) {
        let (ended, cause, saved, expected) = Self.rules[index]
        let state = ended ? Self.over : Self.going
        #expect(state.sequence == 2 || ended)
        #expect(Phase.toSave(state, after: cause, lastSaved: saved.map { (phase: $0.0, sequence: $0.1) }) == expected,
                "\(cause) after \(String(describing: saved))")
    }

    @Test func aNewRecordTakesThePhaseItWouldBeSavedIn() {
        #expect(StoredMatch(state: Self.going, role: .host, localSeat: 0, lastActivity: 0).phase == .playing)
        #expect(StoredMatch(state: Self.over, role: .host, localSeat: 0, lastActivity: 0).phase == .ended)
    }

    @Test func aFileSavedInterruptedOrEndedStaysSoWhileItsLockIsHeld() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let left = StoredMatch(state: Self.going, role: .guest, localSeat: 1, phase: .interrupted, lastActivity: 1)
        let done = StoredMatch(state: Self.over, role: .host, localSeat: 0, phase: .playing, lastActivity: 2)
        try store.save(left)
        try store.save(done)
        let claims = try [store.claim(left), store.claim(done)]
        #expect(claims.allSatisfy { $0 != nil })
        let phases = Dictionary(uniqueKeysWithValues: store.list().matches.map { ($0.role, $0.phase) })
        #expect(phases == [.guest: .interrupted, .host: .ended])
        claims.forEach { $0?.release() }
    }

    @Test func leavingForNowIsSavedInterruptedWhileTheProcessStillHoldsTheLock() throws {
        let store = MatchStore(directory: temporaryDirectory())
        let recorder = MatchRecorder(store: store, record: StoredMatch(state: Self.going, role: .offline, localSeat: 0,
                                                                       lastActivity: 0))
        recorder.saveNow(Self.going)
        #expect(store.list().matches.first?.phase == .playing, "the recorder holds the match's lock")
        recorder.markInterrupted()
        recorder.saveNow(Self.going)  // a late event of the same state
        #expect(store.list().matches.first?.phase == .interrupted)
        withExtendedLifetime(recorder) {}
    }
}
