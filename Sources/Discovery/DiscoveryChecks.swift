// The DNS-SD checks of `parlor doctor`: does a daemon answer, and is a
// service published here seen by a browse here. ParlorCLI words and prints
// the outcomes; these decide them.

@preconcurrency import Glibc

/// `parlor doctor`'s checks of the DNS-SD daemon, on any `ServiceDirectory`.
public enum DiscoveryChecks {
    /// How long a browse may take to be refused before the daemon counts as answering.
    public static let daemonWait: Duration = .seconds(1)
    /// How long the round trip may take.
    public static let roundTripWait: Duration = .seconds(8)
    /// A service type of its own, so the test service never shows up in anyone's `parlor browse`.
    public static let doctorServiceType = "_parlor-doctor._tcp"

    /// Nil when `directory`'s daemon accepts a browse of `parlorServiceType`
    /// within `limit`, else why it refused.
    public static func daemonRefusal(in directory: any ServiceDirectory, within limit: Duration = daemonWait) async -> DiscoveryError? {
        // No service is wanted: the look only tells whether the daemon refuses a browse.
        if case .failed(let error) = await directory.firstService(ofType: parlorServiceType, within: limit, where: { _ in false }) {
            return error
        }
        return nil
    }

    /// How the round trip went.
    public enum RoundTrip: Sendable {
        /// The service published as `name` was seen with its TXT, `after` the start, at `addresses`.
        case found(name: String, after: Duration, addresses: [String])
        /// Publishing failed.
        case publishFailed(DiscoveryError)
        /// The browse failed.
        case browseFailed(DiscoveryError)
        /// Published as `name`, but no browse saw it within the time.
        case notSeen(name: String, within: Duration)
        /// The browse ended early, with no failure.
        case ended

        /// The service was seen.
        public var passed: Bool { if case .found = self { true } else { false } }
    }

    /// Publishes a service of `doctorServiceType` on `port` with a random
    /// token in its TXT, waits up to `limit` until a browse of `directory`
    /// sees it with that token, and withdraws it.
    public static func roundTrip(in directory: any ServiceDirectory, port: UInt16,
                                 within limit: Duration = roundTripWait) async -> RoundTrip {
        let token = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let name = "parlor doctor \(getpid()) \(token.prefix(6))"
        let started = ContinuousClock.now
        let advertisement: any ServiceAdvertisement
        do {
            var txt = TXTRecord()
            // Sixteen hex digits always fit a TXT entry.
            try? txt.set("check", to: token)
            advertisement = try await directory.advertise(
                ServiceRegistration(name: name, type: doctorServiceType, port: port, txt: txt))
        } catch {
            return .publishFailed(error)
        }
        let registered = advertisement.name
        let sighting = await directory.firstService(ofType: doctorServiceType, within: limit) { service in
            service.name == registered && service.txt["check"] == token
        }
        await advertisement.withdraw()
        switch sighting {
        case .seen(let service):
            return .found(name: registered, after: ContinuousClock.now - started, addresses: service.addresses.map(\.host))
        case .failed(let error): return .browseFailed(error)
        case .notSeen: return .notSeen(name: registered, within: limit)
        case .ended: return .ended
        }
    }
}
