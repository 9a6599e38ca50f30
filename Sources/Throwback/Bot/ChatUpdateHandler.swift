import Foundation
import Logging
import Networking
import Telegram

/// Turns one Telegram update into at most one answer, in two steps. On arrival, in the order
/// received, it works out what the update is and lets the rate limit judge it, so that a
/// flood is judged as it comes. Then, in its chat's turn, it answers: commands as a reply to
/// the command message, in its forum topic; presses of ◀ / ▶ by editing the throwback in
/// place; in groups, anything that is not a `/command` is ignored silently.
///
/// Handling an update ends in one transaction that records it as handled, commits what the
/// command changed, and enqueues its answer in the outbox, which sends it. An update whose
/// handling is cut short by shutdown commits nothing and is handled again after the restart.
///
/// A throwback with albums is answered as a cover collage with the chart as its caption,
/// where the chat has covers on; whenever no picture can be had, or Telegram refuses it, in text.
///
/// Arrival, answers to messages and button presses each have a file of their own.
public final class ChatUpdateHandler: Sendable {
    /// Telegram's service account that forwards a linked channel's posts into its group.
    static let channelForwarder: Int64 = 777_000
    /// Telegram refuses to answer a button press after about 15 seconds.
    static let pressDeadline = Duration.seconds(12)

    /// An update, judged on arrival.
    public struct Arrival: Sendable {
        public var update: Update
        /// The queue it waits in: its chat, or for a press on no message, its sender.
        public var chat: Int64
        var kind: Kind
        var arrivedAt: Duration
        /// The language the answer is written in.
        var language: Language = .english

        /// Boxed: a message's case is half a kilobyte, and every async frame that holds an
        /// arrival (the queue's, each worker's) would otherwise keep room for it.
        indirect enum Kind: Sendable {
            /// Nothing for the bot to do.
            case ignored
            /// A group became a supergroup.
            case migration(to: Int64)
            /// The bot was added to the chat or removed from it.
            case membership(ChatMemberUpdated)
            /// A message for the bot: a command, or text a private chat gets a hint for.
            case message(Message, ParsedMessage, CommandInvocation, CommandRouter.Admission)
            /// A button press.
            case press(CallbackQuery, CommandRouter.Admission)
            /// A keystroke of `@bot …` in some chat.
            case inline(InlineQuery)
            /// An inline result that someone sent.
            case chosen(ChosenInlineResult)
        }
    }

    let router: CommandRouter
    let throwback: ThrowbackCommand
    let navigation: YearNavigation
    let store: BotStore
    let outbox: OutboxDeliverer
    /// For what is not a chat message, which does not go through the outbox: answers to
    /// button presses.
    let telegram: any TelegramClient
    /// Nil: every throwback is text.
    let photos: CollagePhotos?
    let lifetimes: OutboxLifetimes
    let inline: InlineThrowbacks
    /// Wakes the weekly post when a chat's post is on again.
    private let scheduleChanges: ScheduleChanges?
    let now: @Sendable () -> Date
    let clock: ElapsedClock
    /// "typing…" while a throwback's first fetch is slow.
    let chatAction: ChatActionIndicator
    private let logger: Logger

    public init(
        telegram: any TelegramClient, router: CommandRouter, throwback: ThrowbackCommand, navigation: YearNavigation,
        store: BotStore, outbox: OutboxDeliverer, photos: CollagePhotos? = nil, lifetimes: OutboxLifetimes = OutboxLifetimes(),
        metrics: BotMetrics = .none, inlineCollageChat: Int64? = nil, scheduleChanges: ScheduleChanges? = nil,
        now: @escaping @Sendable () -> Date = Date.init, clock: any Clock<Duration> = ContinuousClock(),
        chatActionClock: any Clock<Duration> = ContinuousClock(), logger: Logger = Logger(label: "bot")
    ) {
        self.scheduleChanges = scheduleChanges
        self.chatAction = ChatActionIndicator(telegram: telegram, clock: ElapsedClock(chatActionClock))
        self.inline = InlineThrowbacks(
            router: router, throwback: throwback, store: store, photos: photos, telegram: telegram, collageChat: inlineCollageChat,
            metrics: metrics, clock: clock
        )
        self.telegram = telegram
        self.photos = photos
        self.router = router
        self.throwback = throwback
        self.navigation = navigation
        self.store = store
        self.outbox = outbox
        self.lifetimes = lifetimes
        self.now = now
        self.clock = ElapsedClock(clock)
        self.logger = logger
    }

    // MARK: Handling

    /// Answers an update in its chat's turn; logs one line per command.
    ///
    /// Each kind is handled in a function of its own, kept apart (`@inline(never)`): an async
    /// function's frame holds whatever any of its paths keeps across a wait, and each of the
    /// sixteen workers keeps the largest frame it ever needed. With every kind handled here,
    /// the frame was 15 KiB, and a burst's workers held 240 KiB of it.
    public func handle(_ arrival: Arrival) async {
        let started = clock.elapsed()
        let log = UpdateLog(base: logger, update: arrival.update.updateID, chat: arrival.chat)
        switch arrival.kind {
        case .ignored:
            await commit(arrival.update, log: log)
        case .migration(let newID):
            await migrate(arrival, to: newID, log: log)
        case .membership(let change):
            await membership(change, arrival: arrival, log: log)
        case .message:
            await answerMessage(arrival, log: log, since: started)
        case .press:
            await answerPress(arrival, log: log, since: started)
        case .chosen(let chosen):
            await noteChosen(chosen, arrival: arrival, log: log)
        case .inline(let query):
            await answerInline(query, arrival: arrival, log: log)
        }
    }

