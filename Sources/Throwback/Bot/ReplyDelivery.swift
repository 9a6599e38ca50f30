import Logging
import Networking
import Telegram

/// Sends the answer to an update, once, as far as Telegram allows.
///
/// The update is recorded as handled immediately before each HTTP attempt, after every wait
/// (flood limits, retries), through the request's `beforeSending` hook. If that record
/// cannot be written, nothing is sent. An answer that certainly never left puts its update
/// back in the inbox and is tried again in this process, with capped backoff, for up to
/// `patience`; a shutdown during any wait leaves it in the inbox, to be answered once
/// after the restart. An answer that may have reached Telegram is never sent again.
public struct ReplyDelivery: Sendable {
    public struct Policy: Sendable {
        /// Backoff between in-process attempts, after the client's own retries gave up.
        public var backoff: RetryPolicy
        /// How long to keep trying before leaving the answer for the next start.
        public var patience: Duration

        public init(
            backoff: RetryPolicy = RetryPolicy(maxAttempts: .max, initialDelay: .seconds(2), maxDelay: .seconds(60)),
            patience: Duration = .seconds(15 * 60)
        ) {
            self.backoff = backoff
            self.patience = patience
        }
    }

    private let telegram: any TelegramClient
    private let journal: UpdateJournal
    private let store: BotStore
    private let policy: Policy
    private let clock: ElapsedClock
    private let logger: Logger

    public init(
        telegram: any TelegramClient, journal: UpdateJournal, store: BotStore, policy: Policy = Policy(),
        clock: any Clock<Duration> = ContinuousClock(), logger: Logger
    ) {
        self.telegram = telegram
        self.journal = journal
        self.store = store
        self.policy = policy
        self.clock = ElapsedClock(clock)
        self.logger = logger
    }

    /// Records that `update` needs no answer.
    public func settle(_ update: Update) async {
        do {
            try await journal.markHandled(update)
        } catch {
            logger.error("could not record a handled update", metadata: ["update": "\(update.updateID)", "error": "\(error)"])
        }
    }

    /// What became of an answer.
    public enum Outcome<Response: Sendable>: Sendable {
        case sent(Response)
        /// Telegram read it and said no (400): nothing was posted, so another answer may go instead.
        case refused(TelegramError)
        /// Not delivered, or perhaps delivered; either way nothing more is sent (the reason is logged).
        case notSent
    }

    /// Sends `request` as the answer to `update`.
    @discardableResult
    public func send<Response>(_ request: TelegramRequest<Response>, answering update: Update) async -> Outcome<Response> {
        let journal = journal
        var logger = logger
        logger[metadataKey: "update"] = "\(update.updateID)"
        let request = request.beforeSending { try await journal.markHandled(update) }
        let chat = request.chatID ?? 0
        let started = clock.elapsed()
        var attempt = 0
        while true {
            do {
                return .sent(try await telegram.send(request))
            } catch let error where error.certainlyNotSent {
                reopen(update)
                attempt += 1
                var delay = policy.backoff.delay(beforeRetry: attempt)
                // Telegram said how long to wait: sending sooner only earns another 429.
                if case .retryAfter(let seconds)? = error as? TelegramError { delay = max(delay, .seconds(seconds)) }
                guard !Task.isCancelled, clock.elapsed() - started + delay <= policy.patience else {
                    logger.notice("reply not sent; it stays in the inbox for the next start", metadata: [
                        "chat": "\(chat)", "error": "\(error)",
                    ])
                    return .notSent
                }
                logger.notice("reply not sent; trying again", metadata: ["chat": "\(chat)", "error": "\(error)", "delay": "\(delay)"])
                do {
                    try await clock.sleep(delay)
                } catch {
                    logger.notice("reply abandoned at shutdown; it stays in the inbox for the next start", metadata: ["chat": "\(chat)"])
                    return .notSent
                }
            } catch let error as TelegramError where error.meansChatIsGone {
                logger.notice("the bot can no longer post here; marking the chat inactive", metadata: ["chat": "\(chat)", "reason": "\(error)"])
                do { try await store.markInactive(chat) } catch {
                    logger.error("could not mark a chat inactive", metadata: ["chat": "\(chat)", "error": "\(error)"])
                }
                return .notSent
            } catch TelegramError.badRequest(let reason) where reason.contains("message is not modified") {
                logger.debug("the message already shows that", metadata: ["chat": "\(chat)"])
                return .notSent
            } catch let error as TelegramError where error.isRefusal && error != .unauthorized {
                logger.warning("Telegram refused a reply", metadata: ["chat": "\(chat)", "method": "\(request.method)", "error": "\(error)"])
                return .refused(error)
            } catch {
                logger.warning("could not send a reply", metadata: ["chat": "\(chat)", "method": "\(request.method)", "error": "\(error)"])
                return .notSent
            }
        }
    }

    /// Undoes the handled mark of an answer that never left. Synchronous: it must work while
    /// the task is being cancelled.
    private func reopen(_ update: Update) {
        do {
            try journal.reopen(update)
        } catch {
            logger.error("could not keep an unanswered update", metadata: ["update": "\(update.updateID)", "error": "\(error)"])
        }
    }
}

extension Error {
    /// Whether a Bot API call certainly did not reach Telegram, so that sending it again
    /// cannot double it: no connection, a flood wait, a cancelled wait, or a 5xx other than
    /// the gateway timeout that may follow a delivered message.
    var certainlyNotSent: Bool {
        switch self as any Error {
        case TelegramError.transport(_, mayHaveBeenDelivered: false), TelegramError.retryAfter: true
        case TelegramError.server(let status, _): status != 504
        default: false
        }
    }
}
