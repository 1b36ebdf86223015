import Foundation
@preconcurrency import Glibc
import ParlorTestSupport
import Store
import Testing

/// Issue 37, item 5, with real processes: what either side prints (joined,
/// started, a move) is already in its store, so a side killed right after
/// it can be resumed and the match finished.
@Suite("Nothing shown before it is saved (real processes)", .serialized)
struct SavedBeforeShownEndToEndTests {
    /// The one match in the store under `environment`, read straight from the files.
    static func storedMatch(_ environment: [String: String]) -> StoredMatch? {
        let store = MatchStore(directory: MatchStore.defaultDirectory(environment: environment))
        return store.list().matches.first
    }

    /// A host run with `hostArguments` in `hostHome` and a guest joining it with `guestArguments`; both killed when released.
    static func pair(host hostArguments: [String], in hostHome: [String: String], guest guestArguments: [String],
                     in guestHome: [String: String] = LANTableEndToEndTests.environment(), hostTypes: Bool = false)
        async throws -> (host: SpawnedParlor, guest: SpawnedParlor, port: Int) {
        let host = try SpawnedParlor(["host", "connect4", "--json", "--port", "0"] + hostArguments, environment: hostHome,
                                     keepStdinOpen: hostTypes)
        let port: Int
        do { port = try await LANTableEndToEndTests.port(host) } catch {
            host.send(SIGKILL)
            throw error
        }
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--bot", "easy", "--json"] + guestArguments, environment: guestHome)
        return (host, guest, port)
    }

    @Test("the moment a guest is told it joined, both sides have the match on disk; the host killed then is resumed and the match ends with one hash")
    func joinedMeansSavedOnBothSides() async throws {
        let hostHome = LANTableEndToEndTests.environment(), guestHome = LANTableEndToEndTests.environment()
        // The host moves first and its player types nothing, so the match is at its start when the host is killed.
        let (host, guest, _) = try await Self.pair(host: ["--seat", "first", "--grace", "60"], in: hostHome,
                                                   guest: ["--grace", "60"], in: guestHome, hostTypes: true)
        defer { host.send(SIGKILL); guest.send(SIGKILL) }
        let joined = await FirstHourEndToEndTests.waitFor(guest, "joined")
        let matchID = try #require(joined?["match"] as? String, Comment(rawValue: guest.transcript))
        // Read at once: the guest printed it, so its record exists; the host welcomed it, so the host's does.
        let guestCopy = Self.storedMatch(guestHome), hostCopy = Self.storedMatch(hostHome)
        host.send(SIGKILL)
        _ = await host.wait(timeout: .seconds(10))
        #expect(guestCopy?.state.matchID.hex == matchID, "the guest said joined before its record existed")
        #expect(hostCopy?.state.matchID.hex == matchID, "the host welcomed the guest before its record existed")
        // The host's side was printed as joined too, and only after its save.
        if let shown = FirstHourEndToEndTests.events(host, "joined").first {
            #expect(shown["match"] as? String == matchID)
        }

        // Killed at that instant, the host comes back with `parlor resume`, and the guest (waiting out its grace) rejoins.
        let resumed = try SpawnedParlor(["resume", matchID, "--bot", "easy", "--json", "--grace", "60"], environment: hostHome)
        defer { resumed.send(SIGKILL) }
        #expect(await resumed.wait(timeout: .seconds(90)) == 0, Comment(rawValue: resumed.transcript))
        #expect(await guest.wait(timeout: .seconds(30)) == 0, Comment(rawValue: guest.transcript))
        let hostEnd = try LANTableEndToEndTests.end(resumed), guestEnd = try LANTableEndToEndTests.end(guest)
        #expect(hostEnd["hash"] as? String == guestEnd["hash"] as? String)
        #expect((hostEnd["moves"] as? Int ?? 0) > 0 && !FirstHourEndToEndTests.events(resumed, "move").isEmpty,
                "the resumed host played the match on: \(resumed.transcript)")
    }

    @Test("a many-table host has a new table's match on disk before its guest is told it joined")
    func aHallSavesATableBeforeWelcomingItsGuest() async throws {
        let hostHome = LANTableEndToEndTests.environment(), guestHome = LANTableEndToEndTests.environment()
        let (host, guest, port) = try await Self.pair(host: ["--bot", "easy", "--tables", "2", "--seat", "first"], in: hostHome,
                                                      guest: [], in: guestHome)
        defer { host.send(SIGKILL); guest.send(SIGKILL) }
        let joined = await FirstHourEndToEndTests.waitFor(guest, "joined")
        let matchID = try #require(joined?["match"] as? String, Comment(rawValue: guest.transcript))
        let hostCopy = Self.storedMatch(hostHome)
        #expect(hostCopy?.state.matchID.hex == matchID, "the table's guest was welcomed before the host's record existed")
        #expect(hostCopy?.listenPort == UInt16(port), "the table's record lost its port: \(String(describing: hostCopy))")
        #expect(await guest.wait(timeout: .seconds(60)) == 0, Comment(rawValue: guest.transcript))
    }

    @Test("a rematch is on both disks before its guest says it began")
    func aRematchIsSavedBeforeItsWelcome() async throws {
        let hostHome = LANTableEndToEndTests.environment(), guestHome = LANTableEndToEndTests.environment()
        let (host, guest, _) = try await Self.pair(host: ["--bot", "easy", "--rematch", "1"], in: hostHome,
                                                   guest: ["--rematch", "1"], in: guestHome)
        defer { host.send(SIGKILL); guest.send(SIGKILL) }
        let rematch = await FirstHourEndToEndTests.waitFor(guest, "rematch", timeout: .seconds(60))
        let matchID = try #require(rematch?["match"] as? String, Comment(rawValue: guest.transcript))
        for (home, side) in [(hostHome, "host"), (guestHome, "guest")] {
            let store = MatchStore(directory: MatchStore.defaultDirectory(environment: home))
            #expect(store.list().matches.contains { $0.state.matchID.hex == matchID },
                    "the guest said the rematch began before the \(side) saved it")
        }
        for process in [guest, host] {
            #expect(await process.wait(timeout: .seconds(60)) == 0, Comment(rawValue: process.transcript))
        }
    }

    @Test("every move a host prints is in its store when printed")
    func everyPrintedMoveIsSaved() async throws {
        let hostHome = LANTableEndToEndTests.environment()
        let (host, guest, _) = try await Self.pair(host: ["--bot", "easy", "--seat", "first"], in: hostHome, guest: [])
        defer { host.send(SIGKILL); guest.send(SIGKILL) }
        // Each time the host has printed more moves, its store holds at least as many.
        var checked = 0
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let printed = FirstHourEndToEndTests.events(host, "move").count
            let saved = Self.storedMatch(hostHome)?.state.moves.count ?? 0
            #expect(saved >= printed, "the host printed \(printed) moves with \(saved) saved")
            if printed > checked { checked = printed }
            if !FirstHourEndToEndTests.events(host, "end").isEmpty { break }
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(checked >= 7, Comment(rawValue: host.transcript))
        #expect(await host.wait(timeout: .seconds(30)) == 0, Comment(rawValue: host.transcript))
    }
}
