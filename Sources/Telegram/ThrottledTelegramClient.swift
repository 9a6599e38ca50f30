import Networking

/// Telegram's flood limits. The defaults are teloxide's.
public struct FloodLimits: Sendable, Equatable {
    public var perChatPerSecond = 1
    public var perChatPerMinute = 20
    public var perSupergroupOrChannelPerMinute = 10
    public var overallPerSecond = 30
    /// Added to each counting window (per minute, overall per second); the per-second
    /// spacing within a chat is already a full second. Telegram counts messages as they arrive, which is a little
    /// after they leave and not evenly so; without a margin, a message that left on time
    /// can still arrive as the 31st of a second.
    public var margin: Duration = .milliseconds(100)

    public init() {}
}

/// Holds messages back so that the bot keeps to the flood limits: per chat per second,
/// per chat per minute (stricter for supergroups and channels), and overall per second.
/// Only calls that post to a chat are throttled; polling and callback answers pass freely.
public struct ThrottledTelegramClient: TelegramClient {
    private let base: any TelegramClient
    private let limiter: FloodLimiter
    private let clock: ElapsedClock

    public init(base: any TelegramClient, limits: FloodLimits = FloodLimits(), clock: any Clock<Duration>) {
        self.base = base
        self.clock = ElapsedClock(clock)
        self.limiter = FloodLimiter(limits: limits, clock: self.clock)
    }

    public func send<Response>(_ request: TelegramRequest<Response>) async throws -> Response {
        if request.postsToChat, let chat = request.chatID {
            do {
                try await wait(await limiter.reserve(in: chat))
                try await wait(await limiter.reserveOverall())
            } catch is CancellationError {
                // Say plainly that nothing was sent, so the caller can keep the message for later.
                throw TelegramError.transport("cancelled while waiting for the flood limit", mayHaveBeenDelivered: false)
            }
        }
        return try await base.send(request)
    }

    private func wait(_ duration: Duration) async throws {
        if duration > .zero { try await clock.sleep(duration) }
    }
}

/// When each message may go: each is given the first moment that keeps its chat's limits,
/// so that waiting callers never race for a slot. The overall limit is reserved only once
/// that moment has come: reserving it ahead would let one busy chat hold every other chat
/// back. State per chat is forgotten once it no longer holds anything back, so a bot in
/// thousands of chats keeps a bounded footprint.
actor FloodLimiter {
    private struct ChatState {
        var spacing: Pacing
        var recent: SlidingWindow
    }

    private let limits: FloodLimits
    private let clock: ElapsedClock
    private var overall: SlidingWindow
    private var chats: BoundedCache<Int64, ChatState>

    init(limits: FloodLimits, clock: ElapsedClock, capacity: Int = 10_000) {
        self.limits = limits
        self.clock = clock
        overall = SlidingWindow(limit: limits.overallPerSecond, window: .seconds(1) + limits.margin)
        chats = BoundedCache(capacity: capacity)
    }

    /// Reserves the next slot for a message to `chat` within its chat's limits; returns how
    /// long to wait for it.
    func reserve(in chat: Int64) -> Duration {
        let now = clock.elapsed()
        // Supergroup and channel ids start with -100.
        let perMinute = chat <= -1_000_000_000_000 ? limits.perSupergroupOrChannelPerMinute : limits.perChatPerMinute
        var state = chats.value(forKey: chat, now: now) ?? ChatState(
            spacing: Pacing(every: .seconds(1) / max(limits.perChatPerSecond, 1), now: now),
            recent: SlidingWindow(limit: perMinute, window: .seconds(60) + limits.margin)
        )
        let at = max(state.spacing.earliest(now: now), state.recent.earliest(now: now))
        state.spacing.commit(at: at)
        state.recent.commit(at: at)
        chats.set(state, forKey: chat, expiresAt: max(state.spacing.idleFrom, state.recent.idleFrom))
        return at - now
    }

    /// Reserves the next slot within the overall limit, for a message whose chat slot has come.
    func reserveOverall() -> Duration {
        let now = clock.elapsed()
        let at = overall.earliest(now: now)
        overall.commit(at: at)
        return at - now
    }
}

/// Events at least `interval` apart.
struct Pacing: Sendable {
    let interval: Duration
    private var next: Duration

    init(every interval: Duration, now: Duration) {
        self.interval = interval
        self.next = now
    }

    func earliest(now: Duration) -> Duration { max(now, next) }

    mutating func commit(at time: Duration) { next = max(next, time) + interval }

    /// From then on it holds nothing back.
    var idleFrom: Duration { next }
}

/// At most `limit` events in any `window`.
struct SlidingWindow: Sendable {
    let limit: Int
    let window: Duration
    private var times: [Duration] = []

    init(limit: Int, window: Duration) {
        self.limit = max(limit, 1)
        self.window = window
    }

    func earliest(now: Duration) -> Duration {
        times.count < limit ? now : max(now, times[times.count - limit] + window)
    }

    mutating func commit(at time: Duration) {
        times.append(time)
        if times.count > limit { times.removeFirst(times.count - limit) }
    }

    var idleFrom: Duration { (times.last ?? .zero) + window }
}

extension TelegramClient {
    /// Keeps outgoing messages within Telegram's flood limits.
    public func throttled(_ limits: FloodLimits = FloodLimits(), clock: any Clock<Duration> = ContinuousClock()) -> ThrottledTelegramClient {
        ThrottledTelegramClient(base: self, limits: limits, clock: clock)
    }
}
