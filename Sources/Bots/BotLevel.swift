/// How strong a computer opponent plays.
///
/// The raw value is what a person types after `--bot` or `--vs bot:`.
public enum BotLevel: String, CaseIterable, Sendable {
    /// Takes a win in one, blocks a loss in one, otherwise plays at random.
    case easy
    /// A shallow search with a line-counting judgement; clearly better than `easy`.
    case medium
    /// A deep search (alpha-beta, transposition table, iterative deepening);
    /// perfect at tic-tac-toe.
    case hard

    /// The name a seat played by this bot takes: "Easy bot", "Medium bot", "Hard bot".
    public var playerName: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() + " bot" }
}
