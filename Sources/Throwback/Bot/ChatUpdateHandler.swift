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
public struct ChatUpdateHandler: Sendable {
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

        enum Kind: Sendable {
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

    private let router: CommandRouter
    private let throwback: ThrowbackCommand
    private let navigation: YearNavigation
    private let store: BotStore
    private let outbox: OutboxDeliverer
    /// For what is not a chat message, which does not go through the outbox: answers to
    /// button presses.
    private let telegram: any TelegramClient
    /// Nil: every throwback is text.
    private let photos: CollagePhotos?
    private let lifetimes: OutboxLifetimes
    private let inline: InlineThrowbacks
    /// Wakes the weekly post when a chat's post is on again.
    private let scheduleChanges: ScheduleChanges?
    private let now: @Sendable () -> Date
    private let clock: ElapsedClock
    /// "typing…" while a throwback's first fetch is slow.
    private let chatAction: ChatActionIndicator
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

    // MARK: Arrival

    /// What an update is, with the rate limit's verdict: called in the order updates arrive.
    public func arrive(_ update: Update) async -> Arrival {
        let arrivedAt = clock.elapsed()
        func arrival(_ chat: Int64?, _ kind: Arrival.Kind) -> Arrival {
            Arrival(update: update, chat: chat ?? 0, kind: kind, arrivedAt: arrivedAt)
        }
        if let message = update.message, let newID = message.migrateToChatID {
            return arrival(message.chat.id, .migration(to: newID))
        }
        if let change = update.myChatMember {
            return arrival(change.chat.id, .membership(change))
        }
        if let message = update.message, let text = message.text, let context = Self.invocation(for: message) {
            let parsed = router.parse(text, context: context)
            guard let admission = await router.admission(for: parsed, context: context) else { return arrival(message.chat.id, .ignored) }
            return arrival(message.chat.id, .message(message, parsed, context, admission))
        }
        if let post = update.channelPost, let text = post.text {
            // Only a channel's admins can post in it, on its behalf.
            let context = CommandInvocation(
                chatID: post.chat.id, isPrivateChat: false, userID: post.chat.id, senderChatID: post.chat.id, messageID: post.messageID
            )
            let parsed = router.parse(text, context: context)
            // In a channel the bot answers `id` alone: whatever it posts there, every subscriber reads.
            guard case .command(let spec, _) = parsed, spec.name == IDCommand.name,
                  let admission = await router.admission(for: parsed, context: context)
            else { return arrival(post.chat.id, .ignored) }
            return arrival(post.chat.id, .message(post, parsed, context, admission))
        }
        if let query = update.callbackQuery {
            let chat = query.message?.chat
            let context = CommandInvocation(chatID: chat?.id ?? query.from.id, isPrivateChat: chat?.isPrivate ?? true, userID: query.from.id)
            return arrival(context.chatID, .press(query, await router.admit(context)))
        }
        if let query = update.inlineQuery {
            // Judged once its asker stops typing, not per keystroke; queued with their
            // private chat, so that their keystrokes are answered in order.
            inline.arrived(query)
            return arrival(query.from.id, .inline(query))
        }
        if let chosen = update.chosenInlineResult {
            return arrival(chosen.from.id, .chosen(chosen))
        }
        return arrival(update.chatID, .ignored)
    }

    /// Who sent a message, as a command sees it; nil for senders that never command the bot:
    /// other bots, channels, and a linked channel's automatic forwards.
    static func invocation(for message: Message) -> CommandInvocation? {
        guard let sender = message.from, message.isAutomaticForward != true, sender.id != channelForwarder else { return nil }
        let anonymousAdmin = message.isFromAnonymousAdmin
        guard !sender.isBot || anonymousAdmin else { return nil }
        return CommandInvocation(
            chatID: message.chat.id, isPrivateChat: message.chat.isPrivate, userID: sender.id,
            senderChatID: anonymousAdmin ? message.chat.id : nil, topicID: message.topicID, messageID: message.messageID
        )
    }

    // MARK: Handling

