@testable import Bench
import Foundation
import Store
import Testing

/// The bench's breakdown of a turn on plain threads: it plays real turns
/// over a real socket and saves them in a real store, or says why not.
@Suite("Bench: the turn on one plain thread per side")
struct ThreadedTurnTests {
    private func scratch() throws -> String {
        let directory = NSTemporaryDirectory() + "parlor-threaded-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("with a store, each side saves the match it played: the host's and the guest's records agree, turn for turn")
    func savesBothSides() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let times = try await BenchThreadedTurn.measure(count: 40, directory: directory, seed: 11, warmup: 5)
        #expect(times.count == 40)
        #expect(times.allSatisfy { $0 > .zero })
        let (matches, problems) = MatchStore(directory: directory).list()
        #expect(problems.isEmpty, "\(problems)")
        let hosts = matches.filter { $0.role == .host }, guests = matches.filter { $0.role == .guest }
        #expect(!hosts.isEmpty && hosts.count == guests.count, "\(matches.map(\.role))")
        for guest in guests {
            let host = try #require(hosts.first { $0.state.matchID == guest.state.matchID })
            // The host saves before it confirms: its copy is never behind the guest's.
            #expect(host.state.sequence >= guest.state.sequence)
            #expect(guest.state.sequence > 0)
        }
        // 45 guest turns (and the host's answers) were saved in all.
        #expect(hosts.map { Int($0.state.sequence) }.reduce(0, +) >= 2 * 45 - hosts.count)
    }

    @Test("with no store nothing is written, and the turns are still timed")
    func noStore() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let times = try await BenchThreadedTurn.measure(count: 30, directory: nil, seed: 12, warmup: 0)
        #expect(times.count == 30)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    @Test("a store it cannot write to is an error that says so, not a hang")
    func unwritableStore() async throws {
        // A directory under a plain file: no one, root included, can make it.
        let file = NSTemporaryDirectory() + "parlor-threaded-file-" + UUID().uuidString
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        defer { try? FileManager.default.removeItem(atPath: file) }
        await #expect {
            _ = try await BenchThreadedTurn.measure(count: 10, directory: file + "/store", seed: 13, warmup: 0)
        } throws: { error in
            "\(error)".contains(file)
        }
    }
}