    @inline(never)
    private func migrate(_ arrival: Arrival, to newID: Int64, log: UpdateLog) async {
        let moved = await commit(arrival.update, log: log) { transaction in
            try transaction.migrateChat(from: arrival.chat, to: newID)
            return []
        }
        if moved {
            outbox.followMigration(from: arrival.chat, to: newID)
            log.logger.notice("group became a supergroup; its roster, settings and waiting messages moved", metadata: ["to": "\(newID)"])
        }
    }

    // A message and a press take their payload out of the arrival here, not in `handle`,
    // whose frame would otherwise hold it.
    @inline(never)
    private func answerMessage(_ arrival: Arrival, log: UpdateLog, since started: Duration) async {
        guard case .message(let message, let parsed, var context, let admission) = arrival.kind else { return }
        var log = log
        if case .command(let spec, _) = parsed { log.command = spec.name }
        // Read again in the chat's turn: a `language` just before it in the queue has changed it.
        context.language = await language(of: message.chat, sender: message.from)
        let kind: CommandUpdateKind = arrival.update.channelPost == nil ? .message : .channelPost
        // Only a throwback's first fetch is slow enough to show that an answer is coming.
        var progress: UInt64?
        if case .command(throwback.spec, _) = parsed, admission == .admitted {
            let chat = message.chat.id
            progress = chatAction.begin(in: chat, topic: message.topicID, log: log) {
                await self.willSendCollage(in: chat) ? .uploadPhoto : .typing
            }
        }
        await answer(message, parsed, context, admission, update: arrival.update, log: log, kind: kind, since: started, progress: progress)
    }

    @inline(never)
    private func answerPress(_ arrival: Arrival, log: UpdateLog, since started: Duration) async {
        guard case .press(let query, let admission) = arrival.kind else { return }
        var (log, arrival) = (log, arrival)
        log.command = throwback.spec.name
        if let chat = query.message?.chat { arrival.language = await language(of: chat, sender: query.from) }
        if let ending = await press(query, admission, arrival: arrival, log: log) {
            log.handled(ending, kind: .callbackQuery, after: clock.elapsed() - started)
        }
    }

    @inline(never)
    private func noteChosen(_ chosen: ChosenInlineResult, arrival: Arrival, log: UpdateLog) async {
        var log = log
        log.command = "inline"
        await inline.sent(chosen, logger: log.logger)
        await commit(arrival.update, log: log)
    }

    @inline(never)
    private func answerInline(_ query: InlineQuery, arrival: Arrival, log: UpdateLog) async {
        var log = log
        log.command = "inline"
        let buttons = await inline.answer(query, arrivedAt: arrival.arrivedAt, logger: log.logger)
        await commit(arrival.update, log: log) { transaction in
            try transaction.saveButtonNames(buttons, at: self.now())
            return []
        }
    }

    /// The bot was removed from the chat (or blocked): it stops posting there, and what waits
    /// for the chat is dropped. It is back: it posts there again, with the roster and settings
    /// the chat had, its weekly post too if that was on.
    @inline(never)
    private func membership(_ change: ChatMemberUpdated, arrival: Arrival, log: UpdateLog) async {
        let (chat, now, inChat) = (arrival.chat, now(), change.newChatMember.isInChat)
        let committed = await commit(arrival.update, log: log) { transaction in
            if inChat {
                try transaction.markActive(chat, at: now)
            } else {
                try transaction.markInactive(chat)
                _ = try transaction.dropPending(chat: chat, note: "bot removed", at: now)
            }
            return []
        }
        guard committed else { return }
        log.logger.notice(inChat ? "the bot is in this chat; it posts here" : "the bot was removed or blocked here; it stops posting", metadata: [
            "status": "\(change.newChatMember.status)",
        ])
        if inChat { scheduleChanges?.notify() }
    }

    /// Records the update as handled, with what `body` changes and the messages it returns
    /// enqueued, in one transaction; then hands the messages to the deliverer. Nothing is
    /// recorded once shutdown has cancelled the update: it is handled again after the
    /// restart. Returns whether it committed.
    @discardableResult
    func commit(_ update: Update, log: UpdateLog, _ body: @escaping @Sendable (StoreTransaction) throws -> [OutboxMessage] = { _ in [] }) async -> Bool {
        guard !Task.isCancelled else {
            log.logger.notice("update left for the next start")
            return false
        }
        let outbox = outbox
        // A burst waits at Telegram, not in memory, once enough messages wait here.
        await outbox.waitForRoom()
        let now = now()
        do {
            // Not synced: nobody sees any of it before the outbox's synced "sending" mark of
            // its replies; lost to a power cut, the update is handled again from the journal.
            let enqueued = try await store.write(synced: false) { transaction in
                try transaction.markHandled(update, at: now)
                var messages = try body(transaction)
                // A flood's echo: a chat whose replies pile up gets no more of them.
                messages.removeAll { $0.kind == .reply && !outbox.hasRoomForReplies(in: $0.chatID) }
                return try transaction.enqueue(messages, at: now)
            }
            outbox.accept(enqueued)
            return true
        } catch is UpdateJournal.HandledElsewhere {
            log.logger.notice("another replica handled this update already; this answer is dropped")
            return false
        } catch {
            log.logger.error("could not record a handled update", metadata: ["error": "\(error)"])
            return false
        }
    }
}