    /// Answers an update in its chat's turn; logs one line per command.
    public func handle(_ arrival: Arrival) async {
        let started = clock.elapsed()
        var log = UpdateLog(base: logger, update: arrival.update.updateID, chat: arrival.chat)
        switch arrival.kind {
        case .ignored:
            await commit(arrival.update, log: log)
        case .migration(let newID):
            let moved = await commit(arrival.update, log: log) { transaction in
                try transaction.migrateChat(from: arrival.chat, to: newID)
                return []
            }
            if moved {
                outbox.followMigration(from: arrival.chat, to: newID)
                log.logger.notice("group became a supergroup; its roster, settings and waiting messages moved", metadata: ["to": "\(newID)"])
            }
        case .membership(let change):
            await membership(change, arrival: arrival, log: log)
        case let .message(message, parsed, context, admission):
            if case .command(let spec, _) = parsed { log.command = spec.name }
            let kind: CommandUpdateKind = arrival.update.channelPost == nil ? .message : .channelPost
            // Only a throwback's first fetch is slow enough to show that an answer is coming.
            var progress: UInt64?
            if case .command(throwback.spec, _) = parsed, admission == .admitted {
                let chat = message.chat.id
                progress = chatAction.begin(in: chat, topic: message.topicID, logger: log.logger) {
                    await willSendCollage(in: chat) ? .uploadPhoto : .typing
                }
            }
            await answer(message, parsed, context, admission, update: arrival.update, log: log, kind: kind, since: started, progress: progress)
        case let .press(query, admission):
            log.command = throwback.spec.name
            if let ending = await press(query, admission, arrival: arrival, log: log) {
                log.handled(ending, kind: .callbackQuery, after: clock.elapsed() - started)
            }
        case .chosen(let chosen):
            log.command = "inline"
            await inline.sent(chosen, logger: log.logger)
            await commit(arrival.update, log: log)
        case .inline(let query):
            log.command = "inline"
            let buttons = await inline.answer(query, arrivedAt: arrival.arrivedAt, logger: log.logger)
            await commit(arrival.update, log: log) { transaction in
                try transaction.saveButtonNames(buttons, at: now())
                return []
            }
        }
    }

    /// The bot was removed from the chat (or blocked): it stops posting there, and what waits
    /// for the chat is dropped. It is back: it posts there again, with the roster and settings
    /// the chat had, its weekly post too if that was on.
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

    /// Answers a message; logs its command's line once the answer is queued. The chat action
    /// `progress` shows ends once the answer is ready, before it waits for room in the outbox:
    /// a warm answer waiting there is no slow fetch.
    private func answer(
        _ message: Message, _ parsed: ParsedMessage, _ context: CommandInvocation, _ admission: CommandRouter.Admission,
        update: Update, log: UpdateLog, kind: CommandUpdateKind, since started: Duration, progress: UInt64? = nil
    ) async {
        let chatAction = chatAction
        func ready() { if let progress { chatAction.end(progress) } }
        defer { ready() }
        let routed = await router.result(for: parsed, context: context, admission: admission)
        func queued(_ committed: Bool, _ ending: CommandEnding? = nil) {
            guard let outcome = routed.outcome, let ending = ended(ending ?? CommandEnding(outcome.result), committed: committed) else { return }
            log.handled(ending, kind: kind, after: clock.elapsed() - started)
        }
        switch routed.result {
        case nil, .reply(.silence)?:
            ready()
            queued(await commit(update, log: log))
        case .reply(let reply)?:
            let (answer, buttons) = await answer(reply, to: message)
            ready()
            queued(await commit(update, log: log) { transaction in
                try transaction.saveButtonNames(buttons, at: now())
                return answer
            })
        case let .change(change, then)?:
            ready()
            let committed = await commit(update, log: log) { transaction in
                try change(transaction).rendered(with: .telegram).map { [text($0, replyingTo: message)] } ?? []
            }
            // What the change could not save gets an apology, and the update counts as handled.
            if !committed, !Task.isCancelled {
                queued(await commit(update, log: log) { _ in [text(StorageFailure.message, replyingTo: message)] }, .failed)
            } else if committed {
                queued(true)
                await then?()
            }
        }
    }

