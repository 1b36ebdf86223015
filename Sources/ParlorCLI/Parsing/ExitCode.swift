@preconcurrency import Glibc

/// How a `parlor` process ends, as the number a shell sees in `$?`.
///
/// The values follow BSD `sysexits.h` where one fits, so scripts can tell a
/// typo (64) from a network that went away (75). The man page's EXIT STATUS
/// section lists every case; a test keeps the two in step.
public enum ExitCode: Int32, Sendable, CaseIterable, CustomStringConvertible {
    /// Everything went as asked.
    case success = 0
    /// The command ran but failed, e.g. the connection was refused or the match was lost to an error.
    case failure = 1
    /// `EX_USAGE`: the command line was wrong (unknown command, flag or game, bad value).
    case usage = 64
    /// `EX_DATAERR`: a match file or match blob is damaged or of an unknown format.
    case dataError = 65
    /// `EX_UNAVAILABLE`: a service parlor needs is missing, e.g. no DNS-SD daemon.
    case serviceUnavailable = 69
    /// `EX_SOFTWARE`: a bug in parlor; please report it.
    case internalError = 70
    /// `EX_IOERR`: reading or writing a file or the terminal failed.
    case ioError = 74
    /// `EX_TEMPFAIL`: the peer went away or the network is down; trying again later may work.
    case temporaryFailure = 75
    /// The terminal went away (SIGHUP, 128 + 1), e.g. an SSH connection died; the match can be resumed.
    case hangUp = 129
    /// Interrupted by SIGINT (128 + 2), the shell convention.
    case interrupted = 130
    /// Ended by SIGTERM (128 + 15).
    case terminated = 143

    /// One line for the man page and `--help`, e.g. "usage error".
    public var description: String {
        switch self {
        case .success: "success"
        case .failure: "failure at run time"
        case .usage: "usage error"
        case .dataError: "damaged data"
        case .serviceUnavailable: "service unavailable"
        case .internalError: "internal error"
        case .ioError: "input/output error"
        case .temporaryFailure: "temporary failure"
        case .hangUp: "terminal hung up"
        case .interrupted: "interrupted"
        case .terminated: "terminated"
        }
    }
}

extension ExitCode {
    /// The status for a run that a signal ended: 129 for SIGHUP, 130 for
    /// SIGINT, 143 for SIGTERM and any other.
    init(endedBy signal: Int32) {
        switch signal {
        case SIGINT: self = .interrupted
        case SIGHUP: self = .hangUp
        default: self = .terminated
        }
    }
}
