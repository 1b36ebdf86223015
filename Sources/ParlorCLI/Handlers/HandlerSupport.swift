import Foundation
import Games
import Match
import Store
import TerminalUI

/// What commands say about saved matches.
enum Stores {
    /// Tells the user about files that could not be read; they are skipped, never fatal.
    static func reportProblems(_ problems: [StoreProblem]) {
        for problem in problems { Console.writeError("parlor: skipped a damaged match file: \(problem)\n") }
    }

    /// Finds exactly one saved match by id prefix, as a user-facing error otherwise.
    static func findOne(_ id: String, in store: MatchStore) throws -> [StoredMatch] {
        do { return try store.find(id) } catch { throw StoreFailure(error: error) }
    }
}

/// A store error as the user reads it.
struct StoreFailure: UserFacingError {
    var error: StoreError
    var exitCode: ExitCode {
        switch error {
        case .notFound, .ambiguous: .failure
        case .unreadable: .dataError
        case .system: .ioError
        }
    }
    var message: String {
        guard case .notFound = error else { return error.description }
        return error.description + " (see 'parlor matches')"
    }
}

/// A failure at run time, said in a sentence a person can act on.
/// The person stopped a command before it did anything (Ctrl-C at a prompt):
/// not an error. Said as it is, without "Error:", and parlor ends as an interrupt does (130).
struct Stopped: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

struct CommandFailure: UserFacingError {
    var message: String
    var exitCode: ExitCode
    init(_ message: String, exitCode: ExitCode = .failure) {
        self.message = message
        self.exitCode = exitCode
    }
}
