import Networking

/// Token buckets per Telegram user and per chat. Someone who hits the limit is told once per
/// window to slow down, then ignored until the window passes; other people are unaffected
/// unless the whole chat is over its own limit.
public actor RateLimitGuard: CommandGuard {
    public struct Limits: Sendable, Equatable {
        public var perUser: Int
        public var perUserWindow: Duration
        public var perChat: Int
        public var perChatWindow: Duration

        /// 5 commands a minute per user and 30 a minute per chat, in bursts.
        public init(perUser: Int = 5, perUserWindow: Duration = .seconds(60), perChat: Int = 30, perChatWindow: Duration = .seconds(60)) {
            self.perUser = perUser
            self.perUserWindow = perUserWindow
            self.perChat = perChat
            self.perChatWindow = perChatWindow
        }
    }

    public nonisolated var runsBeforeParsing: Bool { true }

    private let limits: Limits
    private let clock: any Clock<Duration>
    private let elapsed: ElapsedClock
    private var users: [Int64: TokenBucket] = [:]
    private var chats: [Int64: TokenBucket] = [:]
    /// When each silenced key may be told again.
    private var silencedUntil: [String: Duration] = [:]

    public init(limits: Limits = Limits(), clock: any Clock<Duration> = ContinuousClock()) {
        self.limits = limits
        self.clock = clock
        self.elapsed = ElapsedClock(clock)
    }

    public func check(_ invocation: CommandInvocation) async -> GuardDecision {
        let user = users[invocation.userID] ?? TokenBucket(allowing: limits.perUser, per: limits.perUserWindow, clock: clock)
        users[invocation.userID] = user
        let chat = chats[invocation.chatID] ?? TokenBucket(allowing: limits.perChat, per: limits.perChatWindow, clock: clock)
        chats[invocation.chatID] = chat

        if case .denied(let wait) = await user.tryTake() {
            return deny(key: "user:\(invocation.userID)", wait: wait, who: "you")
        }
        if case .denied(let wait) = await chat.tryTake() {
            return deny(key: "chat:\(invocation.chatID)", wait: wait, who: "this chat")
        }
        return .allow(invocation)
    }

    /// Says "slow down" once, then stays silent until the wait is over.
    private func deny(key: String, wait: Duration, who: String) -> GuardDecision {
        let now = elapsed.elapsed()
        if let until = silencedUntil[key], now < until { return .ignore }
        silencedUntil[key] = now + wait
        let seconds = max(1, Int(wait.seconds.rounded(.up)))
        return .deny("Slow down, \(who) sent too many commands: try again in \(seconds)s.")
    }
}
