import Logging
import Networking

/// Retries requests that failed with 429, 5xx or a network failure, with the policy's backoff;
/// after a 429 it waits at least what `X-RateLimit-Reset-In` said. Every other error, and
/// cancellation, passes straight through.
public struct RetryingListenBrainzClient: ListenBrainzClient {
    private let base: any ListenBrainzClient
    private let policy: RetryPolicy
    private let clock: ElapsedClock
    private let logger: Logger
    private let metrics: BotMetrics

    public init(base: any ListenBrainzClient, policy: RetryPolicy, clock: any Clock<Duration>, logger: Logger, metrics: BotMetrics = .none) {
        self.base = base
        self.policy = policy
        self.clock = ElapsedClock(clock)
        self.logger = logger
        self.metrics = metrics
    }

    public func listens(_ request: ListensRequest) async throws -> ListensPage {
        try await withRetries(
            policy: policy, clock: clock,
            delay: { error, attempt in
                guard let error = error as? ListenBrainzError, error.isRetryable else { return nil }
                let backoff = policy.delay(beforeRetry: attempt)
                if case .rateLimited(let resetIn) = error { return max(backoff, RateLimitedListenBrainzClient.wait(resetIn)) }
                return backoff
            },
            willRetry: { [metrics, logger] _, attempt, delay in
                metrics.increment("vinylogue_retries_total", [("api", "listenbrainz")])
                logger.info("retrying ListenBrainz request", metadata: ["attempt": "\(attempt)", "delay": "\(delay)"])
            },
            operation: { try await base.listens(request) }
        )
    }
}

extension ListenBrainzClient {
    /// Retries temporary failures with `policy`, waiting on `clock`.
    public func retrying(
        _ policy: RetryPolicy = RetryPolicy(), clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "listenbrainz"), metrics: BotMetrics = .none
    ) -> RetryingListenBrainzClient {
        RetryingListenBrainzClient(base: self, policy: policy, clock: clock, logger: logger, metrics: metrics)
    }
}
