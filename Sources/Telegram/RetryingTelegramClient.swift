import Logging
import Networking

/// Retries what is safe to retry: it waits out `retry_after` on 429, and backs off on 5xx and
/// network failures (for messages, not on 504, which may follow a delivered message). It never retries 400, 401, 403 or 409. A message that may already have
/// reached Telegram (the connection broke after sending) is not sent again: once beats twice.
public struct RetryingTelegramClient: TelegramClient {
    private let base: any TelegramClient
    private let policy: RetryPolicy
    private let clock: ElapsedClock
    private let logger: Logger
    private let metrics: BotMetrics

    public init(base: any TelegramClient, policy: RetryPolicy, clock: any Clock<Duration>, logger: Logger, metrics: BotMetrics = .none) {
        self.base = base
        self.policy = policy
        self.clock = ElapsedClock(clock)
        self.logger = logger
        self.metrics = metrics
    }

    public func send<Response>(_ request: TelegramRequest<Response>) async throws -> Response {
        try await withRetries(
            policy: policy, clock: clock,
            delay: { error, attempt in
                (error as? TelegramError).flatMap { delay(after: $0, attempt: attempt, request: request) }
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

    private func delay<Response>(after error: TelegramError, attempt: Int, request: TelegramRequest<Response>) -> Duration? {
        switch error {
        case .retryAfter(let seconds):
            return .seconds(seconds)
        case .server(let status, _):
            // A gateway timeout may come after the message was forwarded: once beats twice.
            return request.postsToChat && status == 504 ? nil : policy.delay(beforeRetry: attempt)
        case .transport(_, let mayHaveBeenDelivered):
            return request.postsToChat && mayHaveBeenDelivered ? nil : policy.delay(beforeRetry: attempt)
        case .undecodable:
            // A garbled answer to a message may still mean it was posted.
            return request.postsToChat ? nil : policy.delay(beforeRetry: attempt)
        case .chatMigrated, .unauthorized, .notFound, .conflict, .forbidden, .badRequest:
            return nil
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
    ) -> RetryingTelegramClient {
        RetryingTelegramClient(base: self, policy: policy, clock: clock, logger: logger, metrics: metrics)
    }
}
