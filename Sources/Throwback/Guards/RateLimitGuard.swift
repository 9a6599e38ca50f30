import Networking
import Synchronization

/// Token buckets per Telegram user and per chat: a burst, then a sustained rate, in the
/// spirit of fmbot's 13 commands per 10 s and 35 per 40 s, so that a person exploring with
/// commands and ◀ ▶ never notices a limit. Someone who floods is told once per window to
/// slow down, then ignored until the window passes; other people are unaffected unless the
/// whole chat is over its own limit. Idle buckets are forgotten, so memory stays bounded.
///
/// Every command passes it: its state is behind a lock rather than an actor, which would
/// cost each command two hops.
public final class RateLimitGuard: CommandGuard {
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

    public var runsBeforeParsing: Bool { true }

    private struct State {
        var buckets: BoundedCache<Key, TokenBucketState>
        /// When each silenced key may be told again.
        var silencedUntil: BoundedCache<Key, Duration>
    }

    private let limits: Limits
    private let clock: ElapsedClock
    private let state: Mutex<State>

    /// - Parameter capacity: how many users and chats are tracked at once; the least recently
    ///   active are forgotten first (an idle bucket is full again anyway).
    public init(limits: Limits = Limits(), clock: any Clock<Duration> = ContinuousClock(), capacity: Int = 20_000) {
        self.limits = limits
        self.clock = ElapsedClock(clock)
        self.state = Mutex(State(buckets: BoundedCache(capacity: capacity), silencedUntil: BoundedCache(capacity: capacity)))
    }

    public func check(_ invocation: CommandInvocation) async -> GuardDecision {
        let now = clock.elapsed()
        return state.withLock { state in
            if case .denied(let wait) = Self.take(.user(invocation.senderKey), limits.user, now: now, in: &state) {
                return Self.deny(.user(invocation.senderKey), wait: wait, who: .rateYou, in: invocation.language, now: now, in: &state)
            }
            if case .denied(let wait) = Self.take(.chat(invocation.chatID), limits.chat, now: now, in: &state) {
                return Self.deny(.chat(invocation.chatID), wait: wait, who: .rateChat, in: invocation.language, now: now, in: &state)
            }
            return .allow(invocation)
        }
    }

    private static func take(_ key: Key, _ rate: Rate, now: Duration, in state: inout State) -> TokenDecision {
        var bucket = state.buckets.value(forKey: key, now: now)
            ?? TokenBucketState(capacity: rate.burst, refill: rate.perMinute, per: .seconds(60), now: now)
        let decision = bucket.tryTake(now: now)
        // Once full again, the bucket is no different from a new one: let it expire then.
        state.buckets.set(bucket, forKey: key, expiresAt: now + bucket.timeUntilFull(now: now))
        return decision
    }

    /// Says "slow down" once, then stays silent until the wait is over.
    private static func deny(
        _ key: Key, wait: Duration, who: Phrase, in language: Language, now: Duration, in state: inout State
    ) -> GuardDecision {
        if state.silencedUntil.value(forKey: key, now: now) != nil { return .ignore }
        state.silencedUntil.set(now + wait, forKey: key, expiresAt: now + wait)
        let seconds = max(1, Int(wait.seconds.rounded(.up)))
        return .deny(language.text(who, String(seconds)))
    }
}
