import Networking

/// Feeds a `CircuitBreaker` from the calls it passes through, and refuses calls while it is
/// open. Place it under the cache, so that cached answers are served even while Last.fm is down.
public struct CircuitBreakingLastFMClient: LastFMClient {
    private let base: any LastFMClient
    private let breaker: CircuitBreaker

    public init(base: any LastFMClient, breaker: CircuitBreaker) {
        self.base = base
        self.breaker = breaker
    }

    public func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        guard breaker.permit() else {
            throw LastFMError.temporarilyUnavailable("circuit open")
        }
        do {
            let value = try await base.send(call)
            breaker.recordSuccess()
            return value
        } catch let error as LastFMError {
            if error.isServiceFailure { breaker.recordFailure() } else { breaker.recordSuccess() }
            throw error
        } catch {
            breaker.recordAbandoned()
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
