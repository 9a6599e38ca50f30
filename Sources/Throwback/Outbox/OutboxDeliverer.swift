import DequeModule
import HeapModule
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

    private struct Lane: Sendable {
        var queue = Deque<OutboxMessage>()
        /// Its first message is on its way: the lane waits for the outcome.
        var sending = false
        /// Failures in a row of its first message, for the backoff.
        var failures = 0
        /// When this process's lease of the chat runs out; nil until it is taken.
        var leaseUntil: Date?
    }

    /// A lane held back until a moment: its chat's next flood-limit slot, a 429's wait, a backoff.
    private struct Held: Comparable, Sendable {
        var until: Duration
        var chat: Int64

        static func < (a: Held, b: Held) -> Bool { (a.until, a.chat) < (b.until, b.chat) }
    }

    private struct State: Sendable {
        var lanes: [Int64: Lane] = [:]
        /// Lanes whose first message may go as soon as the overall limit allows, in order.
        var ready = Deque<Int64>()
        var held = Heap<Held>()
        var known: Set<Int64> = []
        var waiting = 0
        var sending = 0
        var pump: Task<Void, Never>?
        var stopping = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
        /// Sends whose success is recorded with the next write, rather than in one of their own.
        var unrecorded: [(id: Int64, messageID: Int64?)] = []
        /// Groups that became supergroups while this process ran, to their new ids.
        var migrated: [Int64: Int64] = [:]
        /// Chats whose lanes emptied: their leases are given up with the next write.
        var unreleased: Set<Int64> = []
    }

    private let store: BotStore
    /// Sends one message through the Telegram client chain, compiled for that chain.
    private let sendMessage: @Sendable (TelegramRequest<MessageReceipt>) async throws -> MessageReceipt
    private let photos: CollagePhotos?
    /// Run on the hourly tick: it keeps every table of the store within its bound.
    private let pruner: StoragePruner?
    private let settings: Settings
    private let limiter: FloodLimiter
    private let clock: ElapsedClock
    private let now: @Sendable () -> Date
    private let metrics: BotMetrics
    private let logger: Logger
    /// Where the pump and its sends run: the transport's own thread, where the answers land.
    private let executor: (any TaskExecutor)?
    /// Names this process in the outbox, so that another process leaves its messages alone.
    private let owner = UUID().uuidString
    private let state = Mutex(State())
    /// Wakes the pump: a lane became ready, or a send ended.
    private let wake = WakeSignal()
    /// Wakes the scan: a lane turned out to be another process's, whose lease the scan watches.
    private let rescan = WakeSignal()

    /// - Parameters:
    ///   - telegram: the client for sends, without retries or throttling of its own: this
    ///     deliverer does both.
    ///   - pruner: prunes the store every hour while `run` runs; nil in a process that only
    ///     sends what it enqueued.
    ///   - executor: where sending runs; the Telegram transport's `executor`.
    public init(
        store: BotStore, telegram: some TelegramClient, photos: CollagePhotos?, pruner: StoragePruner? = nil, settings: Settings = Settings(),
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

    // MARK: Intake

    /// Takes messages this process has just committed to the outbox.
    public func accept(_ messages: [OutboxMessage]) {
        state.withLock { state in
            guard !state.stopping else { return }
            for var message in messages where message.id != 0 && state.known.insert(message.id).inserted {
                if let new = state.migrated[message.chatID] { message = Self.redirected(message, to: new) }
                let chat = message.chatID
                if state.lanes[chat] == nil { state.ready.append(chat) }
                state.lanes[chat, default: Lane()].queue.append(message)
                state.waiting += 1
            }
            // Started under the lock, so that there is never more than one.
            if state.pump == nil, !state.lanes.isEmpty { state.pump = Task(executorPreference: executor) { await self.pump() } }
        }
        wake.notify()
    }

    /// A group became a supergroup (its waiting rows moved with its roster): its queue joins
    /// the new chat's, in the order the messages were enqueued, aimed at the new id, and so do
    /// messages handed in for the old id later. A message on its way stays first, so that the
    /// next waits for it.
    public func followMigration(from old: Int64, to new: Int64) {
        guard old != new else { return }
        state.withLock { state in
            state.migrated[old] = new
            guard var moving = state.lanes.removeValue(forKey: old) else { return }
            moving.queue = Deque(moving.queue.map { Self.redirected($0, to: new) })
            guard var target = state.lanes[new] else {
                state.lanes[new] = moving
                if !moving.sending { state.ready.append(new) }
                return
            }
            // Only one message of a lane is on its way at a time: should both lanes have one,
            // the old one's stays in its lane until it is settled.
            let bothSending = moving.sending && target.sending
            if bothSending, let first = moving.queue.popFirst() {
                state.lanes[old] = Lane(queue: [first], sending: true, failures: moving.failures)
            }
            let onItsWay = target.sending ? target.queue.popFirst() : moving.sending && !bothSending ? moving.queue.popFirst() : nil
            target.queue = Deque((Array(target.queue) + moving.queue).sorted { $0.id < $1.id })
            if let onItsWay { target.queue.prepend(onItsWay) }
            if moving.sending && !bothSending { (target.sending, target.failures) = (true, moving.failures) }
            state.lanes[new] = target
        }
        wake.notify()
    }

    /// The lane a message waits in: its chat's, or, once its group became a supergroup, the
    /// supergroup's.
    private static func lane(of message: OutboxMessage, in state: State) -> Int64 {
        state.lanes[message.chatID] == nil ? state.migrated[message.chatID] ?? message.chatID : message.chatID
    }

    private static func redirected(_ message: OutboxMessage, to chat: Int64) -> OutboxMessage {
        var message = message
        message.chatID = chat
        message.request = message.request.redirected(to: chat)
        return message
    }

    /// Whether `chat` may take another reply: the outbox holds no more than
    /// `maxRepliesPerChat` waiting for one chat.
    public func hasRoomForReplies(in chat: Int64) -> Bool {
        state.withLock { state in
            (state.lanes[chat]?.queue.count { $0.kind == .reply } ?? 0) < settings.maxRepliesPerChat
        }
    }

    /// Returns once fewer than `maxWaiting` messages wait in memory: intake waits here, so
    /// that a burst waits at Telegram rather than in this process.
    public func waitForRoom() async {
        // Without a suspension when there is room, as there nearly always is.
        if state.withLock({ $0.waiting < settings.maxWaiting || $0.stopping }) { return }
        await withCheckedContinuation { continuation in
            let room = state.withLock { state -> Bool in
                guard state.waiting >= settings.maxWaiting, !state.stopping else { return true }
                state.roomWaiters.append(continuation)
                return false
            }
            if room { continuation.resume() }
        }
    }

    /// Finds pending messages this process does not hold yet: left by an earlier run, or by
    /// another process. Messages some process stopped sending long ago are settled first.
    public func scan() async {
        _ = await scanOutbox()
    }

    /// Scans, and returns when the first lease of another process on a chat with messages
    /// waiting runs out: then the scan may take up that chat's messages.
    private func scanOutbox() async -> Date? {
        do {
            let now = now()
            let abandoned = try await store.write {
                try $0.settleAbandoned(sendingBefore: now.addingTimeInterval(-120), at: now)
            }
            if abandoned > 0 {
                logger.notice("messages were being sent when their process stopped; they may have arrived, so they are not sent again", metadata: [
                    "count": "\(abandoned)",
                ])
                metrics.increment("vinylogue_outbox_messages_total", [("outcome", "unconfirmed")], by: Int64(abandoned))
            }
            let (messages, heldElsewhereUntil) = try await store.pendingMessages(limit: settings.maxWaiting, owner: owner, at: now) { id in
                self.state.withLock { $0.known.contains(id) }
            }
            if let heldElsewhereUntil {
                logger.debug("messages wait while another process sends to their chat", metadata: ["until": "\(heldElsewhereUntil)"])
            }
            accept(messages)
            return heldElsewhereUntil
        } catch {
            // Shutdown cancels a scan: that is no error.
            if !Task.isCancelled { logger.error("could not read the outbox", metadata: ["error": "\(error)"]) }
            return nil
        }
    }

    // MARK: Running

    /// Delivers until cancelled: scans the outbox now and every `scanInterval`, and runs the
    /// pruner now and every hour. The pump runs on its own: `stop` ends it gracefully, and
    /// cancelling this ends it at once, as a crash would.
    public func run() async {
        await withTaskCancellationHandler {
            await scanAndPrune()
        } onCancel: {
            state.withLock { state in
                state.stopping = true
                return state.pump
            }?.cancel()
        }
    }

    private func scanAndPrune() async {
        var lastPrune: Duration?
        let realTime = ElapsedClock.continuous
        while !Task.isCancelled {
            let heldElsewhereUntil = await scanOutbox()
            let elapsed = realTime.elapsed()
            if let pruner, lastPrune.map({ elapsed - $0 >= .seconds(3600) }) ?? true {
                lastPrune = elapsed
                do {
                    try await pruner.prune()
                } catch {
                    if !Task.isCancelled { logger.warning("could not prune the database", metadata: ["error": "\(error)"]) }
                }
            }
            // A chat another process holds is looked at again as soon as its lease runs out.
            let untilFree = heldElsewhereUntil.map { Duration.seconds(max(0, $0.timeIntervalSince(now()))) + .milliseconds(50) }
            await rescan.wait(for: min(settings.scanInterval, untilFree ?? settings.scanInterval), on: realTime)
        }
    }

    /// Returns once nothing is left to send.
    public func idle() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                guard state.pump == nil else {
                    state.idleWaiters.append(continuation)
                    return false
                }
                return true
            }
            if done { continuation.resume() }
        }
    }

    /// Returns true once nothing is left to send; or, when that takes longer than `limit`,
    /// stops delivery (see `stop`) and returns false: what is left stays in the outbox.
    public func idle(stoppingAfter limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool?.self) { group in
            group.addTask { await self.idle(); return true }
            group.addTask { [clock] in
                // Cancelled: idle came first.
                guard (try? await clock.sleep(limit)) != nil else { return nil }
                await self.stop()
                return false
            }
            var idle = true
            while let outcome = await group.next() {
                // The first to end decides; a stop also ends the wait for idle.
                if outcome == false { idle = false }
                group.cancelAll()
            }
            return idle
        }
    }

    /// Stops delivery: nothing new starts (messages waiting stay pending for the next start),
    /// and messages being sent get `shutdownGrace` to finish; then they are cut off. One whose
    /// bytes may have left counts as possibly sent; one its transport still held back (waiting
    /// for a connection, or not handed over yet) waits for the next start.
    public func stop() async {
        let pump = state.withLock { state in
            state.stopping = true
            return state.pump
        }
        wake.notify()
        guard let pump else { return }
        let graceOver = Task { [clock, settings] in
            guard (try? await clock.sleep(settings.shutdownGrace)) != nil else { return }
            pump.cancel()
        }
        await pump.value
        graceOver.cancel()
    }

    // MARK: The pump

    private enum Next {
        /// The lanes' first messages whose moment has come, their slots taken.
        case send([OutboxMessage])
        /// Nothing may go before this moment (nil: before something changes).
        case wait(until: Duration?)
        /// The overall limit holds every lane until this moment: no news can change that.
        case pause(until: Duration)
        case finished
    }

    /// Sends the lanes' first messages as their chats' slots come, until nothing is left.
    private func pump() async {
        let keeper = Task { await keepLeases() }
        defer { keeper.cancel() }
        // Discarding: a finished send leaves nothing behind to be collected.
        await withDiscardingTaskGroup { sends in
            while !Task.isCancelled {
                switch next() {
                case .send(let batch):
                    // Marked as sending together, in one write, right before they go.
                    for (message, claim) in await claim(batch) {
                        switch claim {
                        case .claimed: sends.addTask { await self.send(message) }
                        case .gone: complete(message, .done)
                        case .laneElsewhere: leave(message.chatID)
                        }
                    }
                case .wait(let until):
                    // What goes next waits a while: record the sends that went meanwhile.
                    if until.map({ $0 - clock.elapsed() > .seconds(1) }) ?? true { await recordSends() }
                    if let until {
                        await wake.wait(for: until - clock.elapsed(), on: clock)
                    } else {
                        await wake.wait()
                    }
                case .pause(let until):
                    try? await clock.sleep(until - clock.elapsed())
                case .finished:
                    return
                }
            }
        }
        if Task.isCancelled {
            // Cut off (shutdown after its grace, or a crash as far as delivery goes): what
            // waited stays pending for the next start.
            state.withLock { Self.forgetLanes(&$0) }
        }
        // The sends that went, and the lanes given up.
        await recordSends()
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            // A new pump may have started since this one finished: its waiters are its own.
            guard state.pump == nil else { return [] }
            defer { (state.idleWaiters, state.roomWaiters) = ([], []) }
            return state.idleWaiters + state.roomWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The messages to send now, under the flood limits.
    private func next() -> Next {
        let now = clock.elapsed()
        return state.withLock { state in
            if state.stopping {
                guard state.sending == 0 else { return .wait(until: nil) }
                // What waited stays pending for the next start.
                Self.forgetLanes(&state)
                return .finished
            }
            while let first = state.held.min, first.until <= now {
                state.held.removeMin()
                state.ready.append(first.chat)
            }
            var batch: [OutboxMessage] = []
            while let chat = state.ready.first {
                guard let lane = state.lanes[chat], !lane.sending, let message = lane.queue.first else {
                    state.ready.removeFirst()
                    continue
                }
                let chatSlot = limiter.earliest(in: chat, now: now)
                if chatSlot > now {
                    state.ready.removeFirst()
                    state.held.insert(Held(until: chatSlot, chat: chat))
                    continue
                }
                if limiter.earliestOverall(now: now) > now {
                    guard batch.isEmpty else { return .send(batch) }
                    // A flood goes out in groups, each one wake-up and one write.
                    return .pause(until: limiter.earliestOverall(now: now, count: min(state.ready.count, settings.sendGroup)))
                }
                state.ready.removeFirst()
                limiter.commit(in: chat, now: now)
                state.lanes[chat]?.sending = true
                state.sending += 1
                batch.append(message)
            }
            if !batch.isEmpty { return .send(batch) }
            if state.lanes.isEmpty, state.sending == 0 {
                // Done: the next `accept` starts a new pump.
                state.pump = nil
                return .finished
            }
            return .wait(until: state.held.min?.until)
        }
    }

    /// Forgets every lane, ending the pump: their messages stay pending, for another process
    /// or the next start, and their leases are given up with the next write.
    private static func forgetLanes(_ state: inout State) {
        for (chat, lane) in state.lanes {
            for message in lane.queue { state.known.remove(message.id) }
            if lane.leaseUntil != nil { state.unreleased.insert(chat) }
        }
        (state.lanes, state.ready, state.held, state.waiting, state.pump) = ([:], [], Heap(), 0, nil)
    }

    /// What became of a lane's first message.
    private enum Step {
        /// Settled one way or another (or another process has it): on to the next.
        case done
        /// Not sent: try the same message again after this wait.
        case again(Duration)
    }

    /// Sends a claimed message, and settles its lane by what became of it.
    private func send(_ message: OutboxMessage) async {
        let failures = state.withLock { $0.lanes[Self.lane(of: message, in: $0)]?.failures ?? 0 }
        let step: Step
        do {
            step = await send(message, request: try await prepared(message), failures: failures)
        } catch {
            let logger = logger(for: message)
            let wait = settings.backoff.delay(beforeRetry: failures + 1)
            await returnToPending(message, for: wait, logger: logger)
            logger.error("could not read a message's picture from the outbox; it waits", metadata: ["error": "\(error)"])
            step = .again(wait)
        }
        complete(message, step)
    }

    /// Moves a lane on once its first message is settled, or holds it for another try.
    private func complete(_ message: OutboxMessage, _ step: Step) {
        let now = clock.elapsed()
        let room = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let chat = Self.lane(of: message, in: state)
            state.sending -= 1
            // Taken out while it changes, so that its queue is not copied.
            guard var lane = state.lanes.removeValue(forKey: chat) else { return [] }
            lane.sending = false
            switch step {
            case .done:
                lane.failures = 0
                if lane.queue.first?.id == message.id {
                    lane.queue.removeFirst()
                    state.waiting -= 1
                }
                state.known.remove(message.id)
                if !lane.queue.isEmpty {
                    state.lanes[chat] = lane
                    state.ready.append(chat)
                } else if lane.leaseUntil != nil {
                    state.unreleased.insert(chat)
                }
            case .again(let wait):
                lane.failures += 1
                state.lanes[chat] = lane
                state.held.insert(Held(until: now + wait, chat: chat))
            }
            guard state.waiting < settings.maxWaiting else { return [] }
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        for waiter in room { waiter.resume() }
        wake.notify()
    }

    /// Lets go of a lane whose chat another process sends to: its messages are that process's
    /// (they stay pending), and a scan takes them up again once its lease runs out.
    private func leave(_ chat: Int64) {
        let room = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.sending -= 1
            guard let lane = state.lanes.removeValue(forKey: chat) else { return [] }
            for message in lane.queue { state.known.remove(message.id) }
            state.waiting -= lane.queue.count
            guard state.waiting < settings.maxWaiting else { return [] }
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        logger.debug("another process sends this chat's messages; they wait for it", metadata: ["chat": "\(chat)"])
        for waiter in room { waiter.resume() }
        rescan.notify()
        wake.notify()
    }

    /// Drops every message of a lane but the first (which its caller settles).
    private func clearLane(of message: OutboxMessage) {
        state.withLock { state in
            let chat = Self.lane(of: message, in: state)
            guard var lane = state.lanes[chat], let first = lane.queue.popFirst() else { return }
            for message in lane.queue { state.known.remove(message.id) }
            state.waiting -= lane.queue.count
            lane.queue = [first]
            state.lanes[chat] = lane
        }
    }

    // MARK: One message

    /// What `claim` made of a message.
    private enum Claim {
        /// Marked as sending: this process sends it now.
        case claimed
        /// Not this process's to send: another process took it, or it expired and is dropped.
        case gone
        /// Another process holds the chat's lane: it sends the chat's messages.
        case laneElsewhere
    }

    /// Marks messages as sending, in one write that also records the sends that went before,
    /// gives up the lanes that emptied, and takes (or renews) the leases of their chats where
    /// this process does not hold one far from its end; at the moment they go. A message past
    /// its lifetime is dropped instead. One the write could not mark waits for another try.
    private func claim(_ batch: [OutboxMessage]) async -> [(OutboxMessage, Claim)] {
        let now = now()
        let expired = Set(batch.filter { now >= $0.expiresAt }.map(\.id))
        let unrecorded = takeUnrecorded()
        let lease = settings.laneLease
        let (released, leasing) = state.withLock { state in
            defer { state.unreleased = [] }
            // A lane that holds its lease for a while yet sends without a word to the database about it.
            let leasing = Set(batch.map(\.chatID).filter { chat in
                state.lanes[chat]?.leaseUntil.map { .seconds($0.timeIntervalSince(now)) < lease / 2 } ?? true
            })
            return (state.unreleased, leasing)
        }
        let until = now.addingTimeInterval(lease.seconds)
        do {
            let (claims, held) = try await store.write { [owner] transaction in
                try transaction.recordSent(unrecorded, at: now)
                // Given up first: a chat whose lane emptied and filled again is taken anew.
                try transaction.releaseLanes(released, owner: owner)
                var held: [Int64: Bool] = [:]
                for chat in leasing { held[chat] = try transaction.takeLane(chat, owner: owner, until: until, at: now) }
                let claims = try batch.map { message -> Claim in
                    if expired.contains(message.id) {
                        try transaction.settle(message.id, as: .dropped, note: "expired unsent", ifPending: true, at: now)
                        return .gone
                    }
                    guard held[message.chatID] ?? true else { return .laneElsewhere }
                    return try transaction.claimForSending(message.id, owner: owner, at: now) ? .claimed : .gone
                }
                return (claims, held)
            }
            state.withLock { state in
                for (chat, taken) in held where taken { state.lanes[chat]?.leaseUntil = until }
            }
            for message in batch where expired.contains(message.id) {
                metrics.increment("vinylogue_outbox_messages_total", [("outcome", OutboxMessage.State.dropped.rawValue)])
                logger.notice("a message waited too long and is dropped unsent", metadata: [
                    "chat": "\(message.chatID)", "message": "\(message.id)", "kind": "\(message.kind.rawValue)",
                ])
            }
            return Array(zip(batch, claims))
        } catch {
            state.withLock { state in
                state.unrecorded.insert(contentsOf: unrecorded, at: 0)
                state.unreleased.formUnion(released)
            }
            logger.error("could not mark messages as sending; they wait", metadata: ["error": "\(error)"])
            for message in batch {
                let failures = state.withLock { $0.lanes[Self.lane(of: message, in: $0)]?.failures ?? 0 }
                complete(message, .again(settings.backoff.delay(beforeRetry: failures + 1)))
            }
            return []
        }
    }

    /// The request as it goes now: an upload of a collage that has a `file_id` by now is sent
    /// by that id instead; an upload read back from the outbox gets its bytes.
    private func prepared(_ message: OutboxMessage) async throws -> TelegramRequest<MessageReceipt> {
        let uploads = message.uploadInRow || !message.request.attachments.isEmpty
        if uploads, let key = message.collage, let photos, let fileID = await photos.fileID(for: key) {
            return message.request.withPhoto(.fileID(fileID))
        }
        guard message.uploadInRow, let photo = try await store.upload(of: message) else { return message.request }
        return message.request.withPhoto(.upload(photo))
    }

    /// The log of one message, tagged with it: built when a line is written, not per message.
    private func logger(for message: OutboxMessage) -> Logger {
        var logger = logger
        logger[metadataKey: "chat"] = "\(message.chatID)"
        logger[metadataKey: "message"] = "\(message.id)"
        return logger
    }

    private func send(_ message: OutboxMessage, request: TelegramRequest<MessageReceipt>, failures: Int) async -> Step {
        defer { limiter.arrived(in: message.chatID, now: clock.elapsed()) }
        // Whether the request's bytes may have left, should it end without an answer.
        let progress = SendProgress()
        do {
            let receipt = try await SendProgress.$current.withValue(progress) { try await sendMessage(request) }
            if let sent = receipt.message, sent.chatID != message.chatID, request.chatID == message.chatID {
                // The group became a supergroup, and the client sent this on there: so goes the rest.
                limiter.commit(in: sent.chatID, now: clock.elapsed())
                followMigration(from: message.chatID, to: sent.chatID)
            }
            if let key = message.collage, let sent = receipt.message {
                await photos?.sent(key, as: sent, uploaded: !request.attachments.isEmpty)
            }
            // Recorded with the next write: until then, a crash leaves it counted as possibly
            // sent, which is as good, since it is never sent again either way.
            metrics.increment("vinylogue_outbox_messages_total", [("outcome", OutboxMessage.State.sent.rawValue)])
            state.withLock { $0.unrecorded.append((message.id, receipt.message?.messageID)) }
            return .done
        } catch {
            return await failed(
                message, request: request, error: error, verdict: error.sendVerdict(given: progress), failures: failures, logger: logger(for: message)
            )
        }
    }

    private func failed(
        _ message: OutboxMessage, request: TelegramRequest<MessageReceipt>, error: any Error, verdict: SendVerdict, failures: Int, logger: Logger
    ) async -> Step {
        switch verdict {
        case .notSent(let retryAfter):
            var wait = settings.backoff.delay(beforeRetry: failures + 1)
            // Telegram said how long this chat must wait: sooner only earns another 429.
            if let retryAfter { wait = .seconds(retryAfter) }
            await returnToPending(message, for: wait, logger: logger)
            metrics.increment("vinylogue_retries_total", [("api", "telegram")])
            logger.notice("message not sent; it waits and goes again", metadata: ["error": "\(error)", "wait": "\(wait)"])
            return .again(wait)
        case .mayHaveBeenSent where request.editsMessage:
            // Made again, an edit that did arrive changes nothing.
            let wait = settings.backoff.delay(beforeRetry: failures + 1)
            await returnToPending(message, for: wait, logger: logger)
            logger.notice("an edit may have arrived; it goes again, which changes nothing if it did", metadata: ["error": "\(error)", "wait": "\(wait)"])
            return .again(wait)
        case .mayHaveBeenSent:
            logger.warning("a message may have arrived; it is not sent again", metadata: ["error": "\(error)"])
            await settle(message, .unconfirmed, note: "\(error)", logger: logger)
            return .done
        case .refused(.unauthorized), .refused(.notFound):
            // A token or API URL Telegram refuses may be fixed and the bot restarted: keep the message.
            let wait = settings.backoff.delay(beforeRetry: failures + 1)
            await returnToPending(message, for: wait, logger: logger)
            logger.error("Telegram refused the bot token while sending; the message waits", metadata: ["error": "\(error)"])
            return .again(wait)
        case .refused(let refusal):
            return await refused(message, request: request, refusal: refusal, failures: failures, logger: logger)
        }
    }

    private func refused(
        _ message: OutboxMessage, request: TelegramRequest<MessageReceipt>, refusal: TelegramError, failures: Int, logger: Logger
    ) async -> Step {
        if refusal.meansNotModified {
            logger.debug("the message already shows that")
            await settle(message, .sent, note: "not modified", logger: logger)
            return .done
        }
        if refusal.meansChatIsGone {
            logger.notice("the bot can no longer post here; the chat is marked inactive and its queue dropped", metadata: ["reason": "\(refusal)"])
            clearLane(of: message)
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
                return await send(message, request: request.withPhoto(.upload(upload)), failures: failures)
            }
        }
        if let text = request.withoutPhoto {
            logger.notice("Telegram refused a picture; sending its caption alone instead", metadata: ["reason": "\(refusal)"])
            return await send(message, request: text, failures: failures)
        }
        logger.warning("Telegram refused a message; it is dropped", metadata: ["method": "\(request.method)", "reason": "\(refusal)"])
        await settle(message, .dropped, note: "\(refusal)", logger: logger)
        return .done
    }

    // MARK: Records

    private func takeUnrecorded() -> [(id: Int64, messageID: Int64?)] {
        state.withLock { state in
            defer { state.unrecorded = [] }
            return state.unrecorded
        }
    }

    /// Records the sends that went since the last write.
    private func recordSends() async {
        let unrecorded = takeUnrecorded()
        let released = state.withLock { state in
            defer { state.unreleased = [] }
            return state.unreleased
        }
        guard !unrecorded.isEmpty || !released.isEmpty else { return }
        do {
            try await store.write { [now, owner] transaction in
                try transaction.recordSent(unrecorded, at: now())
                try transaction.releaseLanes(released, owner: owner)
            }
        } catch {
            // Their leases run out instead.
            logger.error("could not record messages as sent; they count as possibly sent", metadata: ["error": "\(error)"])
        }
    }

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

    /// Puts a message that did not leave back, to go again after `wait`: its chat stays this
    /// process's meanwhile, the lease renewed to cover the wait (a flood wait may be long).
    private func returnToPending(_ message: OutboxMessage, for wait: Duration, logger: Logger) async {
        let chat = message.chatID
        let held = state.withLock { $0.lanes[chat]?.leaseUntil }
        // Till the wait is over, and a while more to claim the message again (which renews it):
        // a process that takes the chat over after a crash keeps Telegram's wait too.
        let until = now().addingTimeInterval((wait + settings.laneLease / 2).seconds)
        do {
            let kept = try await store.write { [owner] transaction in
                try transaction.returnToPending(message.id)
                return try held != nil && transaction.renewLane(chat, owner: owner, until: until)
            }
            // Unless the lane was given up and taken anew meanwhile.
            state.withLock { state in
                if held != nil, state.lanes[chat]?.leaseUntil == held { state.lanes[chat]?.leaseUntil = kept ? until : nil }
            }
        } catch {
            logger.error("could not return an unsent message to the outbox", metadata: ["error": "\(error)"])
        }
    }

    /// Renews, every quarter of a lease in real time, the leases that are within half a lease
    /// of their end: a lane whose send takes long (a slow upload, a timeout) keeps its chat.
    private func keepLeases() async {
        let realTime = ElapsedClock.continuous
        let lease = settings.laneLease
        while (try? await realTime.sleep(lease / 4)) != nil {
            let now = now()
            let renewing = state.withLock { state in
                state.lanes.compactMap { chat, lane in
                    lane.leaseUntil.flatMap { .seconds($0.timeIntervalSince(now)) < lease / 2 ? (chat, $0) : nil }
                }
            }
            guard !renewing.isEmpty else { continue }
            let until = now.addingTimeInterval(lease.seconds)
            do {
                let kept = try await store.write { [owner] transaction in
                    try renewing.map { try transaction.renewLane($0.0, owner: owner, until: until) }
                }
                state.withLock { state in
                    for ((chat, held), kept) in zip(renewing, kept) where state.lanes[chat]?.leaseUntil == held {
                        state.lanes[chat]?.leaseUntil = kept ? until : nil
                    }
                }
            } catch {
                logger.warning("could not renew the leases of chats being sent to", metadata: ["error": "\(error)"])
            }
        }
    }
}
