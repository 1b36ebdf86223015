// Looking for one service for a bounded time: `parlor resume` looking for
// its match's host, `parlor doctor` for the service it published, and
// whether the daemon accepts a browse at all.

/// What a bounded look for one service saw.
public enum ServiceSighting: Sendable {
    /// The first service the look wanted.
    case seen(DiscoveredService)
    /// The time was up before any wanted service appeared.
    case notSeen
    /// The browse ended early, with no failure and no wanted service.
    case ended
    /// The browse failed (no daemon, the daemon went away).
    case failed(DiscoveryError)
}

extension ServiceDirectory {
    /// Browses `type` for up to `limit` and returns the first service (found
    /// or updated) that `wanted` accepts, or why there is none.
    public func firstService(ofType type: String, within limit: Duration,
                             where wanted: @escaping @Sendable (DiscoveredService) -> Bool) async -> ServiceSighting {
        let events = browse(type: type)
        return await withTaskGroup(of: ServiceSighting.self) { group in
            group.addTask {
                for await event in events {
                    switch event {
                    case .found(let service), .updated(let service):
                        if wanted(service) { return .seen(service) }
                    case .lost, .refused:
                        break
                    case .failed(let error):
                        return .failed(error)
                    }
                }
                // Also the end of a look whose time is up: that child's answer comes first.
                return .ended
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return .notSeen
            }
            let first = await group.next() ?? .notSeen
            group.cancelAll()
            return first
        }
    }
}
