import Logging
import Networking

/// Retries what is safe to retry: it waits out `retry_after` on 429, and backs off on 5xx and
/// network failures. It never retries 400, 401, 403 or 409. A message that may already have
/// reached Telegram (the connection broke after sending) is not sent again: once beats twice.
public struct RetryingTelegramClient: TelegramClient {
    private let base: any TelegramClient
    private let policy: RetryPolicy
    private let clock: ElapsedClock
    private let logger: Logger

    public init(base: any TelegramClient, policy: RetryPolicy, clock: any Clock<Duration>, logger: Logger) {
        self.base = base
        self.policy = policy
        self.clock = ElapsedClock(clock)
        self.logger = logger
    }

    public func send<Response>(_ request: TelegramRequest<Response>) async throws -> Response {
        var attempt = 1
        while true {
            do {
                return try await base.send(request)
            } catch let error as TelegramError {
                guard attempt < policy.maxAttempts, let delay = delay(after: error, attempt: attempt, request: request) else {
                    throw error
                }
                logger.info("retrying Telegram call", metadata: [
                    "method": "\(request.method)", "attempt": "\(attempt + 1)", "delay": "\(delay)", "error": "\(error)",
                ])
                try await clock.sleep(delay)
                attempt += 1
            }
        }
    }

    private func delay<Response>(after error: TelegramError, attempt: Int, request: TelegramRequest<Response>) -> Duration? {
        switch error {
        case .retryAfter(let seconds):
            return .seconds(seconds)
        case .server:
            return policy.delay(beforeRetry: attempt)
        case .transport(_, let mayHaveBeenDelivered):
            return request.postsToChat && mayHaveBeenDelivered ? nil : policy.delay(beforeRetry: attempt)
        case .undecodable:
            // A garbled answer to a message may still mean it was posted.
            return request.postsToChat ? nil : policy.delay(beforeRetry: attempt)
        case .chatMigrated, .unauthorized, .conflict, .forbidden, .badRequest:
            return nil
        }
    }
}

extension TelegramClient {
    /// Retries flood waits, server errors and safe network failures.
    public func retrying(
        _ policy: RetryPolicy = RetryPolicy(maxAttempts: 5, initialDelay: .seconds(1), maxDelay: .seconds(30)),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "telegram")
    ) -> RetryingTelegramClient {
        RetryingTelegramClient(base: self, policy: policy, clock: clock, logger: logger)
    }
}
