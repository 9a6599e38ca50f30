import Networking

/// Telegram's flood limits. The defaults are teloxide's.
public struct FloodLimits: Sendable, Equatable {
    public var perChatPerSecond = 1
    public var perChatPerMinute = 20
    public var perSupergroupOrChannelPerMinute = 10
    public var overallPerSecond = 30

    public init() {}
}

/// Holds messages back so that the bot keeps to the flood limits: per chat per second,
/// per chat per minute (stricter for supergroups and channels), and overall per second.
/// Only calls that post to a chat are throttled; polling and callback answers pass freely.
public struct ThrottledTelegramClient: TelegramClient {
    private let base: any TelegramClient
    private let limiter: FloodLimiter

    public init(base: any TelegramClient, limits: FloodLimits = FloodLimits(), clock: any Clock<Duration>) {
        self.base = base
        self.limiter = FloodLimiter(limits: limits, clock: clock)
    }

    public func send<Response>(_ request: TelegramRequest<Response>) async throws -> Response {
        if request.postsToChat, let chat = request.chatID {
            do {
                try await limiter.waitForSlot(in: chat)
            } catch is CancellationError {
                // Say plainly that nothing was sent, so the caller can keep the message for later.
                throw TelegramError.transport("cancelled while waiting for the flood limit", mayHaveBeenDelivered: false)
            }
        }
        return try await base.send(request)
    }
}

/// The token buckets behind `ThrottledTelegramClient`, one set per chat.
actor FloodLimiter {
    private let limits: FloodLimits
    private let clock: any Clock<Duration>
    private let overall: TokenBucket
    private var perChat: [Int64: [TokenBucket]] = [:]

    init(limits: FloodLimits, clock: any Clock<Duration>) {
        self.limits = limits
        self.clock = clock
        overall = TokenBucket(allowing: limits.overallPerSecond, per: .seconds(1), clock: clock)
    }

    func waitForSlot(in chat: Int64) async throws {
        for bucket in buckets(for: chat) {
            try await bucket.take()
        }
        try await overall.take()
    }

    private func buckets(for chat: Int64) -> [TokenBucket] {
        if let existing = perChat[chat] { return existing }
        // Supergroup and channel ids start with -100.
        let perMinute = chat <= -1_000_000_000_000 ? limits.perSupergroupOrChannelPerMinute : limits.perChatPerMinute
        let buckets = [
            TokenBucket(allowing: limits.perChatPerSecond, per: .seconds(1), clock: clock),
            TokenBucket(allowing: perMinute, per: .seconds(60), clock: clock),
        ]
        perChat[chat] = buckets
        return buckets
    }
}

extension TelegramClient {
    /// Keeps outgoing messages within Telegram's flood limits.
    public func throttled(_ limits: FloodLimits = FloodLimits(), clock: any Clock<Duration> = ContinuousClock()) -> ThrottledTelegramClient {
        ThrottledTelegramClient(base: self, limits: limits, clock: clock)
    }
}
