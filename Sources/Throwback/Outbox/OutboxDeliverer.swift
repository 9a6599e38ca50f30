import DequeModule
import Foundation
import Logging
import Networking
import Synchronization
import Telegram

/// The one way out: sends the outbox's messages, first in first out per chat, within
/// Telegram's flood limits, each exactly once as far as Telegram allows.
///
/// Each chat with messages waiting has a lane: one task that takes the chat's messages in
/// order. A message waits for its flood-limit slot (reserved, not polled), is marked as
/// sending, and only then goes out. What comes back decides what becomes of it:
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

        public init(
            limits: FloodLimits = FloodLimits(),
            backoff: RetryPolicy = RetryPolicy(maxAttempts: .max, initialDelay: .seconds(2), maxDelay: .seconds(60)),
            scanInterval: Duration = .seconds(30), shutdownGrace: Duration = .seconds(4), maxRepliesPerChat: Int = 100
        ) {
            self.limits = limits
            self.backoff = backoff
            self.scanInterval = scanInterval
            self.shutdownGrace = shutdownGrace
            self.maxRepliesPerChat = maxRepliesPerChat
        }
    }

    private struct Lane: Sendable {
        var queue = Deque<OutboxMessage>()
        var task: Task<Void, Never>?
        /// A message of this lane is between its claim and its outcome: the lane is not
        /// cancelled at shutdown, so that what it sent is recorded.
        var sending = false
    }

    private struct State: Sendable {
        var lanes: [Int64: Lane] = [:]
        var known: Set<Int64> = []
        var stopping = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let store: BotStore
    private let telegram: any TelegramClient
    private let photos: CollagePhotos?
    private let settings: Settings
    private let limiter: FloodLimiter
    private let clock: ElapsedClock
    private let now: @Sendable () -> Date
    private let metrics: BotMetrics
    private let logger: Logger
    /// Names this process in the outbox, so that another process leaves its messages alone.
    private let owner = UUID().uuidString
    private let state = Mutex(State())

    /// - Parameter telegram: the client for sends, without retries or throttling of its own:
    ///   this deliverer does both.
    public init(
        store: BotStore, telegram: any TelegramClient, photos: CollagePhotos?, settings: Settings = Settings(),
        clock: any Clock<Duration>, now: @escaping @Sendable () -> Date, metrics: BotMetrics = .none, logger: Logger
    ) {
        self.store = store
        self.telegram = telegram
        self.photos = photos
        self.settings = settings
        self.limiter = FloodLimiter(limits: settings.limits)
        self.clock = ElapsedClock(clock)
        self.now = now
        self.metrics = metrics
        self.logger = logger
    }

    // MARK: Intake

    /// Takes messages this process has just committed to the outbox.
    public func accept(_ messages: [OutboxMessage]) {
        state.withLock { state in
            guard !state.stopping else { return }
            for message in messages where message.id != 0 && state.known.insert(message.id).inserted {
                let chat = message.chatID
                state.lanes[chat, default: Lane()].queue.append(message)
                // Started under the lock, so that a lane never gets two tasks.
                if state.lanes[chat]?.task == nil { state.lanes[chat]?.task = Task { await self.runLane(chat) } }
            }
        }
    }

    /// How many replies wait for `chat` in this process: the outbox takes no more than
    /// `maxRepliesPerChat`.
    public func hasRoomForReplies(in chat: Int64) -> Bool {
        state.withLock { state in
            (state.lanes[chat]?.queue.count { $0.kind == .reply } ?? 0) < settings.maxRepliesPerChat
        }
    }

    /// Finds pending messages this process does not hold yet: left by an earlier run, or by
    /// another process. Messages some process stopped sending long ago are settled first.
    public func scan() async {
        do {
            let abandoned = try await store.write { [now] in
                try $0.settleAbandoned(sendingBefore: now().addingTimeInterval(-120), at: now())
            }
            if abandoned > 0 {
                logger.notice("messages were being sent when their process stopped; they may have arrived, so they are not sent again", metadata: [
                    "count": "\(abandoned)",
                ])
                metrics.increment("vinylogue_outbox_messages_total", [("outcome", "unconfirmed")], by: Int64(abandoned))
            }
            accept(try await store.pendingMessages(limit: 1000))
        } catch {
            // Shutdown cancels a scan: that is no error.
            if !Task.isCancelled { logger.error("could not read the outbox", metadata: ["error": "\(error)"]) }
        }
    }

    // MARK: Running

    /// Delivers until cancelled: scans the outbox now and every `scanInterval`, and prunes it
    /// of messages done a week ago. Lanes run on their own: `stop` ends them gracefully, and
    /// cancelling this ends them at once, as a crash would.
    public func run() async {
        await withTaskCancellationHandler {
            await scanAndPrune()
        } onCancel: {
            for lane in state.withLock({ state in
                state.stopping = true
                return state.lanes.values.compactMap(\.task)
            }) { lane.cancel() }
        }
    }

    private func scanAndPrune() async {
        var lastPrune: Duration?
        let realTime = ElapsedClock.continuous
        while !Task.isCancelled {
            await scan()
            let elapsed = realTime.elapsed()
            if lastPrune.map({ elapsed - $0 >= .seconds(3600) }) ?? true {
                lastPrune = elapsed
                do {
                    try await store.write { [now] in
                        try $0.pruneOutbox(doneBefore: now().addingTimeInterval(-7 * 24 * 3600), keeping: 50_000)
                    }
                } catch {
                    logger.warning("could not prune the outbox", metadata: ["error": "\(error)"])
                }
            }
            do { try await realTime.sleep(settings.scanInterval) } catch { return }
        }
    }

    /// Returns once no lane has anything left to send.
    public func idle() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                guard state.lanes.isEmpty else {
                    state.idleWaiters.append(continuation)
                    return false
                }
                return true
            }
            if done { continuation.resume() }
        }
    }

    /// Stops delivery: nothing new starts, lanes waiting for their slot end at once (their
    /// messages stay pending for the next start), and messages being sent get
    /// `shutdownGrace` to finish.
    public func stop() async {
        let waiting = state.withLock { state -> [Task<Void, Never>] in
            state.stopping = true
            return state.lanes.values.filter { !$0.sending }.compactMap(\.task)
        }
        for lane in waiting { lane.cancel() }
        let graceOver = Task { [clock, settings] in
            guard (try? await clock.sleep(settings.shutdownGrace)) != nil else { return }
            // What is still being sent is cut off: it counts as possibly sent.
            for lane in self.state.withLock({ $0.lanes.values.compactMap(\.task) }) { lane.cancel() }
        }
        await idle()
        graceOver.cancel()
    }

    // MARK: Lanes

    /// Sends a chat's messages in order, one at a time, until its queue is empty.
    private func runLane(_ chat: Int64) async {
        var failures = 0
        while let message = head(of: chat) {
            switch await deliver(message, failures: failures) {
            case .done:
                failures = 0
                pop(chat, message.id)
            case .again(let wait):
                failures += 1
                do { try await clock.sleep(wait) } catch { return end(chat) }
            case .stopped:
                return end(chat)
            }
        }
    }

    /// The first message of a lane; nil ends the lane (empty, or stopping).
    private func head(of chat: Int64) -> OutboxMessage? {
        let (message, waiters) = state.withLock { state -> (OutboxMessage?, [CheckedContinuation<Void, Never>]) in
            if !state.stopping, let first = state.lanes[chat]?.queue.first { return (first, []) }
            return (nil, removeLane(chat, &state))
        }
        for waiter in waiters { waiter.resume() }
        return message
    }

    private func pop(_ chat: Int64, _ id: Int64) {
        state.withLock { state in
            state.known.remove(id)
            if state.lanes[chat]?.queue.first?.id == id { state.lanes[chat]?.queue.removeFirst() }
        }
    }

    private func end(_ chat: Int64) {
        let waiters = state.withLock { removeLane(chat, &$0) }
        for waiter in waiters { waiter.resume() }
    }

    /// Forgets a lane; returns who waits for every lane to end, if this was the last.
    private func removeLane(_ chat: Int64, _ state: inout State) -> [CheckedContinuation<Void, Never>] {
        if let lane = state.lanes.removeValue(forKey: chat) {
            for message in lane.queue { state.known.remove(message.id) }
        }
        guard state.lanes.isEmpty else { return [] }
        defer { state.idleWaiters = [] }
        return state.idleWaiters
    }

    /// Marks a lane as sending, unless delivery is stopping.
    private func beginSending(_ chat: Int64) -> Bool {
        state.withLock { state in
            guard !state.stopping, state.lanes[chat] != nil else { return false }
            state.lanes[chat]?.sending = true
            return true
        }
    }

    private func endSending(_ chat: Int64) {
        state.withLock { $0.lanes[chat]?.sending = false }
    }

    /// Drops every message of a lane but the first (which its caller settles).
    private func clearLane(_ chat: Int64) {
        state.withLock { state in
            guard var lane = state.lanes[chat], let first = lane.queue.popFirst() else { return }
            for message in lane.queue { state.known.remove(message.id) }
            lane.queue = [first]
            state.lanes[chat] = lane
        }
    }

    // MARK: One message

    private enum Step {
        /// Settled one way or another (or another process has it): on to the next.
        case done
        /// Not sent: try the same message again after this wait.
        case again(Duration)
        /// Delivery is stopping; the message stays as it is.
        case stopped
    }

    private func deliver(_ message: OutboxMessage, failures: Int) async -> Step {
        var logger = logger
        logger[metadataKey: "chat"] = "\(message.chatID)"
        logger[metadataKey: "message"] = "\(message.id)"
        if now() >= message.expiresAt {
            await settle(message, .dropped, note: "expired unsent", ifPending: true, logger: logger)
            logger.notice("a message waited too long and is dropped unsent", metadata: ["kind": "\(message.kind.rawValue)"])
            return .done
        }
        do {
            try await waitForSlot(message.chatID)
        } catch {
            return .stopped
        }
        guard beginSending(message.chatID) else { return .stopped }
        defer { endSending(message.chatID) }
        do {
            // Another process (`post-weekly`) may have taken it first: then it is theirs.
            guard try await store.write({ [owner, now] in try $0.claimForSending(message.id, owner: owner, at: now()) }) else { return .done }
        } catch {
            logger.error("could not mark a message as sending; it waits", metadata: ["error": "\(error)"])
            return .again(settings.backoff.delay(beforeRetry: failures + 1))
        }
        return await send(message, request: await prepared(message.request, of: message), failures: failures, logger: logger)
    }

    /// Waits for the chat's flood-limit slot, then for the overall one.
    private func waitForSlot(_ chat: Int64) async throws {
        let chatSlot = limiter.reserve(in: chat, now: clock.elapsed())
        try await sleep(until: chatSlot)
        try await sleep(until: limiter.reserveOverall(now: clock.elapsed()))
    }

    private func sleep(until moment: Duration) async throws {
        let wait = moment - clock.elapsed()
        if wait > .zero { try await clock.sleep(wait) } else { try Task.checkCancellation() }
    }

    /// An upload of a collage that has a `file_id` by now is sent by that id instead.
    private func prepared(_ request: TelegramRequest<MessageReceipt>, of message: OutboxMessage) async -> TelegramRequest<MessageReceipt> {
        guard let key = message.collage, !request.attachments.isEmpty, let photos, let fileID = await photos.fileID(for: key) else {
            return request
        }
        return request.withPhoto(.fileID(fileID))
    }

    private func send(_ message: OutboxMessage, request: TelegramRequest<MessageReceipt>, failures: Int, logger: Logger) async -> Step {
        defer { limiter.arrived(in: message.chatID, now: clock.elapsed()) }
        do {
            let receipt = try await telegram.send(request)
            if let key = message.collage, let sent = receipt.message {
                await photos?.sent(key, as: sent, uploaded: !request.attachments.isEmpty)
            }
            await settle(message, .sent, messageID: receipt.message?.messageID, logger: logger)
            return .done
        } catch {
            return await failed(message, request: request, error: error, failures: failures, logger: logger)
        }
    }

    private func failed(
        _ message: OutboxMessage, request: TelegramRequest<MessageReceipt>, error: any Error, failures: Int, logger: Logger
    ) async -> Step {
        switch error.sendVerdict {
        case .notSent(let retryAfter):
            await returnToPending(message, logger: logger)
            var wait = settings.backoff.delay(beforeRetry: failures + 1)
            // Telegram said how long this chat must wait: sooner only earns another 429.
            if let retryAfter { wait = .seconds(retryAfter) }
            metrics.increment("vinylogue_retries_total", [("api", "telegram")])
            logger.notice("message not sent; it waits and goes again", metadata: ["error": "\(error)", "wait": "\(wait)"])
            return .again(wait)
        case .mayHaveBeenSent:
            logger.warning("a message may have arrived; it is not sent again", metadata: ["error": "\(error)"])
            await settle(message, .unconfirmed, note: "\(error)", logger: logger)
            return .done
        case .refused(.unauthorized), .refused(.notFound):
            // A token or API URL Telegram refuses may be fixed and the bot restarted: keep the message.
            await returnToPending(message, logger: logger)
            logger.error("Telegram refused the bot token while sending; the message waits", metadata: ["error": "\(error)"])
            return .again(settings.backoff.delay(beforeRetry: failures + 1))
        case .refused(let refusal):
            return await refused(message, request: request, refusal: refusal, failures: failures, logger: logger)
        }
    }

    private func refused(
        _ message: OutboxMessage, request: TelegramRequest<MessageReceipt>, refusal: TelegramError, failures: Int, logger: Logger
    ) async -> Step {
        if case .badRequest(let reason) = refusal, reason.contains("message is not modified") {
            logger.debug("the message already shows that")
            await settle(message, .sent, note: "not modified", logger: logger)
            return .done
        }
        if refusal.meansChatIsGone {
            logger.notice("the bot can no longer post here; the chat is marked inactive and its queue dropped", metadata: ["reason": "\(refusal)"])
            clearLane(message.chatID)
            let now = now()
            do {
                let dropped = try await store.write { transaction in
                    try transaction.markInactive(message.chatID)
                    try transaction.settle(message.id, as: .dropped, note: "chat gone", at: now)
                    return try transaction.dropPending(chat: message.chatID, note: "chat gone", at: now)
                }
                metrics.increment("vinylogue_outbox_messages_total", [("outcome", "dropped")], by: Int64(dropped.count + 1))
            } catch {
                logger.error("could not mark a chat inactive", metadata: ["error": "\(error)"])
            }
            return .done
        }
        // A stored picture Telegram no longer knows is drawn again and uploaded, once.
        if request.sendsStoredPhoto, let key = message.collage, let photos {
            await photos.refused(key)
            if let jpeg = await photos.redraw(key) {
                logger.notice("Telegram refused a stored collage; sending it drawn again")
                let upload = InputFile(filename: "collage.jpg", contentType: "image/jpeg", data: jpeg)
                return await send(message, request: request.withPhoto(.upload(upload)), failures: failures, logger: logger)
            }
        }
        if let fallback = message.fallback, request.method != fallback.method {
            logger.notice("Telegram refused a picture; sending the text instead", metadata: ["reason": "\(refusal)"])
            return await send(message, request: fallback, failures: failures, logger: logger)
        }
        logger.warning("Telegram refused a message; it is dropped", metadata: ["method": "\(request.method)", "reason": "\(refusal)"])
        await settle(message, .dropped, note: "\(refusal)", logger: logger)
        return .done
    }

    // MARK: Records

    private func settle(
        _ message: OutboxMessage, _ outcome: OutboxMessage.State, messageID: Int64? = nil, note: String? = nil, ifPending: Bool = false,
        logger: Logger
    ) async {
        metrics.increment("vinylogue_outbox_messages_total", [("outcome", outcome.rawValue)])
        let now = now()
        do {
            try await store.write { try $0.settle(message.id, as: outcome, messageID: messageID, note: note, ifPending: ifPending, at: now) }
        } catch {
            // The message stays marked as sending: a later scan counts it as possibly sent.
            logger.error("could not record what became of a message", metadata: ["outcome": "\(outcome.rawValue)", "error": "\(error)"])
        }
    }

    private func returnToPending(_ message: OutboxMessage, logger: Logger) async {
        do {
            try await store.write { try $0.returnToPending(message.id) }
        } catch {
            logger.error("could not return an unsent message to the outbox", metadata: ["error": "\(error)"])
        }
    }
}
