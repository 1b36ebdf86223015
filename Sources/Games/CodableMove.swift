#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A game whose moves are values of a `Codable` type of its own (a bid, a
/// word, a from-and-to), carried as byte moves: the value's JSON, keys
/// sorted, at most `moveByteLimit` bytes.
///
/// Declare `moveByteLimit` (how long the longest move's JSON may be), make
/// moves with `move(_:)`, and read them in `isLegal`/`apply` with
/// `value(of:)`. A move whose bytes are not exactly what `move(_:)` makes of
/// some value (another spelling of the same JSON, or not JSON at all) reads
/// as nil, so every move has one byte string and a peer cannot smuggle in
/// another: refuse a nil in `isLegal`.
public protocol CodableMoveGame: Game {
    /// The type of this game's moves.
    associatedtype MoveValue: Codable & Sendable
}

extension CodableMoveGame {
    /// The byte move carrying `value`; throws `MoveEncodingError.tooLong`
    /// when its encoding is longer than `moveByteLimit` (nothing is cut).
    public static func move(_ value: MoveValue) throws(MoveEncodingError) -> Move {
        try Move(encoding: value, limit: moveByteLimit ?? Move.maximumByteLimit)
    }

    /// The value `move` carries, or nil when it is not a byte move that
    /// `move(_:)` would have made (numbered, unreadable, or spelled otherwise).
    public static func value(of move: Move) -> MoveValue? {
        guard let bytes = move.bytes, let value = move.decoded(as: MoveValue.self),
              let again = try? Move.canonicalEncoding(of: value), again == bytes else { return nil }
        return value
    }
}

extension Move {
    /// A byte move holding `value` as JSON with sorted keys, so the same value
    /// gives the same bytes on every peer; throws `MoveEncodingError` when it
    /// cannot be encoded or is longer than `limit` bytes (nothing is cut).
    public init<Value: Encodable>(encoding value: Value, limit: Int) throws(MoveEncodingError) {
        let bytes: [UInt8]
        do { bytes = try Self.canonicalEncoding(of: value) } catch {
            throw .notEncodable(String(describing: error))
        }
        guard bytes.count <= min(limit, Self.maximumByteLimit) else {
            throw .tooLong(bytes: bytes.count, limit: min(limit, Self.maximumByteLimit))
        }
        self.init(bytes: bytes)
    }

    /// The value of type `Value` this byte move holds, or nil when it is a
    /// numbered move or its bytes are not such a value's JSON.
    public func decoded<Value: Decodable>(as type: Value.Type) -> Value? {
        guard let bytes else { return nil }
        return try? JSONDecoder().decode(Value.self, from: Data(bytes))
    }

    /// The one encoding of a move's value: JSON, keys sorted, no slashes escaped.
    static func canonicalEncoding<Value: Encodable>(of value: Value) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }
}

/// Why a value could not be made into a move.
public enum MoveEncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The value's encoding is `bytes` long, more than the game's `limit`.
    case tooLong(bytes: Int, limit: Int)
    /// The value could not be encoded at all (the encoder's reason).
    case notEncodable(String)

    /// A sentence a person reads: "the move is 130 bytes, more than this game's 64".
    public var description: String {
        switch self {
        case .tooLong(let bytes, let limit): "the move is \(bytes) bytes, more than this game's \(limit)"
        case .notEncodable(let reason): "the move cannot be encoded: \(reason)"
        }
    }
}
