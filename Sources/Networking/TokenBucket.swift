/// A token bucket: `capacity` tokens, refilled continuously at `refillRate` tokens per `per`.
///
/// `take()` waits for a token (outgoing throttles); `tryTake()` answers at once with how long
/// until a token is available (incoming rate-limit guards).
public actor TokenBucket {
    public nonisolated let capacity: Double
    private let refillPerSecond: Double
    private let clock: ElapsedClock
    private var tokens: Double
    private var updatedAt: Duration

    /// - Parameters:
    ///   - capacity: the burst size, and the number of tokens at start.
    ///   - refill: tokens added per `per`.
    public init(capacity: Int, refill: Int, per interval: Duration, clock: any Clock<Duration>) {
        self.capacity = Double(max(capacity, 1))
        self.refillPerSecond = Double(max(refill, 1)) / max(interval.seconds, 0.000_001)
        self.clock = ElapsedClock(clock)
        self.tokens = Double(max(capacity, 1))
        self.updatedAt = self.clock.elapsed()
    }

    /// A bucket that allows `count` events per `interval` with bursts of up to `count`.
    public init(allowing count: Int, per interval: Duration, clock: any Clock<Duration>) {
        self.init(capacity: count, refill: count, per: interval, clock: clock)
    }

    private func refill() {
        let now = clock.elapsed()
        let gained = (now - updatedAt).seconds * refillPerSecond
        tokens = min(capacity, tokens + gained)
        updatedAt = now
    }

    /// Takes a token if one is available; otherwise says how long until one is.
    public func tryTake() -> TokenDecision {
        refill()
        if tokens >= 1 {
            tokens -= 1
            return .allowed
        }
        let missing = 1 - tokens
        return .denied(retryAfter: .milliseconds(Int64((missing / refillPerSecond * 1000).rounded(.up))))
    }

    /// Waits until a token is available and takes it. Throws `CancellationError` if cancelled.
    public func take() async throws {
        while true {
            switch tryTake() {
            case .allowed:
                return
            case .denied(let wait):
                try await clock.sleep(wait)
            }
        }
    }
}

/// The answer of `TokenBucket.tryTake()`.
public enum TokenDecision: Sendable, Equatable {
    case allowed
    case denied(retryAfter: Duration)
}