    /// How a command ended once its update was to be recorded: as `ending` if it was, as a
    /// failure if storage failed, nil if shutdown left it for the next start.
    private func ended(_ ending: CommandEnding, committed: Bool) -> CommandEnding? {
        committed ? ending : Task.isCancelled ? nil : .failed
    }

    /// A reply to a message: a throwback as its collage where there is one, else text.
    private func answer(_ reply: BotReply, to message: Message) async -> ([OutboxMessage], YearNavigation.Buttons) {
        let buttons = YearNavigation.buttons(for: reply)
        let chat = message.chat.id
        func text(_ html: String) -> TelegramRequest<SentMessage> {
            .sendMessage(chatID: chat, html: html, replyTo: message.messageID, topic: message.topicID, keyboard: buttons.keyboard)
        }
        if case .throwback(.chart(let summary)) = reply, let photo = await photo(of: summary, in: chat) {
            let caption = CollagePhotos.captionFormatter.format(summary)
            let request = TelegramRequest<SentMessage>.sendPhoto(
                chatID: chat, photo: photo.source, captionHTML: caption, replyTo: message.messageID, topic: message.topicID,
                keyboard: buttons.keyboard
            )
            // Should Telegram refuse the picture, the outbox sends the caption alone.
            return ([outgoing(request, in: chat, collage: photo.reusableKey)], buttons)
        }
        return ([outgoing(text(reply.rendered(with: .telegram) ?? ""), in: chat)], buttons)
    }

    private func text(_ html: String, replyingTo message: Message) -> OutboxMessage {
        outgoing(
            TelegramRequest<SentMessage>.sendMessage(chatID: message.chat.id, html: html, replyTo: message.messageID, topic: message.topicID),
            in: message.chat.id
        )
    }

    /// Handles a ◀ / ▶ press, on a chat message or on one sent in inline mode. The press is
    /// answered before any Last.fm call, so the client's spinner stops at once; a refusal
    /// shows as a toast, later trouble as a log line.
    private func press(_ query: CallbackQuery, _ admission: CommandRouter.Admission, arrival: Arrival, log: UpdateLog) async -> CommandEnding? {
        let deadline = arrival.arrivedAt + Self.pressDeadline
        func done(_ ending: CommandEnding, _ body: @escaping @Sendable (StoreTransaction) throws -> [OutboxMessage] = { _ in [] }) async -> CommandEnding? {
            ended(ending, committed: await commit(arrival.update, log: log, body))
        }
        guard case .admitted = admission else {
            if case .refused(let reply) = admission, let text = reply.rendered(with: .plain) {
                await acknowledge(query, text, by: deadline, log: log)
            }
            return await done(.refused(by: router.admissionName))
        }
        guard let target = await navigation.target(from: query.data) else {
            await acknowledge(query, "That button doesn’t work any more. Send a new throwback.", by: deadline, log: log)
            return await done(.expired)
        }
        let message = query.message.flatMap { $0.isInaccessible ? nil : $0 }
        guard message != nil || query.inlineMessageID != nil else {
            await acknowledge(query, "That message is too old to change. Send a new throwback.", by: deadline, log: log)
            return await done(.expired)
        }
        // An inline message is in a chat the bot may not know: the presser's settings apply.
        let chat = message?.chat.id ?? query.from.id
        var invocation = CommandInvocation(chatID: chat, isPrivateChat: message?.chat.isPrivate ?? true, userID: query.from.id)
        invocation.lastFMUser = target.user
        invocation.yearsAgo = target.yearsAgo
        if case .failure(let refusal) = await router.authorize(throwback, invocation) {
            await acknowledge(query, refusal.reply.rendered(with: .plain), by: deadline, log: log)
            return await done(.refused(by: refusal.guardName))
        }
        await acknowledge(query, nil, by: deadline, log: log)
        let minimum = (try? await store.settings(for: chat).minimumPlayCount) ?? 1
        let reply = await throwback.throwback(user: target.user, yearsAgo: target.yearsAgo, minimumPlayCount: minimum)
        guard case .throwback = reply else {
            log.logger.notice("a year button could not be answered", metadata: ["reason": "\(reply.rendered(with: .plain) ?? "")"])
            return await done(.failed)
        }
        guard let message else {
            let buttons = YearNavigation.buttons(for: reply)
            await inline.edit(query.inlineMessageID ?? "", to: reply, keyboard: buttons.keyboard, logger: log.logger)
            return await done(.answered) { transaction in
                try transaction.saveButtonNames(buttons, at: now())
                return []
            }
        }
        let (edit, buttons) = await edit(message, to: reply)
        return await done(.answered) { transaction in
            try transaction.saveButtonNames(buttons, at: now())
            return [edit]
        }
    }

