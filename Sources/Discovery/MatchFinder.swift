// `parlor resume` on a guest's side: the host may have come back on another
// port (or another address), so the guest looks for the host advertising the
// match's id before it tries the address it saved.

/// Finds a host advertising a given match id (TXT key `match`) on the LAN.
public enum MatchFinder {
    /// The first service whose TXT names `matchID` (ignoring case) and that
    /// has an address, or nil after `limit`, or when browsing fails (no DNS-SD:
    /// the caller falls back to the saved address).
    public static func find(matchID: String, within limit: Duration,
                            in directory: any ServiceDirectory = DNSSDDirectory()) async -> DiscoveredService? {
        let wanted = matchID.lowercased()
        let sighting = await directory.firstService(ofType: parlorServiceType, within: limit) { service in
            service.txt["match"]?.lowercased() == wanted && !service.addresses.isEmpty
        }
        if case .seen(let service) = sighting { return service }
        return nil
    }
}
