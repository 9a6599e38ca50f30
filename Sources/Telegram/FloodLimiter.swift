import Networking
import Synchronization

/// Telegram's flood limits. The defaults are teloxide's.
public struct FloodLimits: Sendable, Equatable {
    public var perChatPerSecond = 1
    public var perChatPerMinute = 20
    public var perSupergroupOrChannelPerMinute = 10
    public var overallPerSecond = 30
    /// Added to each counting window (per minute, overall per second); the spacing within a
    /// chat is already a full second. Telegram counts messages as they arrive, which is a
    /// little after they leave and not evenly so; without a margin, a message that left on
    /// time can still arrive as the 21st of a minute, or the 31st of a second.
    public var margin: Duration = .milliseconds(100)

    public init() {}
}

/// When each message to a chat may go, within the flood limits: one message a second per
/// chat, a number a minute per chat (fewer for supergroups and channels), and a number a
/// second overall. Moments are reserved, not polled: the caller asks when a chat may next
/// send, and commits the moment it sends. State per chat is forgotten once it holds nothing
/// back, so a bot in thousands of chats stays bounded.
public final class FloodLimiter: Sendable {
    private struct ChatWindows: Sendable {
        var second: RateWindow
        var minute: RateWindow

        var idleFrom: Duration { max(second.idleFrom, minute.idleFrom) }
    }

    private struct State: Sendable {
        var overall: RateWindow
        var chats: BoundedCache<Int64, ChatWindows>
    }

    private let limits: FloodLimits
    private let state: Mutex<State>

    public init(limits: FloodLimits = FloodLimits(), capacity: Int = 10_000) {
        self.limits = limits
        state = Mutex(State(
            overall: RateWindow(limit: limits.overallPerSecond, window: .seconds(1) + limits.margin),
            chats: BoundedCache(capacity: capacity)
        ))
    }

    /// Keeps to a share of the overall limit: `1/replicas` of it, for one of that many
    /// processes sending for the same bot (Telegram counts the bot's messages, not a process's).
    /// Shared, it keeps a tenth in hand: each process's sends reach Telegram after its own
    /// database write and network delay, and those of several bunch up more than one's.
    public func shareOverall(among replicas: Int) {
        let replicas = max(1, replicas)
        let limit = max(1, limits.overallPerSecond * (replicas > 1 ? 9 : 10) / (10 * replicas))
        state.withLock { state in
            if state.overall.limit != limit { state.overall = state.overall.limited(to: limit) }
        }
    }

    /// The first moment at or after `now` when a message to `chat` keeps the chat's limits.
    public func earliest(in chat: Int64, now: Duration) -> Duration {
        state.withLock { state in
            guard let windows = state.chats.value(forKey: chat, now: now) else { return now }
            return max(windows.second.earliest(now: now), windows.minute.earliest(now: now))
        }
    }

    /// The first moment at or after `now` when `count` more messages keep the overall limit.
    public func earliestOverall(now: Duration, count: Int = 1) -> Duration {
        state.withLock { $0.overall.earliest(now: now, count: count) }
    }

    /// Records a message to `chat` going at `now`, which must be no earlier than both
    /// `earliest` moments.
    public func commit(in chat: Int64, now: Duration) {
        // Supergroup and channel ids start with -100.
        let perMinute = chat <= -1_000_000_000_000 ? limits.perSupergroupOrChannelPerMinute : limits.perChatPerMinute
        let (perSecond, margin) = (limits.perChatPerSecond, limits.margin)
        state.withLock { state in
            var windows = state.chats.value(forKey: chat, now: now) ?? ChatWindows(
                second: RateWindow(limit: perSecond, window: .seconds(1)),
                minute: RateWindow(limit: perMinute, window: .seconds(60) + margin)
            )
            windows.second.commit(at: now)
            windows.minute.commit(at: now)
            state.chats.set(windows, forKey: chat, expiresAt: windows.idleFrom)
            state.overall.commit(at: now)
        }
    }

    /// Records that the last `count` messages reserved overall left only at `now`: their
    /// moments were reserved before a write that can take a while, and Telegram counts them
    /// as they arrive, so the overall limit counts from when they went.
    public func departed(count: Int, now: Duration) {
        state.withLock { $0.overall.delayLast(count, to: now) }
    }

    /// Records that the last message to `chat` reached Telegram by `now`: Telegram counts a
    /// message when it arrives, which for an upload can be well after it left, so the chat's
    /// next moment counts from then.
    public func arrived(in chat: Int64, now: Duration) {
        state.withLock { state in
            guard var windows = state.chats.value(forKey: chat, now: now) else { return }
            windows.second.delayLast(to: now)
            windows.minute.delayLast(to: now)
            state.chats.set(windows, forKey: chat, expiresAt: windows.idleFrom)
        }
    }
}