    /// The edit that shows `reply` in place of `message`. A photo message stays one
    /// (Telegram cannot turn it into text): without a new picture, only its caption changes.
    private func edit(_ message: Message, to reply: BotReply) async -> (OutboxMessage, YearNavigation.Buttons) {
        let buttons = YearNavigation.buttons(for: reply)
        let (chat, id, keyboard) = (message.chat.id, message.messageID, buttons.keyboard)
        guard message.hasPhoto else {
            let html = reply.rendered(with: .telegram) ?? ""
            return (outgoing(TelegramRequest<IgnoredResult>.editMessageText(chatID: chat, messageID: id, html: html, keyboard: keyboard), in: chat), buttons)
        }
        let caption = reply.rendered(with: CollagePhotos.captionFormatter) ?? ""
        if case .throwback(.chart(let summary)) = reply, let photo = await photo(of: summary, in: chat) {
            let request = TelegramRequest<SentMessage>.editMessageMedia(
                chatID: chat, messageID: id, photo: photo.source, captionHTML: caption, keyboard: keyboard
            )
            return (outgoing(request, in: chat, collage: photo.reusableKey), buttons)
        }
        let captionOnly = TelegramRequest<IgnoredResult>.editMessageCaption(chatID: chat, messageID: id, captionHTML: caption, keyboard: keyboard)
        return (outgoing(captionOnly, in: chat), buttons)
    }

    /// A throwback's collage, where the chat has covers on and one can be had in time.
    private func photo(of summary: ChartSummary, in chat: Int64) async -> CollagePhotos.Photo? {
        guard await willSendCollage(in: chat), let photos else { return nil }
        return await photos.photo(for: summary)
    }

    /// Whether a throwback in `chat` is answered with a collage, where it has albums and covers.
    private func willSendCollage(in chat: Int64) async -> Bool {
        guard photos != nil else { return false }
        return (try? await store.settings(for: chat).covers) ?? true
    }

    /// A reply for the outbox, which drops it if it waits longer than replies may.
    private func outgoing(
        _ request: TelegramRequest<some JSONReadable>, in chat: Int64, collage: CollageKey? = nil
    ) -> OutboxMessage {
        OutboxMessage(
            chatID: chat, kind: .reply, request: request, collage: collage,
            expiresAt: lifetimes.replyExpiry(askedAt: now())
        )
    }

    /// Records the update as handled, with what `body` changes and the messages it returns
    /// enqueued, in one transaction; then hands the messages to the deliverer. Nothing is
    /// recorded once shutdown has cancelled the update: it is handled again after the
    /// restart. Returns whether it committed.
    @discardableResult
    private func commit(_ update: Update, log: UpdateLog, _ body: @escaping @Sendable (StoreTransaction) throws -> [OutboxMessage] = { _ in [] }) async -> Bool {
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
        } catch {
            log.logger.error("could not record a handled update", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Answers a button press, so the client stops its spinner; `text` shows as a toast. It
    /// never waits past Telegram's limit for an answer.
    private func acknowledge(_ query: CallbackQuery, _ text: String?, by deadline: Duration, log: UpdateLog) async {
        let patience = deadline - clock.elapsed()
        guard patience > .zero else {
            return log.logger.notice("a button press waited too long to be answered; Telegram no longer takes an answer")
        }
        do {
            _ = try await telegram.send(TelegramRequest<TelegramOK>.answerCallbackQuery(id: query.id, text: text.map { String($0.prefix(200)) })
                .patient(for: patience))
        } catch {
            log.logger.notice("could not answer a button press", metadata: ["error": "\(error)"])
        }
    }
}
