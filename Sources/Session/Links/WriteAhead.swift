// Where each side's saves sit in the conversation (docs/STORE.md): the host
// saves a committed state before any frame reveals it, at a table once for
// every link; the guest queues its saves, sends a change of its own only
// once the save of its previous one is on disk, and acknowledges the end
// only once the end is on disk.
// Session does not know the store: the saves are passed in.

import Match

extension HostedMatch {
    /// Has `save` write every committed state before any frame that reveals
    /// it leaves: one save per state for every guest link and the spectators
    /// (`TableSave`), each link's frames sent from the save's callback in
    /// commit order. `save` should return at once and call back from its own
    /// thread. Call before the controller starts.
    public func saveBeforeRevealing(_ save: @escaping RemoteGuest.Persist) {
        // Spectators wait for the same save as the guest links (docs/PROTOCOL.md, section 17).
        let table = TableSave(links: guests.count + (spectators == nil ? 0 : 1), save: save)
        for guest in guests { guest.persistBeforeSending(asynchronously: table.persist) }
        spectators?.persistBeforeSending(asynchronously: table.persist)
    }
}

extension JoinedMatch {
    /// Has the guest's side saved: each state it commits or adopts goes to
    /// `save`, which returns at once and calls back once the state is on disk
    /// (nothing waits for the disk on the cooperative pool). The end's
    /// acknowledgement is sent from the end's callback (the host takes the end
    /// as delivered only once the guest has saved it), and a change of the
    /// guest's own leaves only once the save of its previous change has
    /// called back (`SaveBarrier`).
    /// Call before the controller starts.
    public func saveBeforeAcknowledging(_ save: @escaping RemoteHost.Persist) {
        remote.persistBeforeAcknowledging(asynchronously: save)
    }
}
