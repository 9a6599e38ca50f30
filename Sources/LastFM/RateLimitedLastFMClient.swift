import Networking

/// Keeps to Last.fm's published limit by taking a token from a bucket before every call.
public struct RateLimitedLastFMClient: LastFMClient {
    private let base: any LastFMClient
    private let bucket: TokenBucket

    public init(base: any LastFMClient, bucket: TokenBucket) {
        self.base = base
        self.bucket = bucket
    }

    public func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        try await bucket.take()
        return try await base.send(call)
    }
}

extension LastFMClient {
    /// At most `requestsPerSecond` calls a second, in bursts of at most that many.
    public func rateLimited(
        requestsPerSecond: Int = 5,
        clock: any Clock<Duration> = ContinuousClock()
    ) -> RateLimitedLastFMClient {
        RateLimitedLastFMClient(base: self, bucket: TokenBucket(allowing: requestsPerSecond, per: .seconds(1), clock: clock))
    }
}
