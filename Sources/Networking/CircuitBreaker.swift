/// A circuit breaker, fed by a client adaptor: after `failureThreshold` failures in a row
/// it opens, and callers are refused at once without asking the service. After
/// `cooldown` it half-opens: exactly one call is let through as a trial, and its outcome
/// closes the breaker or opens it again. Other calls are refused while the trial runs.
public actor CircuitBreaker {
    public enum State: String, Sendable, Equatable {
        case closed
        case open
        case halfOpen = "half-open"
    }

    private let failureThreshold: Int
    private let cooldown: Duration
    private let clock: ElapsedClock
    private var failures = 0
    private var openedAt: Duration?
    private var trialRunning = false
    private let onChange: @Sendable (State) -> Void
    private var reported = State.closed

    /// - Parameter onChange: told of each change between closed and open, for metrics and logs.
    public init(
        failureThreshold: Int = 3, cooldown: Duration = .seconds(60), clock: any Clock<Duration> = ContinuousClock(),
        onChange: @escaping @Sendable (State) -> Void = { _ in }
    ) {
        self.failureThreshold = max(1, failureThreshold)
        self.cooldown = cooldown
        self.clock = ElapsedClock(clock)
        self.onChange = onChange
    }

    /// The state now; an open breaker turns half-open once its cooldown has passed.
    public var state: State {
        guard let openedAt else { return .closed }
        return clock.elapsed() - openedAt >= cooldown ? .halfOpen : .open
    }

    /// Whether a call may go ahead now. In the half-open state the first caller gets the
    /// trial; it must report its outcome with `recordSuccess`, `recordFailure` or `recordAbandoned`.
    public func permit() -> Bool {
        switch state {
        case .closed:
            return true
        case .open:
            return false
        case .halfOpen:
            guard !trialRunning else { return false }
            trialRunning = true
            return true
        }
    }

    public func recordSuccess() {
        failures = 0
        openedAt = nil
        trialRunning = false
        report()
    }

    public func recordFailure() {
        failures += 1
        if state == .halfOpen || failures >= failureThreshold {
            openedAt = clock.elapsed()
        }
        trialRunning = false
        report()
    }

    /// A permitted call ended without an outcome (it was cancelled): the trial is free again.
    public func recordAbandoned() {
        trialRunning = false
    }

    private func report() {
        let now: State = openedAt == nil ? .closed : .open
        guard now != reported else { return }
        reported = now
        onChange(now)
    }
}
