import Foundation
import Logging
import Networking
import Synchronization
import Telegram

/// The one way out: sends the outbox's messages, first in first out per chat, within
/// Telegram's flood limits, each exactly once as far as Telegram allows.
///
/// Each chat with messages waiting has a lane, and one pump serves every lane: it takes the
/// first lane whose chat may send now (flood limits are reserved, not polled, and a chat
/// Telegram asked to wait is held back meanwhile), and sends that lane's first message,
/// marked as sending only then. One message per chat is on its way at a time, so a chat's
/// messages arrive in order, while other chats' go alongside. What comes back decides what
/// becomes of a message:
/// - sent: recorded with Telegram's message id;
/// - certainly not sent (no connection, a 429, a 5xx other than 504, a request libcurl never
///   wrote): back to pending and tried again, after `retry_after` for a 429 (the whole chat
///   waits meanwhile, others go on) or after a backoff;
/// - refused: "message is not modified" counts as done, a picture Telegram will not take is
///   replaced by its text, a chat that is gone is marked inactive and its queue dropped, and
///   anything else is dropped with a log line;
/// - may have been sent: never sent again, and the log says so.
///
/// A message older than its lifetime is dropped unsent. Messages enqueued by this process
/// arrive through `accept`; those left by an earlier run or by another process are found by
/// scanning the outbox at start and every `scanInterval`.
///
/// A chat's messages are sent by one process at a time: before its first send, a lane takes
/// the chat's lease in the database (`outboxLane`), renews it while it sends and for a flood
/// wait's length, and gives it up once empty. A lane whose chat another process holds is left
/// to it; a scan takes up such a chat's messages only once its lease is free, or has run out
/// because its holder died.
///
/// Its parts, one file each: intake, the lanes, the pump, claims and leases, sending,
/// verdicts, records, and running (scans, pruning, stopping).
public final class OutboxDeliverer: Sendable {
    public struct Settings: Sendable {
        public var limits: FloodLimits
        /// Backoff between tries of a message that did not leave.
        public var backoff: RetryPolicy
        /// How often the outbox is scanned for messages this process did not enqueue, in real
        /// time: it is about other processes, not about the waits a test clock drives.
        public var scanInterval: Duration
        /// How long sends in progress may take to finish once delivery stops.
        public var shutdownGrace: Duration
        /// The most replies that may wait for one chat; more are dropped, a flood's echo.
        public var maxRepliesPerChat: Int
        /// The most messages held in memory; beyond it, `waitForRoom` holds intake back, and the
        /// updates wait at Telegram.
        public var maxWaiting: Int
        /// Once the overall flood limit holds messages back, they go in groups of up to this many
        /// as their slots free up, rather than one by one as each slot does: a group costs one
        /// wake-up and one write. The first of a group waits at most this many slots longer.
        public var sendGroup: Int
        /// How long a process holds a chat's lane without renewing it: once a holder dies,
        /// another process sends the chat's messages after this long. It is renewed while the
        /// lane sends, and covers a flood wait.
        public var laneLease: Duration

        public init(
            limits: FloodLimits = FloodLimits(),
            backoff: RetryPolicy = RetryPolicy(maxAttempts: .max, initialDelay: .seconds(2), maxDelay: .seconds(60)),
            scanInterval: Duration = .seconds(30), shutdownGrace: Duration = .seconds(4), maxRepliesPerChat: Int = 100,
            maxWaiting: Int = 256, sendGroup: Int = 30, laneLease: Duration = .seconds(30)
        ) {
            self.laneLease = laneLease
            self.sendGroup = max(1, sendGroup)
            self.limits = limits
            self.backoff = backoff
            self.scanInterval = scanInterval
            self.shutdownGrace = shutdownGrace
            self.maxRepliesPerChat = maxRepliesPerChat
            self.maxWaiting = maxWaiting
        }
    }

    let store: BotStore
    /// Sends one message through the Telegram client chain, compiled for that chain.
    let sendMessage: @Sendable (TelegramRequest<MessageReceipt>) async throws -> MessageReceipt
    let photos: (any ReusablePhotos)?
    /// Run on the hourly tick: it keeps every table of the store within its bound.
    let pruner: StoragePruner?
    let settings: Settings
    let limiter: FloodLimiter
    let clock: ElapsedClock
    let now: @Sendable () -> Date
    let metrics: BotMetrics
    let logger: Logger
    /// Where the pump and its sends run: the transport's own thread, where the answers land.
    let executor: (any TaskExecutor)?
    /// Names this process in the outbox, so that another process leaves its messages alone.
    let owner = UUID().uuidString
    let state = Mutex(State())
    /// Wakes the pump: a lane became ready, or a send ended.
    let wake = WakeSignal()
    /// Wakes the scan: a lane turned out to be another process's, whose lease the scan watches.
    let rescan = WakeSignal()

    /// - Parameters:
    ///   - telegram: the client for sends, without retries or throttling of its own: this
    ///     deliverer does both.
    ///   - pruner: prunes the store every hour while `run` runs; nil in a process that only
    ///     sends what it enqueued.
    ///   - executor: where sending runs; the Telegram transport's `executor`.
    public init(
        store: BotStore, telegram: some TelegramClient, photos: (any ReusablePhotos)?, pruner: StoragePruner? = nil, settings: Settings = Settings(),
        clock: any Clock<Duration>, now: @escaping @Sendable () -> Date, metrics: BotMetrics = .none, logger: Logger,
        executor: (any TaskExecutor)? = nil
    ) {
        self.executor = executor
        self.pruner = pruner
        self.store = store
        self.sendMessage = { try await telegram.send($0) }
        self.photos = photos
        self.settings = settings
        self.limiter = FloodLimiter(limits: settings.limits)
        self.clock = ElapsedClock(clock)
        self.now = now
        self.metrics = metrics
        self.logger = logger
    }
}
