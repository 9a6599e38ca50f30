import LastFM
import Networking

/// A circuit breaker fed by the Last.fm client: after `failureThreshold` failures in a row
/// it opens, and chart commands are refused at once without asking Last.fm. After
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

/// Feeds a `CircuitBreaker` from the calls it passes through, and refuses calls while it is open.
public struct CircuitBreakingLastFMClient: LastFMClient {
    private let base: any LastFMClient
    private let breaker: CircuitBreaker

    public init(base: any LastFMClient, breaker: CircuitBreaker) {
        self.base = base
        self.breaker = breaker
    }

    public func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        if await breaker.state == .open {
            throw LastFMError.temporarilyUnavailable("circuit open")
        }
        do {
            let value = try await base.send(call)
            await breaker.recordSuccess()
            return value
        } catch let error as LastFMError {
            if error.isServiceFailure { await breaker.recordFailure() } else { await breaker.recordSuccess() }
            throw error
        }
    }
}

extension LastFMClient {
    /// Reports every outcome to `breaker` and fails fast while it is open.
    public func circuitBroken(by breaker: CircuitBreaker) -> CircuitBreakingLastFMClient {
        CircuitBreakingLastFMClient(base: self, breaker: breaker)
    }
}

/// Refuses Last.fm commands while the breaker is open.
public struct LastFMHealthGuard: CommandGuard {
    private let breaker: CircuitBreaker

    public init(breaker: CircuitBreaker) {
        self.breaker = breaker
    }

    public func check(_ invocation: CommandInvocation) async -> GuardDecision {
        await breaker.state == .open ? .deny(LastFMError.temporarilyUnavailable("circuit open").userMessage) : .allow(invocation)
    }
}
