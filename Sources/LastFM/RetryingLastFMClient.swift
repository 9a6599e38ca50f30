import Logging
import Networking

/// Retries calls that failed with 8, 11, 16, 29 or 5xx, with exponential backoff and jitter.
/// Every other error, and cancellation, passes straight through.
public struct RetryingLastFMClient: LastFMClient {
    private let base: any LastFMClient
    private let policy: RetryPolicy
    private let clock: ElapsedClock
    private let logger: Logger

    public init(base: any LastFMClient, policy: RetryPolicy, clock: any Clock<Duration>, logger: Logger) {
        self.base = base
        self.policy = policy
        self.clock = ElapsedClock(clock)
        self.logger = logger
    }

    public func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        var attempt = 1
        while true {
            do {
                return try await base.send(call)
            } catch let error as LastFMError where error.isRetryable && attempt < policy.maxAttempts {
                let delay = policy.delay(beforeRetry: attempt)
                logger.info("retrying Last.fm call", metadata: [
                    "method": "\(call.method)", "attempt": "\(attempt + 1)", "delay": "\(delay)",
                ])
                try await clock.sleep(delay)
                attempt += 1
            }
        }
    }
}

extension LastFMClient {
    /// Retries temporary failures with `policy`, waiting on `clock`.
    public func retrying(
        _ policy: RetryPolicy = RetryPolicy(),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "lastfm")
    ) -> RetryingLastFMClient {
        RetryingLastFMClient(base: self, policy: policy, clock: clock, logger: logger)
    }
}
