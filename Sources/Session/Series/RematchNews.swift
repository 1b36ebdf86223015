import Synchronization

/// What the other side said about a rematch after the match, as it comes:
/// what the final board tells the person while its question waits.
public enum RematchNews: Hashable, Sendable {
    /// The other side offered a rematch that this side has not answered.
    case offered
    /// There can be no rematch any more (the last news: the stream ends).
    case ruledOut(RematchEnd)
}

/// Hands a link's rematch news to whoever follows it (`RematchTalk.rematchNews`).
/// The after-match conversation reports into it after each step; a follower
/// that starts late first gets what was already said. Thread-safe.
final class RematchNewsFeed: Sendable {
    private struct State {
        var offered = false
        var ruledOut: RematchEnd?
        var followers: [Int: AsyncStream<RematchNews>.Continuation] = [:]
        var nextFollower = 0
    }
    private let state = Mutex(State())

    /// The news from now on, starting with what was already said.
    func follow() -> AsyncStream<RematchNews> {
        let (stream, continuation) = AsyncStream.makeStream(of: RematchNews.self)
        let (offered, ruledOut, id) = state.withLock { state -> (Bool, RematchEnd?, Int?) in
            guard state.ruledOut == nil else { return (state.offered, state.ruledOut, nil) }
            let id = state.nextFollower
            state.nextFollower += 1
            state.followers[id] = continuation
            return (state.offered, nil, id)
        }
        if offered { continuation.yield(.offered) }
        if let ruledOut {
            continuation.yield(.ruledOut(ruledOut))
            continuation.finish()
        } else if let id {
            continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.followers.removeValue(forKey: id) } }
        }
        return stream
    }

    /// The conversation as it stands after a step; only what is new is told.
    func report(offered: Bool, ruledOut: RematchEnd?) {
        let (news, followers) = state.withLock { state -> ([RematchNews], [AsyncStream<RematchNews>.Continuation]) in
            guard state.ruledOut == nil else { return ([], []) }
            var news: [RematchNews] = []
            if offered && !state.offered { state.offered = true; news.append(.offered) }
            if let ruledOut { state.ruledOut = ruledOut; news.append(.ruledOut(ruledOut)) }
            let followers = Array(state.followers.values)
            if ruledOut != nil { state.followers = [:] }
            return (news, followers)
        }
        guard !news.isEmpty else { return }
        for follower in followers {
            for item in news { follower.yield(item) }
            if ruledOut != nil { follower.finish() }
        }
    }
}
