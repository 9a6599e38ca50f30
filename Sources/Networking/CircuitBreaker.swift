/// A circuit breaker, fed by a client adaptor: after `failureThreshold` failures in a row
/// it opens, and callers are refused at once without asking the service. After
/// `cooldown` it half-opens: the next call is a trial, whose outcome closes or reopens it.
public actor CircuitBreaker {
    public enum State: Sendable, Equatable {
        case closed
        case open
        case halfOpen
    }

    private let failureThreshold: Int
    private let cooldown: Duration
    private let clock: ElapsedClock
    private var failures = 0
    private var openedAt: Duration?

    public init(failureThreshold: Int = 3, cooldown: Duration = .seconds(60), clock: any Clock<Duration> = ContinuousClock()) {
        self.failureThreshold = max(1, failureThreshold)
        self.cooldown = cooldown
        self.clock = ElapsedClock(clock)
    }

    /// The state now; an open breaker turns half-open once its cooldown has passed.
    public var state: State {
        guard let openedAt else { return .closed }
        return clock.elapsed() - openedAt >= cooldown ? .halfOpen : .open
    }

    public func recordSuccess() {
        failures = 0
        openedAt = nil
    }

    public func recordFailure() {
        failures += 1
        if state == .halfOpen || failures >= failureThreshold {
            openedAt = clock.elapsed()
        }
    }
}
