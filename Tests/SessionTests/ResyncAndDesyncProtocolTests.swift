import Bots
import Games
import Match
import ParlorTestSupport
import Synchronization
import Testing
@testable import Session

/// Confirmation timeouts followed by resync, and desync detection.
@Suite struct ResyncAndDesyncProtocolTests {
    static let shortConfirmation = SessionTimeouts(handshake: .seconds(5), heartbeatInterval: .milliseconds(100),
                                                   heartbeatTimeout: .seconds(5), confirmation: .milliseconds(300), grace: .seconds(5))

    @Test func aLateConfirmIsIgnoredAndTheGuestAdoptsTheHostsState() async throws {
        let pair = try await JoinedPair.make(seat: .second, timeouts: Self.shortConfirmation)
        let (hostController, _) = pair.hosted.makeController { BotParticipant(playerID: $0, strategy: TestStrategies.firstLegal) }
        let (guestController, guestLocal) = pair.joined.makeController { LocalParticipant(playerID: $0) }
        let guestEvents = EventRecorder()
        await guestEvents.record(guestController)
        try await hostController.start()
        try await guestController.start()

        // Everything the host sends now arrives 800 ms late: CONFIRM, its reply move, and STATE.
        pair.hostEnd.setFaults(.init(delay: .milliseconds(800)))
        let result = await guestLocal.play(Move(3))
        guard case .rolledBack(.confirmationTimeout) = result else {
            Issue.record("expected a rollback for the confirmation timeout, got \(result)")
            return
        }
        pair.hostEnd.setFaults(.init())
        // The host committed the move and replied; the guest must end up with exactly that.
        let converged = await guestEvents.waitUntil { events in
            events.contains { if case .adopted(let state) = $0 { state.sequence == 2 } else { false } }
        }
        #expect(converged)
        let hostState = await hostController.state
        let guestState = await guestController.state
        #expect(hostState.sequence == 2)
        #expect(guestState.stateHash == hostState.stateHash)
        #expect(pair.joined.remote.lateConfirmationsIgnored == 1)
        // And play goes on normally.
        guard case .committed(let next) = await guestLocal.play(Move(3)) else {
            Issue.record("the next move was not committed")
            return
        }
        #expect(next.sequence == 3)
    }

