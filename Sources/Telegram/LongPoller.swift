import Logging
import Networking

/// The Bot API's long poll as an `AsyncSequence` of updates.
///
/// It asks `getUpdates` with `offset` (one past the last update it received) and `timeout`.
/// Network errors and 5xx back off exponentially with jitter; 429 waits `retry_after`; 409
/// logs a clear message and retries slowly. A 401 ends the sequence with
/// `TelegramError.unauthorized`. Cancelling the consuming task cancels the in-flight poll and
/// ends the sequence.
public struct LongPoller: AsyncSequence, Sendable {
    public typealias Element = Update

    public struct Configuration: Sendable {
        /// Seconds Telegram may hold a poll open (`POLL_TIMEOUT`).
        public var timeout: Int
        public var allowedUpdates: [String]
        public var limit: Int
        public var backoff: RetryPolicy
        /// The pause between polls while another poller or a webhook holds the token.
        public var conflictDelay: Duration
        /// How long past `timeout` to wait for Telegram's answer before calling it a timeout.
        public var requestTimeoutMargin: Duration

        public init(
            timeout: Int = 50,
            allowedUpdates: [String] = ["message", "callback_query"],
            limit: Int = 100,
            backoff: RetryPolicy = RetryPolicy(maxAttempts: .max, initialDelay: .seconds(1), maxDelay: .seconds(60)),
            conflictDelay: Duration = .seconds(30),
            requestTimeoutMargin: Duration = .seconds(15)
        ) {
            self.timeout = timeout
            self.allowedUpdates = allowedUpdates
            self.limit = limit
            self.backoff = backoff
            self.conflictDelay = conflictDelay
            self.requestTimeoutMargin = requestTimeoutMargin
        }
    }

    private let client: any TelegramClient
    private let configuration: Configuration
    private let initialOffset: Int64?
    private let clock: ElapsedClock
    private let logger: Logger
    private let onBatch: @Sendable ([Update]) async throws -> Void

    /// - Parameters:
    ///   - initialOffset: where to resume, e.g. from storage; `nil` takes what Telegram holds.
    ///   - onBatch: called with each batch before it is yielded and before the next poll
    ///     confirms it to Telegram, so that it can be stored first.
    public init(
        client: any TelegramClient,
        configuration: Configuration = Configuration(),
        initialOffset: Int64? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "telegram.poller"),
        onBatch: @escaping @Sendable ([Update]) async throws -> Void = { _ in }
    ) {
        self.client = client
        self.configuration = configuration
        self.initialOffset = initialOffset
        self.clock = ElapsedClock(clock)
        self.logger = logger
        self.onBatch = onBatch
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(poller: self, offset: initialOffset)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let poller: LongPoller
        var offset: Int64?
        var buffer: [Update] = []
        var failures = 0

        public mutating func next() async throws -> Update? {
            while buffer.isEmpty {
                if Task.isCancelled { return nil }
                do {
                    try await poll()
                } catch is CancellationError {
                    return nil
                }
            }
            return buffer.removeFirst()
        }

        private mutating func poll() async throws {
            let configuration = poller.configuration
            do {
                let updates = try await poller.client.getUpdates(
                    offset: offset, limit: configuration.limit, timeout: configuration.timeout,
                    allowedUpdates: configuration.allowedUpdates,
                    requestTimeout: .seconds(configuration.timeout) + configuration.requestTimeoutMargin
                )
                if failures > 0 { poller.logger.notice("Telegram polling recovered", metadata: ["failures": "\(failures)"]) }
                failures = 0
                let fresh = updates.filter { offset == nil || $0.updateID >= offset! }.sorted { $0.updateID < $1.updateID }
                guard let last = fresh.last else { return }
                do {
                    try await poller.onBatch(fresh)
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    // Not stored means not confirmed: Telegram keeps the batch and sends it again.
                    failures += 1
                    let delay = configuration.backoff.delay(beforeRetry: failures)
                    poller.logger.error("could not store received updates; polling them again", metadata: [
                        "error": "\(error)", "delay": "\(delay)",
                    ])
                    try await poller.clock.sleep(delay)
                    return
                }
                offset = last.updateID + 1
                buffer = fresh
            } catch let error as TelegramError {
                try await recover(from: error)
            }
        }

        private mutating func recover(from error: TelegramError) async throws {
            switch error {
            case .unauthorized:
                poller.logger.critical("Telegram rejected the bot token (401): check TELEGRAM_BOT_TOKEN")
                throw error
            case .retryAfter(let seconds):
                poller.logger.warning("Telegram asked to wait before polling again", metadata: ["seconds": "\(seconds)"])
                try await poller.clock.sleep(.seconds(seconds))
            case .conflict:
                poller.logger.error(
                    "Another process is polling with this bot token, or a webhook is set (409). Stop the other instance; retrying slowly.",
                    metadata: ["retryIn": "\(poller.configuration.conflictDelay)"]
                )
                try await poller.clock.sleep(poller.configuration.conflictDelay)
            default:
                failures += 1
                let delay = poller.configuration.backoff.delay(beforeRetry: failures)
                poller.logger.warning("Telegram polling failed; backing off", metadata: [
                    "error": "\(error)", "failures": "\(failures)", "delay": "\(delay)",
                ])
                try await poller.clock.sleep(delay)
            }
        }
    }
}
