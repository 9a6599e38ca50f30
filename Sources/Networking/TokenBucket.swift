/// The arithmetic of a token bucket: `capacity` tokens, refilled continuously at a fixed
/// rate. A value type, so that many buckets (one per user or chat) can live in one
/// `BoundedCache` inside one actor.
public struct TokenBucketState: Sendable, Equatable {
    public let capacity: Double
    private let refillPerSecond: Double
    private var tokens: Double
    private var updatedAt: Duration

    /// - Parameters:
    ///   - capacity: the burst size, and the number of tokens at start.
    ///   - refill: tokens added per `interval`.
    ///   - now: the current time on the owner's clock.
    public init(capacity: Int, refill: Int, per interval: Duration, now: Duration) {
        self.capacity = Double(max(capacity, 1))
        self.refillPerSecond = Double(max(refill, 1)) / max(interval.seconds, 0.000_001)
        self.tokens = self.capacity
        self.updatedAt = now
    }

    /// Takes a token if one is available at `now`; otherwise says how long until one is.
    public mutating func tryTake(now: Duration) -> TokenDecision {
        let gained = max(0, (now - updatedAt).seconds) * refillPerSecond
        tokens = min(capacity, tokens + gained)
        updatedAt = max(updatedAt, now)
        if tokens >= 1 {
            tokens -= 1
            return .allowed
        }
        let missing = 1 - tokens
        return .denied(retryAfter: .milliseconds(Int64((missing / refillPerSecond * 1000).rounded(.up))))
    }

    /// How long, from `now`, until the bucket is full again; an idle bucket past this
    /// point behaves exactly like a new one, so it may be forgotten.
    public func timeUntilFull(now: Duration) -> Duration {
        let gained = max(0, (now - updatedAt).seconds) * refillPerSecond
        let missing = max(0, capacity - tokens - gained)
        return .milliseconds(Int64((missing / refillPerSecond * 1000).rounded(.up)))
    }
}

/// The answer of `TokenBucketState.tryTake(now:)`.
public enum TokenDecision: Sendable, Equatable {
    case allowed
    case denied(retryAfter: Duration)
}
