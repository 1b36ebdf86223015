// Every way the network shell fails, and the one place its sentences are written.
@preconcurrency import Glibc

/// Why one connection attempt to one address failed.
public enum ConnectFailure: Sendable, Hashable {
    /// The host answered but nothing listens on that port (`ECONNREFUSED`).
    case refused
    /// No answer within the per-attempt timeout.
    case timedOut(Duration)
    /// No route to the network or host, or the address family is unavailable
    /// (e.g. IPv6 switched off); carries the errno.
    case unreachable(errno: Int32)
    /// Any other failure of a socket call.
    case failed(SystemCallError)

    /// Classifies an errno from `connect` or `SO_ERROR`.
    static func classify(errno code: Int32, call: String) -> ConnectFailure {
        switch code {
        case ECONNREFUSED: return .refused
        case ETIMEDOUT: return .timedOut(.zero)
        case ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN, EADDRNOTAVAIL, EAFNOSUPPORT:
            return .unreachable(errno: code)
        default: return .failed(SystemCallError(call: call, errno: code))
        }
    }

    /// A short phrase: "connection refused", "timed out after 2s", …
    var phrase: String {
        switch self {
        case .refused: return "connection refused"
        case .timedOut(let after): return after == .zero ? "timed out" : "timed out after \(after)"
        case .unreachable(let code): return "unreachable (\(errnoText(code)))"
        case .failed(let error): return error.description
        }
    }

    /// How much a failure says about the peer, for choosing the headline of a
    /// multi-address failure: a refusal proves the host is up.
    var rank: Int {
        switch self {
        case .refused: return 3
        case .timedOut: return 2
        case .unreachable: return 1
        case .failed: return 0
        }
    }
}

/// One address tried by `TCPConnection.connect` and why it failed.
public struct ConnectAttempt: Sendable, Hashable {
    /// The address tried.
    public let address: SocketAddress
    /// Why it failed.
    public let failure: ConnectFailure
}

/// Errors of the network shell. `description` is the sentence a person reads:
/// what happened, why, and what to do next.
public enum NetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A system call failed.
    case systemCall(SystemCallError)
    /// The port is taken by another program (or another parlor).
    case addressInUse(port: UInt16)
    /// Name resolution failed; `reason` is the resolver's sentence.
    case unknownHost(host: String, reason: String)
    /// Text that is not a numeric IP address (or a bad scope).
    case invalidAddress(String)
    /// Every address of the host was tried and none answered.
    case connectFailed(host: String, port: UInt16, attempts: [ConnectAttempt])
    /// The event loop has been shut down.
    case eventLoopStopped

    /// The most telling failure among all attempts (nil when there were none):
    /// "refused" if any address refused, then "timed out", then "unreachable".
    public var connectFailure: ConnectFailure? {
        guard case .connectFailed(_, _, let attempts) = self else { return nil }
        return attempts.max { $0.failure.rank < $1.failure.rank }?.failure
    }

    /// The human sentence for this error.
    public var description: String {
        switch self {
        case .systemCall(let error):
            return error.description
        case .addressInUse(let port):
            return "port \(port) is already in use by another program; choose another port with --port, or pass --port 0 to let the system pick one"
        case .unknownHost(let host, let reason):
            return "unknown host '\(host)': \(reason); check the spelling, or use a numeric address such as 192.0.2.7 or [fe80::1%eth0]"
        case .invalidAddress(let text):
            return "'\(text)' is not a valid IP address"
        case .connectFailed(let host, let port, let attempts):
            guard let headline = connectFailure else {
                return "could not connect to \(host) port \(port): the name has no IPv4 or IPv6 address"
            }
            let advice: String
            switch headline {
            case .refused: advice = "nothing is listening on port \(port); is the host running and is the port right?"
            case .timedOut: advice = "no answer; is the host on this network, and does its firewall allow port \(port)?"
            case .unreachable: advice = "no route to the host; check the address and the network connection"
            case .failed: advice = "see the system error above"
            }
            let tried = attempts.map { "\($0.address): \($0.failure.phrase)" }.joined(separator: "; ")
            return "could not connect to \(host) port \(port): \(headline.phrase) (\(tried)); \(advice)"
        case .eventLoopStopped:
            return "the network event loop has stopped"
        }
    }

    /// One sentence for a failed connection to `target` (as the user typed or
    /// saw it: `localhost:1`, `"Ana's Connect Four" (192.0.2.7:7000)`): what
    /// happened and what to do, each said once. The addresses tried are named
    /// only when they add something to `target`.
    public func connectSentence(target: String) -> String {
        switch self {
        case .unknownHost(let host, let reason):
            return "unknown host '\(host)' (\(reason.lowercasingFirst)); check the spelling, or use a numeric address such as 192.0.2.7 or [fe80::1%eth0]"
        case .connectFailed(let host, let port, let attempts):
            guard let headline = connectFailure else {
                return "\(host) has no IPv4 or IPv6 address; check the name, or use a numeric address such as 192.0.2.7"
            }
            let addresses = attempts.map { $0.address.ipAddress }.filter { !target.contains($0) }
            let tried = addresses.isEmpty ? "" : " (\(addresses.joined(separator: ", ")))"
            switch headline {
            case .refused:
                return "nothing is listening at \(target)\(tried); check that the host is running and the port is right"
            case .timedOut(let after):
                let within = after == .zero ? "" : " within \(Self.seconds(after))"
                return "no answer from \(target)\(tried)\(within); check that the host is on this network and its firewall allows port \(port)"
            case .unreachable(let code):
                return "no route to \(target)\(tried) (\(errnoText(code).lowercasingFirst)); check the address and the network connection"
            case .failed(let error):
                return "could not connect to \(target)\(tried): \(error)"
            }
        default:
            return "could not connect to \(target): \(self)"
        }
    }

    /// `5 s`, `0.5 s`.
    private static func seconds(_ duration: Duration) -> String {
        let (whole, attoseconds) = duration.components
        if attoseconds == 0 { return "\(whole) s" }
        return "\(Double(whole) + Double(attoseconds) / 1e18) s"
    }
}

extension String {
    /// "Name or service not known" → "name or service not known", to sit inside a sentence.
    var lowercasingFirst: String {
        guard let first else { return self }
        return first.lowercased() + dropFirst()
    }
}
