import Networking

/// Token buckets per Telegram user and per chat: a burst, then a sustained rate, in the
/// spirit of fmbot's 13 commands per 10 s and 35 per 40 s, so that a person exploring with
/// commands and ◀ ▶ never notices a limit. Someone who floods is told once per window to
/// slow down, then ignored until the window passes; other people are unaffected unless the
/// whole chat is over its own limit. Idle buckets are forgotten, so memory stays bounded.
public actor RateLimitGuard: CommandGuard {
    /// A burst of `burst` commands, refilled at `perMinute` a minute.
    public struct Rate: Sendable, Equatable, CustomStringConvertible {
        public var burst: Int
        public var perMinute: Int

        public init(burst: Int, perMinute: Int) {
            self.burst = max(1, burst)
            self.perMinute = max(1, perMinute)
        }

        public var description: String { "burst \(burst), \(perMinute)/min" }
    }

    public struct Limits: Sendable, Equatable {
        public var user: Rate
        public var chat: Rate

        /// 15 commands at once and 45 a minute per user; 60 a minute per chat.
        public init(user: Rate = Rate(burst: 15, perMinute: 45), chat: Rate = Rate(burst: 60, perMinute: 60)) {
            self.user = user
            self.chat = chat
        }

        /// No limit worth the name: for a terminal session.
        public static let unlimited = Limits(user: Rate(burst: 1_000_000, perMinute: 1_000_000), chat: Rate(burst: 1_000_000, perMinute: 1_000_000))
    }

    private enum Key: Hashable {
        case user(Int64)
        case chat(Int64)
    }

    public nonisolated var runsBeforeParsing: Bool { true }

    private let limits: Limits
    private let clock: ElapsedClock
    private var buckets: BoundedCache<Key, TokenBucketState>
    /// When each silenced key may be told again.
    private var silencedUntil: BoundedCache<Key, Duration>

    /// - Parameter capacity: how many users and chats are tracked at once; the least recently
    ///   active are forgotten first (an idle bucket is full again anyway).
    public init(limits: Limits = Limits(), clock: any Clock<Duration> = ContinuousClock(), capacity: Int = 20_000) {
        self.limits = limits
        self.clock = ElapsedClock(clock)
        self.buckets = BoundedCache(capacity: capacity)
        self.silencedUntil = BoundedCache(capacity: capacity)
    }

    public func check(_ invocation: CommandInvocation) async -> GuardDecision {
        let now = clock.elapsed()
        if case .denied(let wait) = take(.user(invocation.senderKey), limits.user, now: now) {
            return deny(.user(invocation.senderKey), wait: wait, who: "you", now: now)
        }
        if case .denied(let wait) = take(.chat(invocation.chatID), limits.chat, now: now) {
            return deny(.chat(invocation.chatID), wait: wait, who: "this chat", now: now)
        }
        return .allow(invocation)
    }

    private func take(_ key: Key, _ rate: Rate, now: Duration) -> TokenDecision {
        var bucket = buckets.value(forKey: key, now: now)
            ?? TokenBucketState(capacity: rate.burst, refill: rate.perMinute, per: .seconds(60), now: now)
        let decision = bucket.tryTake(now: now)
        // Once full again, the bucket is no different from a new one: let it expire then.
        buckets.set(bucket, forKey: key, expiresAt: now + bucket.timeUntilFull(now: now))
        return decision
    }

    /// Says "slow down" once, then stays silent until the wait is over.
    private func deny(_ key: Key, wait: Duration, who: String, now: Duration) -> GuardDecision {
        if silencedUntil.value(forKey: key, now: now) != nil { return .ignore }
        silencedUntil.set(now + wait, forKey: key, expiresAt: now + wait)
        let seconds = max(1, Int(wait.seconds.rounded(.up)))
        return .deny("Slow down, \(who) sent too many commands: try again in \(seconds)s.")
    }
}
