import Foundation
import ParlorTestSupport
import Testing

/// Table talk between real `parlor` processes over loopback (issue 13 item 4,
/// docs/PROTOCOL.md section 18): people typing `/say` lines and moves on the
/// standard input of `--json` processes.
@Suite("Table talk between real processes over loopback", .serialized)
struct TableTalkEndToEndTests {
    static func environment() -> [String: String] {
        ["XDG_DATA_HOME": temporaryDataHome(), "NO_COLOR": "1"]
    }

    /// Moves and talk in the order one process printed them: "move 0", "Bo after 1: hello".
    static func story(_ process: SpawnedParlor) -> [String] {
        jsonEvents(process.output).compactMap { event in
            switch event["event"] as? String {
            case "move": "move \(event["seat"] as? Int ?? -1)"
            case "talk": "\(event["name"] as? String ?? "?") after \(event["after"] as? Int ?? -1): \(event["text"] as? String ?? "")"
            default: nil
            }
        }
    }

    static func refusals(_ process: SpawnedParlor) -> [String] {
        jsonEvents(process.output).filter { $0["event"] as? String == "talk-refused" }.compactMap { $0["reason"] as? String }
    }

    /// Waits until every process has printed at least `count` moves and lines of talk.
    static func waitForStory(_ processes: [SpawnedParlor], count: Int) async throws {
        for process in processes {
            let deadline = ContinuousClock.now + .seconds(20)
            while story(process).count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(story(process).count >= count, Comment(rawValue: process.transcript))
        }
    }

    static func stop(_ processes: [SpawnedParlor]) async {
        for process in processes { process.send(SIGTERM) }
        for process in processes { _ = await process.wait(timeout: .seconds(20)) }
    }

    @Test("a table of three: Bo's line reaches Hana and Cy (and Bo) between the moves it follows and precedes; Cy's escape code and 201 characters are refused to Cy alone")
    func threeSeatTable() async throws {
        let host = try SpawnedParlor(["host", "dots-and-boxes", "--seats", "3", "--json", "--port", "0", "--name", "Hana", "--seat", "first"],
                                     environment: Self.environment(), keepStdinOpen: true)
        let listening = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        let port = try #require(jsonEvents(listening).first?["port"] as? Int)
        var guests: [SpawnedParlor] = []
        for name in ["Bo", "Cy"] {
            let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--json", "--name", name], environment: Self.environment(),
                                          keepStdinOpen: true)
            _ = try #require(await guest.line(containing: "\"table\"", timeout: .seconds(20)), Comment(rawValue: guest.transcript))
            guests.append(guest)
        }
        let (bo, cy) = (guests[0], guests[1])
        let all = [host, bo, cy]
        for process in all {
            _ = try #require(await process.line(containing: "\"started\"", timeout: .seconds(20)), Comment(rawValue: process.transcript))
        }

        host.type("a1-b1\n")
        try await Self.waitForStory(all, count: 1)
        bo.type("/say hello from Bo\n")
        try await Self.waitForStory(all, count: 2)
        bo.type("b1-c1\n")
        try await Self.waitForStory(all, count: 3)
        cy.type("/say \u{1B}[31mred\n")
        cy.type("/say " + String(repeating: "x", count: 201) + "\n")
        let deadline = ContinuousClock.now + .seconds(20)
        while Self.refusals(cy).count < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(Self.refusals(cy) == ["talkControlCharacter", "talkTooLong"], Comment(rawValue: cy.transcript))
        cy.type("c1-d1\n")
        try await Self.waitForStory(all, count: 4)
        host.type("/say after three\n")
        try await Self.waitForStory(all, count: 5)

        let expected = ["move 0", "Bo after 1: hello from Bo", "move 1", "move 2", "Hana after 3: after three"]
        for process in all { #expect(Self.story(process) == expected, Comment(rawValue: process.transcript)) }
        #expect(Self.refusals(host).isEmpty && Self.refusals(bo).isEmpty)
        #expect(!host.output.contains("red") && !bo.output.contains("red"), "nothing of the refused line was relayed")
        await Self.stop(all)
    }

    @Test("parlor host --no-talk: the guest's line and the host's own are refused as talkOff, and the guest is told why")
    func noTalk() async throws {
        let host = try SpawnedParlor(["host", "connect4", "--no-talk", "--json", "--port", "0", "--name", "Hana", "--seat", "first"],
                                     environment: Self.environment(), keepStdinOpen: true)
        let listening = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        let port = try #require(jsonEvents(listening).first?["port"] as? Int)
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--json", "--name", "Bo"], environment: Self.environment(),
                                      keepStdinOpen: true)
        for process in [host, guest] {
            _ = try #require(await process.line(containing: "\"started\"", timeout: .seconds(20)), Comment(rawValue: process.transcript))
        }
        guest.type("/say anyone there?\n")
        host.type("/say hello\n")
        let refused = try #require(await guest.line(containing: "\"talk-refused\"", timeout: .seconds(20)), Comment(rawValue: guest.transcript))
        let event = try #require(jsonEvents(refused).first)
        #expect(event["reason"] as? String == "talkOff")
        #expect(event["message"] as? String == "The host has turned table talk off.")
        _ = try #require(await host.line(containing: "\"talk-refused\"", timeout: .seconds(20)), Comment(rawValue: host.transcript))
        try await Task.sleep(for: .milliseconds(300))
        for process in [host, guest] { #expect(!process.output.contains("\"event\":\"talk\""), Comment(rawValue: process.transcript)) }
        await Self.stop([host, guest])
    }

    @Test("plain mode: a /say line is printed on the other side as 'NAME says: TEXT'")
    func plainSay() async throws {
        let host = try SpawnedParlor(["host", "connect4", "--json", "--port", "0", "--name", "Hana", "--seat", "first"],
                                     environment: Self.environment(), keepStdinOpen: true)
        let listening = try #require(await host.line(containing: "\"listening\""), Comment(rawValue: host.transcript))
        let port = try #require(jsonEvents(listening).first?["port"] as? Int)
        let guest = try SpawnedParlor(["join", "127.0.0.1:\(port)", "--plain", "--name", "Bo"], environment: Self.environment(),
                                      keepStdinOpen: true)
        _ = try #require(await host.line(containing: "\"started\"", timeout: .seconds(20)), Comment(rawValue: host.transcript))
        host.type("/say good luck, Bo\n")
        _ = try #require(await guest.line(containing: "Hana says: good luck, Bo", timeout: .seconds(20)), Comment(rawValue: guest.transcript))
        guest.type("/say thanks\n")
        let deadline = ContinuousClock.now + .seconds(20)
        while !host.output.contains("\"text\":\"thanks\""), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(host.output.contains(#""role":"player","seat":1,"name":"Bo","text":"thanks""#), Comment(rawValue: host.transcript))
        await Self.stop([host, guest])
    }
}
