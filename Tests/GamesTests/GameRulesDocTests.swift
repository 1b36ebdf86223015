import Foundation
import Testing
@testable import Games

/// docs/PROTOCOL.md, "Games: rules and move encodings": the `encoding` and
/// `moves` blocks an outside client reads are checked against the rules in
/// this module, so the document cannot drift from the games.
@Suite struct GameRulesDocTests {
    /// One fenced block: its kind (`encoding`, `moves`), its `key=value` words and its lines.
    struct Block {
        var kind: String
        var attributes: [String: String]
        var lines: [String]
    }

    static var documentText: String {
        get throws {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/PROTOCOL.md")
            return try String(contentsOf: url, encoding: .utf8)
        }
    }

    static func blocks(_ kind: String) throws -> [Block] {
        var found: [Block] = []
        var current: Block?
        for line in try documentText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if var block = current {
                if line.hasPrefix("```") {
                    found.append(block)
                    current = nil
                } else {
                    block.lines.append(line)
                    current = block
                }
            } else if line.hasPrefix("```\(kind) ") {
                var attributes: [String: String] = [:]
                for word in line.dropFirst(3 + kind.count).split(separator: " ") {
                    let pair = word.split(separator: "=", maxSplits: 1).map(String.init)
                    if pair.count == 2 { attributes[pair[0]] = pair[1] }
                }
                current = Block(kind: kind, attributes: attributes, lines: [])
            }
        }
        return found
    }

    static let documentedGames = ["connect4", "cube4", "tictactoe"]

    /// The blocks of `kind`, each with its game id and that game's start position; each documented game has one at least.
    static func gameBlocks(_ kind: String) throws -> [(String, any Game, Block)] {
        let blocks = try blocks(kind)
        #expect(Set(blocks.compactMap { $0.attributes["game"] }).isSuperset(of: documentedGames), "a game lacks its \(kind) block")
        return try blocks.map { block in
            let id = try #require(block.attributes["game"])
            return (id, try #require(GameCatalog.newGame(id: id), "unknown game \(id)"), block)
        }
    }

    @Test func everyCatalogGameHasItsSectionWithItsRulesVersion() throws {
        let text = try Self.documentText
        for game in GameCatalog.builtIn {
            #expect(text.contains("### \(game.id) (rules version \(game.rulesVersion))"), "no section for \(game.id)")
        }
    }

    @Test func everyDocumentedNotationIsItsRawValue() throws {
        for (id, game, block) in try Self.gameBlocks("encoding") {
            for line in block.lines where !line.isEmpty {
                let parts = line.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
                let raw = try #require(parts.count == 2 ? Int(parts[1]) : nil, "bad line '\(line)' for \(id)")
                #expect(game.move(fromNotation: parts[0]) == Move(raw), "\(id): \(parts[0]) should be \(raw)")
                #expect(game.notation(for: Move(raw)) == parts[0], "\(id): \(raw) should read \(parts[0])")
            }
        }
    }

    @Test func everyWorkedGameEndsAsDocumented() throws {
        for (id, start, block) in try Self.gameBlocks("moves") {
            var game = start
            let moves = block.lines.joined(separator: " ").split(separator: " ").compactMap { Int($0) }
            #expect(!moves.isEmpty)
            for (index, raw) in moves.enumerated() {
                #expect(game.result == .inProgress, "\(id): the game ended before move \(index)")
                // Strict rotation from seat 0, as documented for these games.
                #expect(game.activeSeat == index % 2, "\(id): move \(index) is not seat \(index % 2)'s")
                #expect(game.isLegal(Move(raw)), "\(id): move \(index) (\(raw)) is illegal")
                try game.apply(Move(raw))
            }
            let expected: GameResult = switch block.attributes["ends"] {
            case "draw": .draw
            case let ends? where ends.hasPrefix("seat"): .won(by: Int(ends.dropFirst(4)) ?? -1)
            default: .inProgress
            }
            #expect(game.result == expected, "\(id) \(moves): ended \(game.result), the document says \(expected)")
        }
    }

    @Test func theDocumentedGeometryIsTheGames() {
        #expect(Cube4.lines.count == 76)
        #expect(TicTacToe.lines.count == 8)
        #expect((Connect4.columns, Connect4.rows) == (7, 6))
        #expect(([Connect4.self, Cube4.self, TicTacToe.self] as [any Game.Type]).allSatisfy { $0.alternatesStrictly && $0.seatRange == 2...2 })
    }
}
