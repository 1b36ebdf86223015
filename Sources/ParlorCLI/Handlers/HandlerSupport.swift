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

    /// "yours", the opponent's name, or "-" when the match is over.
    static func whoseTurn(_ record: StoredMatch) -> String {
        guard let seat = record.state.activeSeat else { return "-" }
        return seat == record.localSeat ? "yours" : record.state.seats[seat].name
    }

    /// The local seat's outcome, or "-" while the match goes on.
    static func outcome(_ record: StoredMatch) -> String {
        let outcome = record.state.seats[record.localSeat].outcome
        return outcome == .none ? "-" : outcome.description
    }

    /// The local seat's place at the end (1 is first), where the game ranks; nil otherwise.
    static func place(_ record: StoredMatch) -> Int? {
        record.state.placements.flatMap { $0.indices.contains(record.localSeat) ? $0[record.localSeat] : nil }
    }

    /// `won`, or `lost (3rd)` at a table of three or more, as `parlor matches` shows it.
    static func outcomeText(_ record: StoredMatch) -> String {
        guard let places = MatchText.tablePlacements(record.state), places.indices.contains(record.localSeat) else {
            return outcome(record)
        }
        return outcome(record) + " (\(MatchText.ordinal(places[record.localSeat])))"
    }

    /// Local time as `YYYY-MM-DD HH:MM`.
    static func timestamp(_ milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02d %02d:%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min)
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
    var message: String { error.description }
}

/// A failure at run time, said in a sentence a person can act on.
struct CommandFailure: UserFacingError {
    var message: String
    var exitCode: ExitCode
    init(_ message: String, exitCode: ExitCode = .failure) {
        self.message = message
        self.exitCode = exitCode
    }
}
