import Logging
import Telegram

/// Turns one Telegram update into at most one answer. Commands are answered as a reply to
/// the command message, in its forum topic; presses of ◀ / ▶ edit the throwback in place;
/// in groups, anything that is not a `/command` is ignored silently.
///
/// A throwback with albums is answered as a cover collage with the chart as its caption,
/// where the chat has covers on; whenever no picture can be had, in text.
///
/// Every update ends recorded as handled: with its answer (see `ReplyDelivery`), or at once
/// when there is nothing to send. An update abandoned at shutdown stays in the inbox.
public struct ChatUpdateHandler: Sendable {
    /// Telegram's service account that forwards a linked channel's posts into its group.
    static let channelForwarder: Int64 = 777_000

    private let router: CommandRouter
    private let throwback: ThrowbackCommand
    private let navigation: YearNavigation
    private let store: BotStore
    private let delivery: ReplyDelivery
    private let telegram: any TelegramClient
    /// Nil: every throwback is text.
    private let photos: CollagePhotos?
    private let logger: Logger

    public init(
        telegram: any TelegramClient, router: CommandRouter, throwback: ThrowbackCommand, navigation: YearNavigation,
        store: BotStore, delivery: ReplyDelivery, photos: CollagePhotos? = nil, logger: Logger = Logger(label: "bot")
    ) {
        self.telegram = telegram
        self.photos = photos
        self.router = router
        self.throwback = throwback
        self.navigation = navigation
        self.store = store
        self.delivery = delivery
        self.logger = logger
    }

    public func handle(_ update: Update) async {
        var logger = logger
        logger[metadataKey: "update"] = "\(update.updateID)"
        if let chat = update.chatID { logger[metadataKey: "chat"] = "\(chat)" }
        let answered: Bool
        if let message = update.message, let newID = message.migrateToChatID {
            await store.followMigration(from: message.chat.id, to: newID, logger: logger)
            answered = false
        } else if let message = update.message {
            answered = await answer(message, update: update, logger: logger)
        } else if let query = update.callbackQuery {
            answered = await press(query, update: update, logger: logger)
        } else {
            answered = false
        }
        // Cancelled by shutdown before answering: the update stays in the inbox.
        guard !answered, !Task.isCancelled else { return }
        await delivery.settle(update)
    }

    /// Who sent a message, as a command sees it; nil for senders that never command the bot:
    /// other bots, channels, and a linked channel's automatic forwards.
    static func invocation(for message: Message) -> CommandInvocation? {
        guard let sender = message.from, message.isAutomaticForward != true, sender.id != channelForwarder else { return nil }
        let anonymousAdmin = message.isFromAnonymousAdmin
        guard !sender.isBot || anonymousAdmin else { return nil }
        return CommandInvocation(
            chatID: message.chat.id, isPrivateChat: message.chat.isPrivate, userID: sender.id,
            senderChatID: anonymousAdmin ? message.chat.id : nil, topicID: message.topicID
        )
    }

    /// Answers a message. Returns true when an answer was attempted, so that its delivery
    /// decided what the journal holds.
    private func answer(_ message: Message, update: Update, logger: Logger) async -> Bool {
        guard let text = message.text, let context = Self.invocation(for: message) else { return false }
        var logger = logger
        let parsed = router.parse(text, context: context)
        if case .command(let spec, _) = parsed { logger[metadataKey: "command"] = "\(spec.name)" }
        guard let reply = await router.reply(to: parsed, context: context), reply != .silence else { return false }
        guard !Task.isCancelled else {
            logger.notice("reply abandoned at shutdown; it stays in the inbox for the next start")
            return true
        }
        let keyboard = await keyboard(for: reply, logger: logger)
        if case .throwback(.chart(let summary)) = reply {
            let sentPhoto = await sendPhoto(of: summary, chat: message.chat.id, update: update) { photo in
                .sendPhoto(
                    chatID: message.chat.id, photo: photo.source, captionHTML: CollagePhotos.captionFormatter.format(summary),
                    replyTo: message.messageID, topic: message.topicID, keyboard: keyboard
                )
            }
            if sentPhoto { return true }
        }
        // Rendered only now: a throwback that went out as a photo needed its caption only.
        guard let html = reply.rendered(with: .telegram) else { return true }
        await delivery.send(
            .sendMessage(chatID: message.chat.id, html: html, replyTo: message.messageID, topic: message.topicID, keyboard: keyboard),
            answering: update
        )
        return true
    }

