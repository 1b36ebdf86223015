import Foundation
import ParlorTestSupport
import Testing

/// When there is nothing to resume or replay, `parlor` says why and which
/// command helps next. The sentence comes from Store (a library, naming no
/// command); ParlorCLI adds the command.
@Suite struct NothingToResumeEndToEndTests {
    @Test func resumeAndReplaySayWhyAndWhatToTypeNext() async throws {
        let data = temporaryDataHome()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let home = ["XDG_DATA_HOME": data]

        let unknown = try await ParlorProcess.run(["replay", "zzzz"], environment: home, timeout: .seconds(30))
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no saved match matches 'zzzz' (see 'parlor matches')"), "\(unknown.stderr)")

        // One match, played to its end offline by two bots.
        let played = try await ParlorProcess.run(["play", "tictactoe", "--bot", "easy", "--vs", "bot", "--plain"],
                                                 environment: home, timeout: .seconds(60))
        #expect(played.status == 0, "\(played.stderr)")
        let listed = try await ParlorProcess.run(["matches"], environment: home, timeout: .seconds(30))
        let id = try #require(listed.stdout.split(separator: "\n").dropFirst().first?.split(separator: " ").first.map(String.init))

        let newest = try await ParlorProcess.run(["resume"], environment: home, timeout: .seconds(30))
        #expect(newest.status == 1)
        #expect(newest.stderr.contains("no interrupted match is saved here; 'parlor matches' lists the saved ones"),
                "\(newest.stderr)")

        let over = try await ParlorProcess.run(["resume", id], environment: home, timeout: .seconds(30))
        #expect(over.status == 1)
        #expect(over.stderr.contains("match \(id) is over; see 'parlor replay \(id)'"), "\(over.stderr)")

        let asGuest = try await ParlorProcess.run(["resume", "127.0.0.1:7000"], environment: home, timeout: .seconds(30))
        #expect(asGuest.status == 1)
        #expect(asGuest.stderr.contains("no interrupted match joined as a guest is saved here; see 'parlor matches'"),
                "\(asGuest.stderr)")
    }
}
