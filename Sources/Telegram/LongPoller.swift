import Logging
import Networking

/// The Bot API's long poll as an `AsyncSequence` of updates.
///
/// It asks `getUpdates` with `offset` (one past the last update it received) and `timeout`.
/// Network errors and 5xx back off exponentially with jitter; 429 waits `retry_after`; 409
/// logs a clear message and retries slowly. A 401 or a 404 ends the sequence with
/// `TelegramError.unauthorized` or `.notFound`. Cancelling the consuming task cancels the
/// in-flight poll and ends the sequence.
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
            allowedUpdates: [String] = ["message", "channel_post", "callback_query", "inline_query", "chosen_inline_result", "my_chat_member"],
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
    private let onBatch: @Sendable (_ batch: [ReceivedUpdate], _ nextOffset: Int64) async throws -> [Update]
    private let onPoll: @Sendable () async -> Void

    /// - Parameters:
    ///   - initialOffset: where to resume, e.g. from storage; `nil` takes what Telegram holds.
    ///   - onBatch: called with each batch, and the offset that will confirm it, before the
    ///     next poll confirms it, so that both can be stored first. It returns the updates to
    ///     yield: those not seen before.
    ///   - onPoll: called after every poll Telegram answered, with updates or without, before
    ///     the next poll.
    public init(
        client: any TelegramClient,
        configuration: Configuration = Configuration(),
        initialOffset: Int64? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "telegram.poller"),
        onBatch: @escaping @Sendable (_ batch: [ReceivedUpdate], _ nextOffset: Int64) async throws -> [Update] = { batch, _ in batch.map(\.update) },
        onPoll: @escaping @Sendable () async -> Void = {}
    ) {
        self.client = client
        self.configuration = configuration
        self.initialOffset = initialOffset
        self.clock = ElapsedClock(clock)
        self.logger = logger
        self.onBatch = onBatch
        self.onPoll = onPoll
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(poller: self, offset: initialOffset)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let poller: LongPoller
        var offset: Int64?
        /// The batch being handed out, and how much of it has been.
        var buffer: [Update] = []
        var handedOut = 0

        public mutating func next() async throws -> Update? {
            while handedOut == buffer.count {
                (buffer, handedOut) = ([], 0)
                if Task.isCancelled { return nil }
                do {
                    (offset, buffer) = try await poller.batch(after: offset)
                } catch {
                    // Cancelled while polling, or while waiting to poll again.
                    if Task.isCancelled || error is CancellationError { return nil }
                    throw error
                }
            }
            // An index rather than `removeFirst`, which would move every update left each time.
            handedOut += 1
            return buffer[handedOut - 1]
        }
    }

    /// The next batch after `offset`, with the offset that confirms it; polled again after every
    /// failure but a refused token or API URL, with the backoff policy's waits.
    private func batch(after offset: Int64?) async throws -> (offset: Int64?, updates: [Update]) {
        var failures = 0
        do {
            let batch: (offset: Int64?, updates: [Update]) = try await configuration.backoff.run(sleep: clock.sleep, wait: wait, willRetry: { error, attempt, delay in
                failures = attempt - 1
                logRetry(after: error, failures: failures, delay: delay)
            }) {
                let updates = try await client.getUpdates(
                    offset: offset, limit: configuration.limit, timeout: configuration.timeout, allowedUpdates: configuration.allowedUpdates,
                    requestTimeout: .seconds(configuration.timeout) + configuration.requestTimeoutMargin
                )
                await onPoll()
                // Every update counts, even one whose id is lower than before: Telegram
                // renumbers updates after a quiet week. Duplicates are recognised later, by
                // what the update is.
                guard let last = updates.last else { return (offset, [Update]()) }
                let next = Self.offset(after: last.update.updateID)
                // Not stored means not confirmed: should this fail, Telegram keeps the batch and
                // sends it again.
                return (next, try await onBatch(updates, next))
            }
            if failures > 0 { logger.notice("Telegram polling recovered", metadata: ["failures": "\(failures)"]) }
            return batch
        } catch TelegramError.unauthorized {
            logger.critical("Telegram rejected the bot token (401 Unauthorized): check TELEGRAM_BOT_TOKEN")
            throw TelegramError.unauthorized
        } catch TelegramError.notFound {
            logger.critical("Telegram answered 404 Not Found: the API URL or the bot token is wrong; check TELEGRAM_API_URL and TELEGRAM_BOT_TOKEN")
            throw TelegramError.notFound
        }
    }

    /// The offset that confirms `id`: one past it, or the largest offset there is. An id of
    /// `Int64.max` from a broken server then stays unconfirmed, and is recognised by what it
    /// is when it comes again, rather than trapping on overflow.
    static func offset(after id: Int64) -> Int64 {
        let (next, overflow) = id.addingReportingOverflow(1)
        return overflow ? .max : next
    }

    /// The wait before polling again: Telegram's own on a 429, a slow pace while another poller
    /// holds the token (409), else the backoff; none after a refused token or API URL.
    private func wait(after error: any Error, attempt: Int) -> Duration? {
        switch error {
        case TelegramError.unauthorized, TelegramError.notFound, is CancellationError: nil
        case TelegramError.conflict: configuration.conflictDelay
        default: (error as? TelegramError)?.verdict.retryAfter ?? configuration.backoff.delay(beforeRetry: attempt)
        }
    }

    private func logRetry(after error: any Error, failures: Int, delay: Duration) {
        switch error {
        case TelegramError.retryAfter(let seconds):
            logger.warning("Telegram asked to wait before polling again", metadata: ["seconds": "\(seconds)"])
        case TelegramError.conflict:
            logger.error(
                "Another process is polling with this bot token, or a webhook is set (409). Stop the other instance; retrying slowly.",
                metadata: ["retryIn": "\(delay)"]
            )
        case is TelegramError:
            logger.warning("Telegram polling failed; backing off", metadata: ["error": "\(error)", "failures": "\(failures)", "delay": "\(delay)"])
        default:
            // Only storing a batch fails otherwise.
            logger.error("could not store received updates; polling them again", metadata: ["error": "\(error)", "delay": "\(delay)"])
        }
    }
}
