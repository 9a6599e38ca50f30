import LastFM
import Networking

/// Refuses Last.fm commands while the breaker is open.
public struct LastFMHealthGuard: CommandGuard {
    private let breaker: CircuitBreaker

    public init(breaker: CircuitBreaker) {
        self.breaker = breaker
    }

    public func check(_ invocation: CommandInvocation) async -> GuardDecision {
        breaker.state == .open
            ? .deny(ListeningError.circuitOpen(ScrobbleSource.lastFM.serviceName).userMessage(in: invocation.language)) : .allow(invocation)
    }
}