    /// Handles a ◀ / ▶ press. The press is answered before any Last.fm call, so the client's
    /// spinner stops at once; a refusal shows as a toast, later trouble as a log line.
    private func press(_ query: CallbackQuery, update: Update, logger: Logger) async -> Bool {
        var logger = logger
        logger[metadataKey: "command"] = "\(throwback.spec.name)"
        guard let target = await navigation.target(from: query.data) else {
            await acknowledge(query, "That button doesn’t work any more. Send a new throwback.", logger: logger)
            return false
        }
        guard let message = query.message, !message.isInaccessible else {
            await acknowledge(query, "That message is too old to change. Send a new throwback.", logger: logger)
            return false
        }
        var invocation = CommandInvocation(chatID: message.chat.id, isPrivateChat: message.chat.isPrivate, userID: query.from.id)
        invocation.lastFMUser = target.user
        invocation.yearsAgo = target.yearsAgo
        if case .failure(let refusal) = await router.authorize(throwback, invocation) {
            await acknowledge(query, refusal.reply.rendered(with: .plain), logger: logger)
            return false
        }
        await acknowledge(query, nil, logger: logger)
        let minimum = (try? await store.settings(for: message.chat.id).minimumPlayCount) ?? 1
        let reply = await throwback.throwback(user: target.user, yearsAgo: target.yearsAgo, minimumPlayCount: minimum)
        guard case .throwback = reply, let html = reply.rendered(with: .telegram) else {
            logger.notice("a year button could not be answered", metadata: ["reason": "\(reply.rendered(with: .plain) ?? "")"])
            return false
        }
        guard !Task.isCancelled else { return true }
        let keyboard = await keyboard(for: reply, logger: logger)
        guard message.hasPhoto else {
            await delivery.send(
                .editMessageText(chatID: message.chat.id, messageID: message.messageID, html: html, keyboard: keyboard),
                answering: update
            )
            return true
        }
        // A photo message stays one (Telegram cannot turn it into text): without a new picture,
        // only its caption changes.
        let caption = reply.rendered(with: CollagePhotos.captionFormatter) ?? html
        if case .throwback(.chart(let summary)) = reply {
            let sentPhoto = await sendPhoto(of: summary, chat: message.chat.id, update: update) { photo in
                .editMessageMedia(
                    chatID: message.chat.id, messageID: message.messageID, photo: photo.source, captionHTML: caption, keyboard: keyboard
                )
            }
            if sentPhoto { return true }
        }
        await delivery.send(
            .editMessageCaption(chatID: message.chat.id, messageID: message.messageID, captionHTML: caption, keyboard: keyboard),
            answering: update
        )
        return true
    }

    /// Sends a throwback's collage with `request`. Returns false when the answer should be
    /// text instead: covers are off here, the week is empty, no picture could be made in time,
    /// or Telegram refused the picture. A stored `file_id` Telegram refuses is replaced by a
    /// fresh upload once.
    private func sendPhoto(
        of summary: ChartSummary, chat: Int64, update: Update,
        _ request: (CollagePhotos.Photo) -> TelegramRequest<SentMessage>
    ) async -> Bool {
        guard let photos, (try? await store.settings(for: chat).covers) ?? true else { return false }
        for _ in 0..<2 {
            guard let photo = await photos.photo(for: summary), !Task.isCancelled else { return false }
            switch await delivery.send(request(photo), answering: update) {
            case .sent(let message):
                await photos.sent(photo, as: message)
                return true
            case .notSent:
                return true
            case .refused:
                await photos.refused(photo)
                guard case .stored = photo else { return false }
            }
        }
        return false
    }

    private func keyboard(for reply: BotReply, logger: Logger) async -> InlineKeyboard? {
        do {
            return try await navigation.keyboard(for: reply)
        } catch {
            logger.error("could not store a year button; sending the reply without buttons", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Answers a button press, so the client stops its spinner; `text` shows as a toast.
    private func acknowledge(_ query: CallbackQuery, _ text: String?, logger: Logger) async {
        do {
            try await telegram.answerCallbackQuery(id: query.id, text: text.map { String($0.prefix(200)) })
        } catch {
            logger.notice("could not answer a button press", metadata: ["error": "\(error)"])
        }
    }
}
