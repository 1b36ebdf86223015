import Synchronization

/// A match's events on their way from the side that produces them (the
/// controller, or the recorder once each is saved) to the one consumer that
/// shows them, in order. A consumer that merges several sources (a screen's
/// loop: keys, signals, the match) `connect`s and has each event handed to it
/// on the producer's thread, with no task between; one that reads only the
/// match iterates `stream`.
///
/// Events yielded before the consumer connects wait in the feed and are
/// handed on first, in order.
public final class MatchEventFeed: Sendable {
    private enum Consumer {
        /// Nobody yet: what arrives is kept.
        case waiting(kept: [MatchEvent], finished: Bool)
        /// Handed each event (nil: the end), under the feed's lock, so order holds.
        case connected(@Sendable (MatchEvent?) -> Void)
        /// The end was handed on; nothing more is.
        case done
    }

    private let consumer = Mutex(Consumer.waiting(kept: [], finished: false))

    /// An empty feed with no consumer yet.
    public init() {}

    /// A feed of `controller`'s events from now on, straight from the
    /// thread that performs its steps (`MatchController.observe`); it ends when the match stops.
    public static func of(_ controller: MatchController) async -> MatchEventFeed {
        let feed = MatchEventFeed()
        await controller.observe({ feed.yield($0) }, ended: { feed.finish() })
        return feed
    }

    /// Hands `event` to the consumer, or keeps it until one connects. Ignored after `finish()`.
    public func yield(_ event: MatchEvent) {
        consumer.withLock { consumer in
            switch consumer {
            case .waiting(var kept, let finished):
                guard !finished else { return }
                consumer = .done  // the enum lets go of the array, so the append does not copy it
                kept.append(event)
                consumer = .waiting(kept: kept, finished: false)
            case .connected(let hand):
                hand(event)
            case .done:
                break
            }
        }
    }

    /// Ends the feed: the consumer is handed nil after the last event.
    public func finish() {
        consumer.withLock { consumer in
            switch consumer {
            case .waiting(let kept, _):
                consumer = .waiting(kept: kept, finished: true)
            case .connected(let hand):
                hand(nil)
                consumer = .done
            case .done:
                break
            }
        }
    }

    /// From now on hands every event to `hand`, the kept ones first, then
    /// nil once after the last: on the producer's thread and under the
    /// feed's lock, so `hand` must return at once and must not call back into
    /// the feed (a stream's `yield` is right). One consumer: a second connect is ignored.
    public func connect(_ hand: @escaping @Sendable (MatchEvent?) -> Void) {
        consumer.withLock { consumer in
            guard case .waiting(let kept, let finished) = consumer else { return }
            for event in kept { hand(event) }
            if finished {
                hand(nil)
                consumer = .done
            } else {
                consumer = .connected(hand)
            }
        }
    }

    /// The events as a stream for one reader (`connect`s the feed).
    public var stream: AsyncStream<MatchEvent> {
        let (stream, continuation) = AsyncStream<MatchEvent>.makeStream(bufferingPolicy: .unbounded)
        connect { event in
            if let event { continuation.yield(event) } else { continuation.finish() }
        }
        return stream
    }
}
