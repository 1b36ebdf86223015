import Foundation
import ParlorTestSupport
import Testing
@preconcurrency import Glibc

/// Issue 10 item 6: a host leaving the LAN's lists. A parlor host on A is
/// watched from B by `parlor browse --json --watch` and by avahi-browse; each
/// way out (q during a match, SIGTERM and SIGINT while waiting for a guest)
/// must drop the game from both within about a second.
extension LabSuite {
    @Suite(.enabled(if: LabAvailability.isAvailable, LabAvailability.skipComment))
    struct AdvertisementWithdrawal {
        static let gameName = "Ana's Connect Four"
        /// "About a second": avahi's goodbye plus the browsers' own latency.
        static let bound = 2.0

        enum WayOut: String, CaseIterable { case q, sigterm, sigint }

        /// B's two browsers, started before the host so each sees it appear.
        struct Watchers {
            let parlor: LabProcess
            let avahi: LabProcess

            init(lab: Lab, data: DataDirectory) throws {
                parlor = try lab.start(host: "B", ParlorCommand.command(["browse", "--json", "--watch"], data: data))
                // stdbuf: avahi-browse writes to a file here, which would otherwise be block-buffered.
                avahi = try lab.start(host: "B", ["stdbuf", "-oL", "avahi-browse", "-p", "_parlor._tcp"])
            }

            /// avahi-browse -p lines ("+;eth0;IPv4;NAME;_parlor._tcp;local") whose name is the game's,
            /// escaped or not (the escaping keeps "Connect").
            static func avahiLines(_ sign: Character, in output: String) -> [Substring] {
                output.split(separator: "\n").filter { $0.first == sign && $0.contains("Connect") }
            }

            func waitUntilListed() async throws {
                try await parlor.waitForOutput("the game in parlor browse --watch", timeout: 20) { output in
                    JSONLines.objects(output).contains {
                        $0["event"] as? String == "found" && $0["name"] as? String == AdvertisementWithdrawal.gameName
                    }
                }
                try await avahi.waitForOutput("the game in avahi-browse", timeout: 20) { !Self.avahiLines("+", in: $0).isEmpty }
            }

            /// Seconds from `start` until each browser reported the game gone.
            func secondsUntilDropped(since start: Date) async throws -> (parlor: Double, avahi: Double) {
                var parlorSeconds: Double?, avahiSeconds: Double?
                let deadline = Date().addingTimeInterval(30)
                while parlorSeconds == nil || avahiSeconds == nil {
                    if parlorSeconds == nil, JSONLines.events("lost", in: parlor.output()).contains(where: {
                        $0["name"] as? String == AdvertisementWithdrawal.gameName
                    }) { parlorSeconds = Date().timeIntervalSince(start) }
                    if avahiSeconds == nil, !Self.avahiLines("-", in: avahi.output()).isEmpty {
                        avahiSeconds = Date().timeIntervalSince(start)
                    }
                    guard Date() < deadline else {
                        throw LabError.timedOut(what: "the game to be dropped", seconds: 30,
                                                output: parlor.output() + "\n" + avahi.output())
                    }
                    try await Task.sleep(for: .milliseconds(20))
                }
                return (parlorSeconds ?? .infinity, avahiSeconds ?? .infinity)
            }

            func stop() {
                parlor.send(SIGKILL)
                avahi.send(SIGKILL)
            }
        }

        @Test func qSIGTERMAndSIGINTEachDropTheGameFromBothBrowsersWithinAboutASecond() async throws {
            try await Lab.with { lab in
                for way in WayOut.allCases {
                    let watchData = try DataDirectory(), hostData = try DataDirectory(), guestData = try DataDirectory()
                    let watchers = try Watchers(lab: lab, data: watchData)
                    defer { watchers.stop() }
                    // q: a human host (moves on stdin, JSON out) quits its first move; the
                    // signals arrive while the host waits for a guest.
                    let arguments = way == .q
                        ? ["host", "connect4", "--json", "--seat", "first", "--rematch", "0", "--name", "Ana"]
                        : ["host", "connect4", "--bot", "medium", "--json", "--name", "Ana"]
                    let host = try lab.start(host: "A", ParlorCommand.command(arguments, data: hostData),
                                             input: way == .q ? "/quit\n" : nil)
                    try await host.waitForOutput(containing: "\"event\":\"listening\"", timeout: 20)
                    try await watchers.waitUntilListed()

                    let start: Date
                    var guest: LabProcess?
                    switch way {
                    case .q:
                        guest = try lab.start(host: "B", ParlorCommand.command(
                            ["join", lab.address(of: "A") + ":7477", "--bot", "medium", "--json"], data: guestData))
                        try await host.waitForOutput("the host's quit to end the match", timeout: 30) {
                            !JSONLines.events("end", in: $0).isEmpty
                        }
                        start = Date()
                    case .sigterm:
                        start = Date()
                        host.send(SIGTERM)
                    case .sigint:
                        start = Date()
                        host.send(SIGINT)
                    }
                    let dropped = try await watchers.secondsUntilDropped(since: start)
                    let status = await host.wait(timeout: 10)
                    _ = await guest?.wait(timeout: 10)
                    print("lab: after \(way.rawValue) on A, parlor browse on B dropped the game in \(Int(dropped.parlor * 1000)) ms, "
                          + "avahi-browse in \(Int(dropped.avahi * 1000)) ms; host exit status \(status.map(String.init) ?? "none")")
                    #expect(dropped.parlor < Self.bound, "\(way): parlor browse took \(dropped.parlor) s")
                    #expect(dropped.avahi < Self.bound, "\(way): avahi-browse took \(dropped.avahi) s")
                    let expected: Int32 = switch way { case .q: 0; case .sigterm: 143; case .sigint: 130 }
                    #expect(status == expected, "\(way): host stderr: \(host.errors())")
                }
            }
        }
    }
}
