import Networking

/// Feeds ListenBrainz's own `CircuitBreaker` and refuses requests while it is open, so an
/// outage of ListenBrainz costs its users one quick answer and never blocks Last.fm's.
public struct CircuitBreakingListenBrainzClient: ListenBrainzClient {
    private let base: any ListenBrainzClient
    private let breaker: CircuitBreaker

    public init(base: any ListenBrainzClient, breaker: CircuitBreaker) {
        self.base = base
        self.breaker = breaker
    }

    public func listens(_ request: ListensRequest) async throws -> ListensPage {
        guard breaker.permit() else { throw ListenBrainzError.temporarilyUnavailable("circuit open") }
        do {
            let page = try await base.listens(request)
            breaker.recordSuccess()
            return page
        } catch let error as ListenBrainzError {
            if error.isServiceFailure { breaker.recordFailure() } else { breaker.recordSuccess() }
            throw error
        } catch {
            breaker.recordAbandoned()
            throw error
        }
    }
}

/// Counts every ListenBrainz request that reaches the network, by result, in
/// `vinylogue_listenbrainz_requests_total`. Place it right above the HTTP client.
public struct InstrumentedListenBrainzClient: ListenBrainzClient {
    private let base: any ListenBrainzClient
    private let metrics: BotMetrics

    public init(base: any ListenBrainzClient, metrics: BotMetrics) {
        self.base = base
        self.metrics = metrics
    }

    public func listens(_ request: ListensRequest) async throws -> ListensPage {
        do {
            let page = try await base.listens(request)
            metrics.increment("vinylogue_listenbrainz_requests_total", [("result", "ok")])
            return page
        } catch let error as ListenBrainzError {
            metrics.increment("vinylogue_listenbrainz_requests_total", [("result", error.kind)])
            throw error
        }
    }
}

extension ListenBrainzClient {
    /// Reports every outcome to `breaker` and fails fast while it is open.
    public func circuitBroken(by breaker: CircuitBreaker) -> CircuitBreakingListenBrainzClient {
        CircuitBreakingListenBrainzClient(base: self, breaker: breaker)
    }

    /// Counts requests by result.
    public func instrumented(_ metrics: BotMetrics) -> InstrumentedListenBrainzClient {
        InstrumentedListenBrainzClient(base: self, metrics: metrics)
    }
}
