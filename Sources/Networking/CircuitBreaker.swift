import Synchronization

/// A circuit breaker, fed by a client adaptor: after `failureThreshold` failures in a row
/// it opens, and callers are refused at once without asking the service. After
/// `cooldown` it half-opens: exactly one call is let through as a trial, and its outcome
/// closes the breaker or opens it again. Other calls are refused while the trial runs.
///
/// Every command asks it first (`LastFMHealthGuard`): its state is behind a lock, which
/// costs less than the two hops of an actor.
public final class CircuitBreaker: Sendable {
    public enum State: String, Sendable, Equatable {
        case closed
        case open
        case halfOpen = "half-open"
    }

    private struct Counts {
        var failures = 0
        var openedAt: Duration?
        var trialRunning = false
        var reported = State.closed
    }

    private let failureThreshold: Int
    private let cooldown: Duration
    private let clock: ElapsedClock
    private let counts = Mutex(Counts())
    private let onChange: @Sendable (State) -> Void

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
        counts.withLock { state(of: $0) }
    }

    /// Whether a call may go ahead now. In the half-open state the first caller gets the
    /// trial; it must report its outcome with `recordSuccess`, `recordFailure` or `recordAbandoned`.
    public func permit() -> Bool {
        counts.withLock { counts in
            switch state(of: counts) {
            case .closed:
                return true
            case .open:
                return false
            case .halfOpen:
                guard !counts.trialRunning else { return false }
                counts.trialRunning = true
                return true
            }
        }
    }

    public func recordSuccess() {
        counts.withLock { counts in
            counts.failures = 0
            counts.openedAt = nil
            counts.trialRunning = false
            report(&counts)
        }
    }

    public func recordFailure() {
        counts.withLock { counts in
            counts.failures += 1
            if state(of: counts) == .halfOpen || counts.failures >= failureThreshold {
                counts.openedAt = clock.elapsed()
            }
            counts.trialRunning = false
            report(&counts)
        }
    }

    /// A permitted call ended without an outcome (it was cancelled): the trial is free again.
    public func recordAbandoned() {
        counts.withLock { $0.trialRunning = false }
    }

    private func state(of counts: Counts) -> State {
        guard let openedAt = counts.openedAt else { return .closed }
        return clock.elapsed() - openedAt >= cooldown ? .halfOpen : .open
    }

    /// Tells `onChange` of a change between closed and open not reported yet. Under the lock,
    /// so that two changes in a row reach it in their order (it sets a gauge, and logs).
    private func report(_ counts: inout Counts) {
        let now: State = counts.openedAt == nil ? .closed : .open
        guard now != counts.reported else { return }
        counts.reported = now
        onChange(now)
    }
}
