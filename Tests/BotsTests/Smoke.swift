import Testing
@testable import Bots
import Games
@Test func smoke() { var b = Bot(level: .hard, seed: 1); #expect(b.chooseMove(in: Connect4()) != nil) }
