/// Seats taking turns in rotation, skipping the ones that have left: the
/// turn order of a game for more than two players (dots-and-boxes, Chinese
/// checkers) once someone quits or runs out of time.
public struct SeatRotation: Hashable, Sendable {
    /// Seats in the rotation, including those that left.
    public let seatCount: Int
    /// Seats that have left, bit per seat.
    public private(set) var departed: UInt8 = 0
    /// The seat whose turn it is.
    public private(set) var current: SeatIndex

    /// A rotation of `seatCount` seats (at most 8: `departed` keeps a bit per
    /// seat), none of them gone, with `current` to move.
    public init(seatCount: Int, current: SeatIndex = 0) {
        self.seatCount = seatCount
        self.current = current
    }

    /// The turn passes from `current` to the next seat that has not left.
    public mutating func passTurn() { current = next(after: current) }

    /// Whether `seat` has left.
    public func hasLeft(_ seat: SeatIndex) -> Bool { (0..<8).contains(seat) && departed & (1 << UInt8(seat)) != 0 }

    /// The first seat after `seat` that has not left (`seat` itself when every other seat has).
    public func next(after seat: SeatIndex) -> SeatIndex {
        var next = (seat + 1) % seatCount
        while hasLeft(next) && next != seat { next = (next + 1) % seatCount }
        return next
    }

    /// Takes `seat` out of the rotation (the turn passes on when it was its);
    /// false when it is not a seat or already out.
    public mutating func remove(_ seat: SeatIndex) -> Bool {
        guard (0..<seatCount).contains(seat), !hasLeft(seat) else { return false }
        departed |= 1 << UInt8(seat)
        if current == seat { passTurn() }
        return true
    }
}
