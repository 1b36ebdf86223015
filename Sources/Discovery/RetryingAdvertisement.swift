// A registration the daemon refused for a reason that may pass, tried again
// in the background until it is listed or withdrawn (HostedListing).

import Synchronization

/// A registration refused for a reason that may pass (`DiscoveryError.mayPass`),
/// tried again until the daemon lists it or it is withdrawn.
///
/// The first attempt comes `firstDelay` after the refusal, each next one
/// twice as long after the last, up to `longestDelay`. Each attempt registers
/// the newest TXT record given to `update(txt:)`. Dropping the last reference
/// stops the attempts and withdraws what they registered.
public final class RetryingAdvertisement: ServiceAdvertisement, Sendable {
    /// The wait before the first attempt again.
    public static let firstDelay: Duration = .seconds(2)
    /// The longest wait between two attempts.
    public static let longestDelay: Duration = .seconds(30)

    private struct State {
        var registration: ServiceRegistration
        var listed: (any ServiceAdvertisement)?
        var withdrawn = false
        var gaveUp: DiscoveryError?
        var waiting: [AsyncStream<String>.Continuation] = []
        var attempts: Task<Void, Never>?
    }

    /// The service type, e.g. "_parlor._tcp".
    public let type: String
    private let state: Mutex<State>

    init(registration: ServiceRegistration, directory: any ServiceDirectory, firstDelay: Duration = firstDelay) {
        type = registration.type
        state = Mutex(State(registration: registration))
        let attempts = Task { [weak self] in
            var delay = firstDelay
            while !Task.isCancelled {
                try? await Task.sleep(for: delay)
                guard let self, !Task.isCancelled else { return }
                if await self.attempt(in: directory) { return }
                delay = min(delay * 2, Self.longestDelay)
            }
        }
        state.withLock { $0.attempts = attempts }
    }

    deinit {
        // The registration made by an attempt withdraws itself when dropped.
        state.withLock { $0.attempts?.cancel() }
    }

    /// The name the daemon confirmed once listed; until then the name asked for.
    public var name: String {
        state.withLock { $0.listed?.name ?? $0.registration.name }
    }

    /// The name the daemon listed it under (followed if renamed after a clash); nil until then, and once withdrawn.
    public var listedName: String? {
        state.withLock { $0.listed?.listedName }
    }

    /// Why the attempts stopped before it was listed, if a later refusal was for good.
    public var gaveUp: DiscoveryError? { state.withLock { $0.gaveUp } }

    /// The confirmed name once it is listed (at once if it already is), then the end;
    /// ends with nothing when it is withdrawn or given up first.
    public func listed() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let now: (name: String?, ended: Bool) = state.withLock { state in
            if let listed = state.listed { return (listed.name, true) }
            if state.withdrawn || state.gaveUp != nil { return (nil, true) }
            state.waiting.append(continuation)
            return (nil, false)
        }
        if let name = now.name { continuation.yield(name) }
        if now.ended { continuation.finish() }
        return stream
    }

    /// Replaces the TXT record: the listed registration's now, else the next attempt's.
    public func update(txt: TXTRecord) async throws(DiscoveryError) {
        let listed: (any ServiceAdvertisement)? = try state.withLock { (state) throws(DiscoveryError) in
            guard !state.withdrawn else { throw .withdrawn(name: state.registration.name) }
            state.registration.txt = txt
            return state.listed
        }
        try await listed?.update(txt: txt)
    }

    /// Stops the attempts, or withdraws the listing; later calls do nothing.
    public func withdraw() async {
        let (listed, waiting) = state.withLock { state in
            state.withdrawn = true
            state.attempts?.cancel()
            defer { state.listed = nil; state.waiting = [] }
            return (state.listed, state.waiting)
        }
        for continuation in waiting { continuation.finish() }
        await listed?.withdraw()
    }

    /// One attempt; true when there is nothing left to try (listed, withdrawn or refused for good).
    private func attempt(in directory: any ServiceDirectory) async -> Bool {
        guard let registration = state.withLock({ $0.withdrawn ? nil : $0.registration }) else { return true }
        let advertisement: any ServiceAdvertisement
        do throws(DiscoveryError) {
            advertisement = try await directory.advertise(registration)
        } catch where error.mayPass {
            return false
        } catch {
            let waiting = state.withLock { state in
                state.gaveUp = error
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.finish() }
            return true
        }
        let outcome: (keep: Bool, newer: TXTRecord?, waiting: [AsyncStream<String>.Continuation]) = state.withLock { state in
            guard !state.withdrawn else { return (false, nil, []) }
            state.listed = advertisement
            defer { state.waiting = [] }
            let newer = state.registration.txt == registration.txt ? nil : state.registration.txt
            return (true, newer, state.waiting)
        }
        guard outcome.keep else {
            await advertisement.withdraw()
            return true
        }
        // The facts changed while the daemon was being asked: say the newest.
        if let newer = outcome.newer { try? await advertisement.update(txt: newer) }
        let name = advertisement.name
        for continuation in outcome.waiting {
            continuation.yield(name)
            continuation.finish()
        }
        return true
    }
}
