import Networking

/// Keeps to Last.fm's published limit: every call reserves its moment in a shared
/// `RequestPacer` before it goes, first come, first served.
public struct RateLimitedLastFMClient: LastFMClient {
    private let base: any LastFMClient
    private let pacer: RequestPacer

    public init(base: any LastFMClient, pacer: RequestPacer) {
        self.base = base
        self.pacer = pacer
    }

    public func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        try await pacer.next()
        return try await base.send(call)
    }
}

extension LastFMClient {
    /// At most `requestsPerSecond` calls in any second.
    public func rateLimited(
        requestsPerSecond: Int = 5,
        clock: any Clock<Duration> = ContinuousClock()
    ) -> RateLimitedLastFMClient {
        RateLimitedLastFMClient(base: self, pacer: RequestPacer(limit: requestsPerSecond, per: .seconds(1), clock: ElapsedClock(clock)))
    }
}
