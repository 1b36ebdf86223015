import Discovery
import Foundation
import Testing

/// Every lab test, one at a time: each brings up daemons of its own, the
/// machine has two cores, and mDNS timing is what several tests measure.
/// The suites below are nested in this one so `.serialized` covers them all.
@Suite(.serialized) struct LabSuite {}

extension LabSuite {
/// Interop on a real (virtual) LAN: daemons and peers no one here wrote.
@Suite(.enabled(if: LabAvailability.isAvailable, LabAvailability.skipComment))
struct LabInteropTests {
    static let publishArguments = [
        "avahi-publish", "-s", "Lab Interop Game", "_parlor._tcp", "40123",
        "pv=1", "game=connect4", "state=open", "host=Ana",
    ]

    @Test func avahiBrowseOnBSeesAvahiPublishOnAWithItsTXT() async throws {
        try await Lab.with { lab in
            let publisher = try lab.start(host: "A", Self.publishArguments)
            let result = try await lab.poll(host: "B", ["avahi-browse", "-rpt", "_parlor._tcp"]) {
                $0.standardOutput.contains("=;eth0;IPv4;Lab\\032Interop\\032Game;")
            }
            let line = result.standardOutput.split(separator: "\n").first {
                $0.hasPrefix("=;eth0;IPv4;Lab\\032Interop\\032Game;")
            }
            let resolved = String(try #require(line))
            #expect(resolved.contains(";hosta.local;\(lab.address(of: "A"));40123;"))
            #expect(resolved.contains("\"game=connect4\""))
            #expect(resolved.contains("\"host=Ana\""))
            await publisher.stop()
        }
    }

    @Test(.enabled(if: LabAvailability.hasPythonZeroconf, "Debian's python3-zeroconf is not installed"))
    func pythonZeroconfOnBSeesAServicePublishedOnA() async throws {
        try await Lab.with { lab in
            let publisher = try lab.start(host: "A", Self.publishArguments)
            let output = try await ZeroconfBrowser.browse(on: "B", in: lab)
            #expect(output.contains("Lab Interop Game._parlor._tcp.local."))
            #expect(output.contains("'\(lab.address(of: "A"))'"))
            #expect(output.contains("40123"))
            #expect(output.contains("('game', 'connect4')"))
            #expect(output.contains("('host', 'Ana')"))
            await publisher.stop()
        }
    }

    @Test func threeHostsShareOneBridgedLAN() async throws {
        try await Lab.with(hosts: 3) { lab in
            let publisher = try lab.start(
                host: "C", ["avahi-publish", "-s", "From C", "_parlor._tcp", "40124", "pv=1"])
            for host in ["A", "B"] {
                let result = try await lab.poll(host: host, ["avahi-browse", "-rpt", "_parlor._tcp"]) {
                    $0.standardOutput.contains(";\(lab.address(of: "C"));40124;")
                }
                #expect(result.standardOutput.contains("From\\032C"))
            }
            await publisher.stop()
        }
    }

    @Test func execPassesStdinStdoutAndTheExitStatusThrough() async throws {
        try await Lab.with { lab in
            let echo = await lab.run(host: "B", ["sh", "-c", "cat; exit 7"], input: "hello from the test\n")
            #expect(echo.status == 7)
            #expect(echo.standardOutput == "hello from the test\n")
            let address = await lab.run(host: "A", ["ip", "-4", "-o", "addr", "show", "dev", "eth0"])
            #expect(address.standardOutput.contains("10.77.0.1/24"))
        }
    }

    @Test func downRemovesEverythingAndIsIdempotent() async throws {
        let lab = try await Lab.up()
        let publisher = try lab.start(host: "A", ["sleep", "300"])
        // Inside host A before down begins: `lab exec` first checks the lab, and a
        // down that ran before it entered would test that check instead.
        try await publisher.waitUntilInside(host: "A", of: lab)
        await lab.down()
        await lab.down()
        let namespaces = await Lab.runScript(["status"], prefix: lab.prefix, timeout: 10)
        #expect(namespaces.standardOutput.contains("lab '\(lab.prefix)' is down"))
        // The process it left inside host A was stopped too.
        #expect(await publisher.wait(timeout: 5) != nil)
        #expect(!FileManager.default.fileExists(atPath: "/run/parlor-lab/\(lab.prefix)"))
    }

    @Test func upRefusesToReuseALabThatIsAlreadyUp() async throws {
        try await Lab.with { lab in
            let again = await Lab.runScript(["up"], prefix: lab.prefix, timeout: 30)
            #expect(again.status == 1)
            #expect(again.standardError.contains("already up"))
            // ...and the refusal did not tear the running lab down.
            let still = await lab.run(host: "A", ["true"])
            #expect(still.succeeded)
        }
    }
}

}

extension LabSuite {
/// DNS-SD in the root network namespace, where no avahi-daemon may ever run:
/// the directory must fail with the error that explains what to do.
@Suite(.enabled(if: !RootNamespace.hasAvahiDaemon, "an avahi-daemon runs in this namespace"))
struct RootNamespaceTests {
    @Test func browseWithoutADaemonFailsWithTheClearError() async throws {
        let directory = DNSSDDirectory()
        var events = directory.browse(type: parlorServiceType).makeAsyncIterator()
        let first = await events.next()
        guard case .failed(let error)? = first else {
            Issue.record("expected .failed, got \(String(describing: first))")
            return
        }
        // A browse goes through avahi-client: what fails is making its client (AVAHI_ERR_NO_DAEMON).
        #expect(error == .daemonUnavailable(operation: "avahi_client_new", code: -26))
        #expect(error.description.contains("no avahi-daemon is running or D-Bus is unreachable"))
        #expect(error.description.contains("parlor join HOST:PORT"))
        #expect(await events.next() == nil)
    }

    @Test func advertiseWithoutADaemonThrowsTheClearError() async throws {
        let directory = DNSSDDirectory()
        await #expect(throws: DiscoveryError.daemonUnavailable(operation: "DNSServiceRegister", code: -65537)) {
            _ = try await directory.advertise(ServiceRegistration(name: "Nobody hears this", port: 40125))
        }
    }
}

}

enum RootNamespace {
    /// Whether some avahi-daemon shares this process's network namespace.
    static let hasAvahiDaemon: Bool = {
        let mine = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.contains { pid in
            guard pid.allSatisfy(\.isNumber),
                let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
                name.hasPrefix("avahi-daemon")
            else { return false }
            return (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/net")) == mine
        }
    }()
}
