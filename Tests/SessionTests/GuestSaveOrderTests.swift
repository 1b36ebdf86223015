import Foundation
import Games
import Match
import ParlorTestSupport
import Synchronization
import Testing
@testable import Session

/// The guest's copy on disk never lacks more than one change of its own: a
/// change leaves only once the save of its previous one (and the match's
/// first save) is on disk. Otherwise a guest killed on a slow disk comes back
/// with a file several of its moves old, and `parlor resume` refuses the
/// host's state as holding moves of ours "which we never made"
/// (ResumeEndToEndTests found it).
@Suite(.serialized) struct GuestSaveOrderTests {
    /// A slow disk: every save calls back 400 ms after the one before, in order.
    final class SlowDisk: Sendable {
        private let queue = DispatchQueue(label: "slow-disk")
        private let onDisk = Mutex<Int?>(nil)
        /// Moves in the newest state that is on disk (nil: nothing yet).
        var moves: Int? { onDisk.withLock { $0 } }

        var persist: RemoteHost.Persist {
            { [self] state, done in
                let moves = state.moves.count
                queue.async {
                    Thread.sleep(forTimeInterval: 0.4)
                    self.onDisk.withLock { $0 = moves }
                    done()
                }
            }
        }
    }

    @Test func aGuestsMoveLeavesOnlyOnceItsPreviousMoveIsOnItsDisk() async throws {
        let pair = try await ReconnectingPair.make(seat: .first)  // the host moves first
        let disk = SlowDisk()
        pair.joined.saveBeforeAcknowledging(disk.persist)
        let players = try await ReconnectProtocolTests.Players.start(pair)
        for round in 0..<2 {
            guard case .committed = await players.hostLocal.play(Move(0)) else { Issue.record("host move failed"); return }
            let deadline = ContinuousClock.now + .seconds(3)
            while await players.guestController.state.moves.count < 2 * round + 1, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            // The guest answers at once; the host's move is still being saved here.
            guard case .committed(let after) = await players.guestLocal.play(Move(1)) else {
                Issue.record("guest move failed")
                return
            }
            // The host has the guest's move (it confirmed it): the guest's disk holds its move before
            // (the host's answer to it may still be on its way to the disk), and the match's start.
            let onDisk = try #require(disk.moves, "nothing on the guest's disk when its move was confirmed")
            #expect(onDisk >= after.moves.count - 2)
        }
        #expect(await players.hostController.state.moves.count == 4)
        #expect(await players.guestController.stopFailure == nil)
    }
}
