/// The open files a hall of bot tables needs (`parlor host --tables N`):
/// what `DescriptorLimit` must allow before the hall takes its first guest.
public enum TableBudget {
    /// Open files a table costs: the guest's socket, the match's journal and its lock.
    public static let descriptorsPerTable: UInt64 = 4
    /// Open files kept for everything else (listener, epoll, the daemon's socket, handshakes).
    public static let descriptorReserve: UInt64 = 128

    /// The open files `tables` tables need, reserve included.
    public static func descriptorsNeeded(tables: Int) -> UInt64 { UInt64(tables) * descriptorsPerTable + descriptorReserve }

    /// How many tables fit in `descriptors` open files once the reserve is kept (0 if it is not).
    public static func tablesFitting(descriptors: UInt64) -> UInt64 {
        descriptors > descriptorReserve ? (descriptors - descriptorReserve) / descriptorsPerTable : 0
    }
}
