import Games

/// A word chain for two: each word (a-z, 1 to 12 letters) starts with the
/// last letter of the word before; after four words the game is drawn.
public struct WordChain: CodableMoveGame, Hashable {
    /// A word of the chain.
    public struct Word: Codable, Hashable, Sendable {
        /// The word, a-z.
        public var text: String
        /// The word `text`.
        public init(text: String) { self.text = text }
    }
    public typealias MoveValue = Word
    public static let id = "word-chain"
    public static let rulesVersion = 1
    public static let displayName = "Word chain"
    public static let summary = "Each word starts with the last letter of the one before."
    public static let moveHelp = "a word"
    public static let seatRange = 2...2
    public static let alternatesStrictly = true
    /// `{"text":"…"}` of twelve letters is 23 bytes.
    public static let moveByteLimit: Int? = 24

    /// The words so far.
    public private(set) var words: [String] = []

    /// Registers the game with the catalog; safe to call from every test.
    public static func register() {
        do { try GameCatalog.register(WordChain.self) } catch { preconditionFailure("\(error)") }
    }
    public init(seats: Int) {}
    public var seatCount: Int { 2 }
    public var moveCount: Int { words.count }
    public var result: GameResult { words.count >= 4 ? .draw : .inProgress }
    public var activeSeat: SeatIndex? { result == .inProgress ? words.count % 2 : nil }
    public var legalMoves: [Move] { [] }
    public func isLegal(_ move: Move) -> Bool {
        guard result == .inProgress, let word = Self.value(of: move)?.text, (1...12).contains(word.utf8.count),
              word.utf8.allSatisfy({ (0x61...0x7a).contains($0) }) else { return false }
        return words.last.map { $0.last == word.first } ?? true
    }
    public mutating func apply(_ move: Move) throws(RuleViolation) {
        guard result == .inProgress else { throw .gameOver }
        guard isLegal(move), let word = Self.value(of: move) else { throw .illegalMove(move) }
        words.append(word.text)
    }
    public func notation(for move: Move) -> String { Self.value(of: move)?.text ?? "?" }
    public func move(fromNotation text: String) -> Move? { try? Self.move(Word(text: text)) }
}