    @Test func aTurnLostOnTheWayIsNotCommittedAnywhereAndCanBePlayedAgain() async throws {
        let pair = try await JoinedPair.make(seat: .second, timeouts: Self.shortConfirmation)
        let (hostController, _) = pair.hosted.makeController { LocalParticipant(playerID: $0) }
        let (guestController, guestLocal) = pair.joined.makeController { LocalParticipant(playerID: $0) }
        let guestEvents = EventRecorder()
        await guestEvents.record(guestController)
        try await hostController.start()
        try await guestController.start()

        // The guest's first TURN frame vanishes.
        let dropped = DropFirst(type: .turn)
        pair.guestEnd.setFaults(.init(transform: dropped.transform))
        guard case .rolledBack(.confirmationTimeout) = await guestLocal.play(Move(3)) else {
            Issue.record("expected a rollback")
            return
        }
        #expect(await guestEvents.waitUntil { $0.contains { if case .adopted = $0 { true } else { false } } })
        #expect(await guestController.state.sequence == 0)
        #expect(await hostController.state.sequence == 0)
        guard case .committed = await guestLocal.play(Move(3)) else {
            Issue.record("the replayed move was not committed")
            return
        }
        #expect(await hostController.state.stateHash == guestController.state.stateHash)
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func botsConvergeWhileConfirmationsKeepArrivingLate(seed: UInt64) async throws {
        let pair = try await JoinedPair.make(seat: .first, timeouts: Self.shortConfirmation)
        let match = try await BotMatch.start(pair, host: TestStrategies.seeded(seed), guest: TestStrategies.seeded(seed + 100))
        // Every 150 ms the host's frames switch between arriving at once and 450 ms late,
        // so some guest moves time out and resync while others commit normally.
        let flapper = Task {
            var late = false
            while !Task.isCancelled {
                late.toggle()
                pair.hostEnd.setFaults(.init(delay: late ? .milliseconds(450) : .zero))
                try? await Task.sleep(for: .milliseconds(150))
            }
        }
        let hostFinal = try #require(await finished(match.hostController, within: .seconds(30)))
        let guestFinal = try #require(await finished(match.guestController, within: .seconds(30)))
        flapper.cancel()
        let hostFailure = await match.hostController.stopFailure, guestFailure = await match.guestController.stopFailure
        #expect(hostFailure == nil, "host: \(String(describing: hostFailure))")
        #expect(guestFailure == nil, "guest: \(String(describing: guestFailure))")
        if guestFailure != nil {
            for event in await match.guestEvents.events {
                switch event {
                case .committed(let change, let state): print("G committed \(change) -> \(state.sequence)")
                case .rolledBack(let change, let reason, let state): print("G rolledBack \(change) \(reason) -> \(state.sequence)")
                case .adopted(let state): print("G adopted \(state.sequence)")
                case .awaitingConfirmation(let change, let state): print("G awaiting \(change) \(state.sequence)")
                case .failed(let failure, _): print("G failed \(failure)")
                default: break
                }
            }
        }
        #expect(hostFinal.stateHash == guestFinal.stateHash)
        #expect(hostFinal.moves == guestFinal.moves)
        let rollbacks = await match.guestEvents.events.filter {
            if case .rolledBack(_, .confirmationTimeout, _) = $0 { true } else { false }
        }
        #expect(!rollbacks.isEmpty)  // the faults really did provoke resyncs
    }

    /// Plays a bot match whose host-to-guest frames of `type` are rewritten by `tamper`.
    static func tamperedMatch(_ type: MessageType, _ tamper: @escaping @Sendable (Message) -> Message) async throws
        -> (host: MatchFailure?, guest: MatchFailure?, hostNotices: [String]) {
        let pair = try await JoinedPair.make(seat: .first)
        pair.hostEnd.setFaults(.init(transform: { chunk in
            guard let (frame, used) = try? FrameDecoder.decode(chunk[...]), used == chunk.count, frame.type == type,
                  let message = try? Message.decode(frame) else { return chunk }
            return tamper(message).encoded
        }))
        let match = try await BotMatch.start(pair, host: TestStrategies.seeded(3), guest: TestStrategies.seeded(4))
        _ = await finished(match.hostController)
        _ = await finished(match.guestController)
        return (await match.hostController.stopFailure, await match.guestController.stopFailure, await match.hostEvents.notices)
    }

    static func isDesync(_ failure: MatchFailure?) -> Bool {
        if case .desync? = failure { return true }
        return false
    }

    /// The guest's GOODBYE(desync) is, to the authoritative host, the guest
    /// leaving for now: the match is interrupted there (resumable), not void
    /// (docs/PROTOCOL.md, section 8, "A desync").
    static func isInterrupted(_ failure: MatchFailure?) -> Bool {
        if case .connectionLost? = failure { return true }
        return false
    }

    @Test func aHostPushingAnIllegalMoveIsADesyncOnTheGuestAndInterruptsTheHost() async throws {
        let (host, guest, notices) = try await Self.tamperedMatch(.turn) { message in
            guard case .turn(let sequence, let blob) = message else { return message }
            return .turn(sequence: sequence, blob: BlobForge.forge(blob) { $0[BlobForge.lastMoveOffset(in: $0) + 2] = 9 })
        }
        #expect(Self.isDesync(guest), "guest: \(String(describing: guest))")
        #expect(Self.isInterrupted(host), "host: \(String(describing: host))")
        #expect(notices.contains { $0.contains("Guest disconnected (its copy of the match disagrees") }, "\(notices)")
    }

    @Test func aHostPushingAForgedHashIsADesyncOnTheGuestAndInterruptsTheHost() async throws {
        let (host, guest, _) = try await Self.tamperedMatch(.turn) { message in
            guard case .turn(let sequence, var blob) = message else { return message }
            blob[blob.count - 1] ^= 0xFF
            return .turn(sequence: sequence, blob: blob)
        }
        #expect(Self.isDesync(guest))
        #expect(Self.isInterrupted(host))
    }

    @Test func aConfirmWithAnotherHashIsADesyncOnTheGuestAndInterruptsTheHost() async throws {
        let (host, guest, _) = try await Self.tamperedMatch(.confirm) { message in
            guard case .confirm(let sequence, let hash, let deadline) = message else { return message }
            return .confirm(sequence: sequence, stateHash: hash ^ 1, deadline: deadline)
        }
        #expect(Self.isDesync(guest))
        #expect(Self.isInterrupted(host))
    }
}

/// Drops the first frame of one type (one `send` is one frame).
final class DropFirst: Sendable {
    let type: MessageType
    private let done = Mutex(false)
    init(type: MessageType) { self.type = type }

    var transform: @Sendable ([UInt8]) -> [UInt8]? {
        { [self] chunk in
            guard chunk.count > 3, chunk[3] == type.rawValue else { return chunk }
            let first = done.withLock { done -> Bool in
                defer { done = true }
                return !done
            }
            return first ? nil : chunk
        }
    }
}
