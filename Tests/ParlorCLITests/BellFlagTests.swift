import Testing
@testable import ParlorCLI

/// Issue 14 item 3: the bell is on by default when a turn becomes yours;
/// `--no-bell` and the settings file's `bell = no` turn it off, for every
/// command that plays a match.
@Suite("The bell: on unless turned off")
struct BellFlagTests {
    static func display(_ words: [String], settings: Settings = Settings()) throws -> DisplayFlags? {
        guard case .command(let command) = try Parlor.parse(words, settings: settings) else { return nil }
        switch command {
        case let options as PlayOptions: return options.display
        case let options as HostOptions: return options.display
        case let options as JoinOptions: return options.display
        case let options as ResumeOptions: return options.display
        default: return nil
        }
    }

    @Test("on by default, off with --no-bell, off with bell = no, for play, host, join and resume",
          arguments: [["play", "connect4"], ["host", "connect4"], ["join", "127.0.0.1:7477"], ["resume", "1a2b3c4d"]])
    func bell(_ words: [String]) throws {
        #expect(try Self.display(words)?.bell == true)
        #expect(try Self.display(words + ["--no-bell"])?.bell == false)
        var quiet = Settings()
        quiet.bell = false
        #expect(try Self.display(words, settings: quiet)?.bell == false)
        var loud = Settings()
        loud.bell = true
        #expect(try Self.display(words + ["--no-bell"], settings: loud)?.bell == false, "the flag wins over the file")
    }
}
