import Foundation
import Games
import Match
import ParlorKit
import ParlorTestSupport
import Session
import Store
import Testing

/// The front door with a store on each side: both sides keep the match, and
/// nothing reaches `events` before it is on disk. Real sockets and real files.
@Suite(.timeLimit(.minutes(1)))
struct TurnBasedSavingTests {
    init() { Nim.register() }

    static func temporaryStore() -> MatchStore {
        MatchStore(directory: NSTemporaryDirectory() + "parlorkit-" + UUID().uuidString)
    }

    /// The one match in `store`, as saved now.
    static func saved(in store: MatchStore) throws -> StoredMatch {
        let matches = store.list().matches
        try #require(matches.count == 1)
        return matches[0]
    }

    /// Plays the first legal move on this side's turns to the end; at every
    /// committed move the side sees, checks that its store has it already.
    static func playChecking(_ match: TurnBasedMatch<Nim>, store: MatchStore) async throws -> Int {
        var checked = 0
        for await event in match.events {
            switch event {
            case .turnBegan(let participant, let game) where participant.isLocal:
                if let move = game.legalMoves.first { try await match.endTurn(with: move) }
            case .turnEnded(_, _, _, let game):
                // On disk already: the record has this move (or a later one), never an earlier state.
                let record = try saved(in: store)
                #expect((record.state.game(as: Nim.self)?.moveCount ?? -1) >= game.moveCount, "shown before it was saved")
                checked += 1
            default:
                break
            }
        }
        return checked
    }

    @Test("both sides keep the match, each change on disk before it is shown, and end with the same record")
    func bothSidesSaveBeforeShowing() async throws {
        let hostStore = Self.temporaryStore(), guestStore = Self.temporaryStore()
        defer {
            try? FileManager.default.removeItem(atPath: hostStore.directory)
            try? FileManager.default.removeItem(atPath: guestStore.directory)
        }
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", advertise: false, store: hostStore)
        async let joining = TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: table.port, as: "Bo", store: guestStore)
        let host = try await table.waitForMatch()
        let guest = try await joining
        // Each side saved the match as it started, before playing it.
        #expect(try Self.saved(in: hostStore).state.matchID == Self.saved(in: guestStore).state.matchID)
        #expect(try Self.saved(in: guestStore).role == .guest)
        async let hostChecked = Self.playChecking(host, store: hostStore)
        async let guestChecked = Self.playChecking(guest, store: guestStore)
        let checked = try await (hostChecked, guestChecked)
        #expect(checked.0 > 1 && checked.0 == checked.1)
        _ = await (host.finished(), guest.finished())
        await host.leave()
        let (onHost, onGuest) = (try Self.saved(in: hostStore), try Self.saved(in: guestStore))
        #expect(onHost.phase == .ended && onGuest.phase == .ended)
        #expect(onHost.state.stateHash == onGuest.state.stateHash)
        #expect(onHost.role == .host && onHost.localSeat == host.localSeat)
    }

    @Test("a guest whose store cannot save is refused before it connects, and the seat stays for the next guest")
    func aGuestThatCannotSaveDoesNotTakeTheSeat() async throws {
        let table = try await TurnBasedLAN.host(Nim.self, as: "Ana", advertise: false)
        // A store in a directory that cannot be made: under a regular file.
        let blocker = NSTemporaryDirectory() + "parlorkit-file-" + UUID().uuidString
        FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8))
        defer { try? FileManager.default.removeItem(atPath: blocker) }
        await #expect {
            _ = try await TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: table.port, as: "Bo",
                                            store: MatchStore(directory: blocker + "/matches"))
        } throws: { error in
            "\(error)".contains("Not a directory")
        }
        async let hosting = table.waitForMatch()
        let next = try await TurnBasedLAN.join(Nim.self, host: "127.0.0.1", port: table.port, as: "Cy")
        let host = try await hosting
        #expect(await host.participants.map(\.name).contains("Cy"))
        try await next.quit()
        _ = await host.finished()
    }
}
