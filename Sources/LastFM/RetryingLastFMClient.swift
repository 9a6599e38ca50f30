import Logging
import Networking

/// Retries calls that failed with 8, 11, 16, 29 or 5xx, with exponential backoff and jitter.
/// Every other error, and cancellation, passes straight through.
public struct RetryingLastFMClient: LastFMClient {
    private let base: any LastFMClient
    private let policy: RetryPolicy
    private let clock: ElapsedClock
    private let logger: Logger
    private let metrics: BotMetrics

    public init(base: any LastFMClient, policy: RetryPolicy, clock: any Clock<Duration>, logger: Logger, metrics: BotMetrics = .none) {
        self.base = base
        self.policy = policy
        self.clock = ElapsedClock(clock)
        self.logger = logger
        self.metrics = metrics
    }

    public func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        try await withRetries(
            policy: policy, clock: clock,
            delay: { error, attempt in
                (error as? LastFMError)?.isRetryable == true ? policy.delay(beforeRetry: attempt) : nil
            },
            willRetry: { [metrics] _, attempt, delay in
                metrics.increment("vinylogue_retries_total", [("api", "lastfm")])
                logger.info("retrying Last.fm call", metadata: ["method": "\(call.method)", "attempt": "\(attempt)", "delay": "\(delay)"])
            },
            operation: { try await base.send(call) }
        )
    }
}

extension LastFMClient {
    /// Retries temporary failures with `policy`, waiting on `clock`.
    public func retrying(
        _ policy: RetryPolicy = RetryPolicy(),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "lastfm"),
        metrics: BotMetrics = .none
    ) -> RetryingLastFMClient {
        RetryingLastFMClient(base: self, policy: policy, clock: clock, logger: logger, metrics: metrics)
    }
}
