import Logging
import Networking

/// Retries what is safe to retry: it waits out `retry_after` on 429, and backs off on 5xx and
/// network failures. A call that posts to a chat is retried only when it certainly never
/// reached Telegram (`sendVerdict`): once beats twice. Refusals (400, 401, 403, 409) are never
/// retried, and no wait takes a call past its `patience`.
public struct RetryingTelegramClient<Base: TelegramClient>: TelegramClient {
    private let base: Base
    private let policy: RetryPolicy
    private let clock: ElapsedClock
    private let logger: Logger
    private let metrics: BotMetrics

    public init(base: Base, policy: RetryPolicy, clock: any Clock<Duration>, logger: Logger, metrics: BotMetrics = .none) {
        self.base = base
        self.policy = policy
        self.clock = ElapsedClock(clock)
        self.logger = logger
        self.metrics = metrics
    }

    public func send<Response>(_ request: TelegramRequest<Response>) async throws -> Response {
        let started = clock.elapsed()
        return try await withRetries(
            policy: policy, clock: clock,
            delay: { error, attempt in
                guard let delay = delay(after: error, attempt: attempt, request: request) else { return nil }
                if let patience = request.patience, clock.elapsed() - started + delay > patience { return nil }
                return delay
            },
            willRetry: { [metrics] error, attempt, delay in
                metrics.increment("vinylogue_retries_total", [("api", "telegram")])
                logger.info("retrying Telegram call", metadata: [
                    "method": "\(request.method)", "attempt": "\(attempt)", "delay": "\(delay)", "error": "\(error)",
                ])
            },
            operation: { try await base.send(request) }
        )
    }

    private func delay<Response>(after error: any Error, attempt: Int, request: TelegramRequest<Response>) -> Duration? {
        switch error.sendVerdict {
        case .notSent(let retryAfter?): .seconds(retryAfter)
        case .notSent(nil): policy.delay(beforeRetry: attempt)
        case .refused: nil
        // Reading again is harmless; posting again could post twice.
        case .mayHaveBeenSent: request.postsToChat || error is CancellationError ? nil : policy.delay(beforeRetry: attempt)
        }
    }
}

extension TelegramClient {
    /// Retries flood waits, server errors and safe network failures.
    public func retrying(
        _ policy: RetryPolicy = RetryPolicy(maxAttempts: 5, initialDelay: .seconds(1), maxDelay: .seconds(30)),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "telegram"),
        metrics: BotMetrics = .none
    ) -> RetryingTelegramClient<Self> {
        RetryingTelegramClient(base: self, policy: policy, clock: clock, logger: logger, metrics: metrics)
    }
}
