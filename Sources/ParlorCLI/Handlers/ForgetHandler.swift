import Foundation
import Store
import TerminalUI

/// Runs `parlor forget ID`: deletes a saved match, asking first on a TTY.
func runForget(_ options: ForgetOptions) async throws -> ExitCode {
    let store = LocalData.matchStore
    let records = try Stores.findOne(options.id, in: store)
    guard let first = records.first else { return .failure }
    if !options.yes {
        guard isatty(STDIN_FILENO) == 1 else {
            throw CommandFailure("not deleting without asking: stdin is not a terminal. Add --yes to delete anyway.", exitCode: .usage)
        }
        let question = "Forget match \(first.state.matchID.short) (\(first.state.gameID) against "
            + "\(first.opponentNames.joined(separator: ", "))\(first.state.isEnded ? "" : ", not finished"))? [y/N] "
        guard await LinePrompt.yesNo(question) else {
            Console.write("Kept.\n")
            return .success
        }
    }
    for record in records {
        do { try store.remove(record) } catch { throw StoreFailure(error: error) }
    }
    Console.write("Forgot match \(first.state.matchID.short).\n")
    return .success
}
