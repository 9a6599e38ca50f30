/// At most `limit` events in any `window`: the arithmetic of every outgoing rate limit of
/// the bot (Last.fm's requests a second, Telegram's flood limits). Events are reserved, not
/// polled: each caller is given the first moment that keeps the limit, in the order they
/// ask, so waiting callers never race for a slot and are served first come, first served.
/// A value type, so that many windows (one per chat) can sit in one cache behind one lock.
public struct RateWindow: Sendable {
    public let limit: Int
    public let window: Duration
    /// The moments reserved lately, at most `limit`, oldest first.
    private var times: [Duration] = []

    public init(limit: Int, window: Duration) {
        self.limit = max(limit, 1)
        self.window = window
    }

    /// The first moment at or after `now` when `count` more events (at most `limit`) keep the
    /// limit together.
    public func earliest(now: Duration, count: Int = 1) -> Duration {
        let count = min(max(count, 1), limit)
        return times.count + count <= limit ? now : max(now, times[times.count - limit + count - 1] + window)
    }

    /// The same window counting to `limit` instead, with the events recorded so far.
    public func limited(to limit: Int) -> RateWindow {
        var window = RateWindow(limit: limit, window: window)
        window.times = Array(times.suffix(window.limit))
        return window
    }

    /// Records an event at `time`, which must not be before the last one recorded.
    public mutating func commit(at time: Duration) {
        times.append(time)
        if times.count > limit { times.removeFirst(times.count - limit) }
    }

    /// Moves the last `count` events to `time`, those earlier: they happened then, not when
    /// they were reserved.
    public mutating func delayLast(_ count: Int = 1, to time: Duration) {
        for index in times.indices.suffix(count) where times[index] < time {
            times[index] = time
        }
    }

    /// Reserves the first free moment at or after `now`.
    public mutating func reserve(now: Duration) -> Duration {
        let at = earliest(now: now)
        commit(at: at)
        return at
    }

    /// From this moment on the window holds nothing back: it behaves like a new one.
    public var idleFrom: Duration { (times.last ?? .zero) + window }
}
