import Foundation
import Games
import Match
import ParlorTestSupport
import Synchronization
import Testing
@testable import Session

/// Issue 37, item 5: the host welcomes a guest only into a match it has
/// saved (`HostConfiguration.saveBeforeWelcome`), so a host killed at any
/// moment after a WELCOME keeps the record `parlor resume` finishes.
@Suite("WELCOME after the save")
struct WelcomeAfterSaveTests {
    /// A save the test lets finish, with the answer it chooses.
    final class HeldSave: Sendable {
        private let answer = Mutex<(CheckedContinuation<String?, Never>?, String??)>((nil, nil))
        let begun = Atomic<Int>(0)

        func save(_ hosted: HostedMatch) async -> String? {
            begun.add(1, ordering: .sequentiallyConsistent)
            return await withCheckedContinuation { continuation in
                let ready = answer.withLock { held -> String?? in
                    if let ready = held.1 { return ready }
                    held.0 = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        /// Lets the save finish: nil on disk, or why it failed.
        func finish(_ failure: String?) {
            let waiting = answer.withLock { held -> CheckedContinuation<String?, Never>? in
                held.1 = .some(failure)
                defer { held.0 = nil }
                return held.0
            }
            waiting?.resume(returning: failure)
        }
    }

    /// The matches the host asked to forget.
    final class Forgotten: Sendable {
        let ids = Mutex<[MatchID]>([])
    }

    static func host(saving save: HeldSave, forgetting forgotten: Forgotten? = nil) throws -> MatchHost {
        var configuration = HostConfiguration(gameID: "connect4", hostName: "Hostess", hostPlayerID: .random(),
                                              timeouts: quickTimeouts, appVersion: "test")
        configuration.saveBeforeWelcome = { await save.save($0) }
        if let forgotten {
            configuration.forgetUnwelcomed = { hosted in forgotten.ids.withLock { $0.append(hosted.initialState.matchID) } }
        }
        return try MatchHost(configuration: configuration)
    }

    static func join(_ host: MatchHost) async -> Task<Result<JoinedMatch, JoinError>, Never> {
        let (guestEnd, hostEnd) = InMemoryByteStream.pair()
        await host.accept(hostEnd)
        let hello = Hello(appVersion: "test", playerID: .random(), playerName: "Guest",
                          games: [GameVersion.local("connect4")].compactMap { $0 })
        return Task {
            do throws(JoinError) { return .success(try await Guest.join(over: guestEnd, hello: hello, options: GuestOptions())) } catch {
                return .failure(error)
            }
        }
    }

    @Test("no WELCOME, and no match for the host's waiter, until the match is saved")
    func theGuestIsWelcomedOnlyOnceTheMatchIsSaved() async throws {
        let save = HeldSave()
        let host = try Self.host(saving: save)
        let joining = await Self.join(host)
        let waiting = Task { try await host.waitForGuest() }
        let limit = ContinuousClock.now + .seconds(5)
        while save.begun.load(ordering: .sequentiallyConsistent) == 0, ContinuousClock.now < limit {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(save.begun.load(ordering: .sequentiallyConsistent) == 1, "the host never asked to save the match")
        try await Task.sleep(for: .milliseconds(300))
        #expect(await host.hasGuest == false, "the host counted the match as under way before it was saved")
        #expect(await host.seatsTaken == 2, "the seat was offered again while the match was being saved")

        save.finish(nil)
        let joined = try await joining.value.get()
        let hosted = try await waiting.value
        #expect(joined.initialState.matchID == hosted.initialState.matchID)
        #expect(await host.hasGuest)
        await host.shutdown()
    }

    @Test("a save that fails turns the guest away with why, and the host stops with cannotSave")
    func aFailedSaveTurnsTheGuestAway() async throws {
        let save = HeldSave()
        save.finish("No space left on device")
        let host = try Self.host(saving: save)
        let joining = await Self.join(host)
        switch await joining.value {
        case .success: Issue.record("the guest was welcomed into a match the host could not save")
        case .failure(.rejected(let code, let sentence)):
            #expect(code == .busy)
            #expect(sentence.contains("could not save the match") && sentence.contains("No space left on device"))
        case .failure(let other): Issue.record("the guest was not told why: \(other)")
        }
        do {
            _ = try await host.waitForGuest()
            Issue.record("the host's waiter got a match that was never saved")
        } catch {
            #expect(error == .cannotSave("No space left on device"))
        }
    }

    @Test("a host stopped while the match is being saved welcomes nobody, forgets the saved match, and only then returns")
    func aHostStoppedDuringTheSaveForgetsTheMatch() async throws {
        let save = HeldSave()
        let forgotten = Forgotten()
        let host = try Self.host(saving: save, forgetting: forgotten)
        let joining = await Self.join(host)
        let returned = Atomic<Bool>(false)
        let waiting = Task { () -> Result<HostedMatch, HostError> in
            defer { returned.store(true, ordering: .sequentiallyConsistent) }
            do throws(HostError) { return .success(try await host.waitForGuest()) } catch { return .failure(error) }
        }
        let limit = ContinuousClock.now + .seconds(5)
        while save.begun.load(ordering: .sequentiallyConsistent) == 0, ContinuousClock.now < limit {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(save.begun.load(ordering: .sequentiallyConsistent) == 1, "the host never asked to save the match")
        // q or Ctrl-C while the last guest sits down: the save is under way.
        await host.shutdown()
        try await Task.sleep(for: .milliseconds(200))
        // The process must not exit while its save is still being written.
        let returnedEarly = returned.load(ordering: .sequentiallyConsistent)
        #expect(!returnedEarly, "waitForGuest returned while the match was still being saved")
        #expect(forgotten.ids.withLock { $0.isEmpty }, "the match was forgotten before its save had finished")

        save.finish(nil)
        switch await waiting.value {
        case .success: Issue.record("the host's waiter got a match after the host was stopped")
        case .failure(let error): #expect(error == .shutDown)
        }
        // By the time the waiter returns, the saved match has been forgotten: no record of a match nobody joined.
        #expect(forgotten.ids.withLock { $0.count } == 1, "the match saved before WELCOME was not forgotten")
        switch await joining.value {
        case .success: Issue.record("the guest was welcomed by a host that had stopped")
        case .failure: break
        }
        #expect(await host.hasGuest == false)
    }
}
