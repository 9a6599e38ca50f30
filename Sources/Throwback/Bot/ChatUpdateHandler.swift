import Logging
import Telegram

/// Turns one Telegram update into at most one reply. Commands are answered as a reply to the
/// command message; presses of ◀ / ▶ edit the throwback in place; in groups, other text is
/// ignored silently.
///
/// With a journal, an update is recorded as handled just before its answer goes out. A
/// crash after that point loses at most that one answer; it never sends it twice. A crash
/// before it leaves the update in the inbox, to be handled after the restart.
public struct ChatUpdateHandler: Sendable {
    private let telegram: any TelegramClient
    private let router: CommandRouter
    private let throwback: ThrowbackCommand
    private let rateLimit: RateLimitGuard
    private let store: BotStore
    private let journal: UpdateJournal?
    private let logger: Logger

    public init(
        telegram: any TelegramClient, router: CommandRouter, throwback: ThrowbackCommand, rateLimit: RateLimitGuard,
        store: BotStore, journal: UpdateJournal?, logger: Logger = Logger(label: "bot")
    ) {
        self.telegram = telegram
        self.router = router
        self.throwback = throwback
        self.rateLimit = rateLimit
        self.store = store
        self.journal = journal
        self.logger = logger
    }

    public func handle(_ update: Update) async {
        var settled = false
        if let message = update.message, let newID = message.migrateToChatID {
            await follow(message.chat.id, to: newID)
        } else if let message = update.message {
            settled = await answer(message, update: update)
        } else if let query = update.callbackQuery {
            settled = await navigate(query, update: update)
        }
        // Cancelled by shutdown: the update stays in the inbox and is handled after restart.
        guard !settled, !Task.isCancelled else { return }
        await commit(update)
    }

    /// Records the update as handled. Idempotent.
    private func commit(_ update: Update) async {
        do {
            try await journal?.markProcessed(update.updateID)
        } catch {
            logger.error("could not record a handled update", metadata: ["update": "\(update.updateID)", "error": "\(error)"])
        }
    }

    /// A group became a supergroup: its roster and settings move to the new id.
    private func follow(_ oldID: Int64, to newID: Int64) async {
        do {
            try await store.migrateChat(from: oldID, to: newID)
            logger.notice("group became a supergroup; its roster and settings moved", metadata: ["from": "\(oldID)", "to": "\(newID)"])
        } catch {
            logger.error("could not move a migrated chat's data", metadata: ["from": "\(oldID)", "error": "\(error)"])
        }
    }

    /// Answers a message. Returns true once the journal holds the outcome (answered, or
    /// put back for after a restart); false when there was nothing to send.
    private func answer(_ message: Message, update: Update) async -> Bool {
        guard let text = message.text, let sender = message.from, !sender.isBot else { return false }
        let context = CommandInvocation(chatID: message.chat.id, isPrivateChat: message.chat.isPrivate, userID: sender.id)
        guard let reply = await router.reply(to: text, context: context), let html = reply.rendered(with: .telegram) else { return false }
        guard !Task.isCancelled else {
            logger.notice("reply abandoned at shutdown", metadata: ["chat": "\(message.chat.id)"])
            return false
        }
        await deliver(update, to: message.chat.id) {
            try await telegram.sendMessage(
                chatID: message.chat.id, html: html, replyTo: message.messageID, keyboard: YearNavigation.keyboard(for: reply)
            )
        }
        return true
    }

    /// Handles a ◀ / ▶ press; returns like `answer`.
    private func navigate(_ query: CallbackQuery, update: Update) async -> Bool {
        guard let target = YearNavigation.target(from: query.data) else {
            await acknowledge(query, "That button doesn’t work any more. Send a new throwback.")
            return false
        }
        guard let message = query.message else {
            await acknowledge(query, "That message is too old to change. Send a new throwback.")
            return false
        }
        let context = CommandInvocation(chatID: message.chat.id, isPrivateChat: message.chat.isPrivate, userID: query.from.id)
        switch await rateLimit.check(context) {
        case .deny(let reason):
            await acknowledge(query, reason)
            return false
        case .ignore:
            await acknowledge(query, nil)
            return false
        case .allow:
            break
        }
        let minimum = (try? await store.settings(for: message.chat.id).minimumPlayCount) ?? 1
        let reply = await throwback.throwback(user: target.user, yearsAgo: target.yearsAgo, minimumPlayCount: minimum)
        guard case .throwback = reply, let html = reply.rendered(with: .telegram) else {
            await acknowledge(query, reply.rendered(with: .plain))
            return false
        }
        guard !Task.isCancelled else { return false }
        // Answer the press first, so the spinner stops even if the edit waits for the flood limit.
        await acknowledge(query, nil)
        await deliver(update, to: message.chat.id) {
            try await telegram.editMessageText(
                chatID: message.chat.id, messageID: message.messageID, html: html, keyboard: YearNavigation.keyboard(for: reply)
            )
        }
        return true
    }

    /// Answers a button press, so the client stops its spinner; `text` shows as a toast.
    private func acknowledge(_ query: CallbackQuery, _ text: String?) async {
        do {
            try await telegram.answerCallbackQuery(id: query.id, text: text.map { String($0.prefix(200)) })
        } catch {
            logger.notice("could not answer a button press", metadata: ["error": "\(error)"])
        }
    }

    /// Records the update as handled, then sends, and remembers a chat that blocked or removed
    /// the bot. An answer that certainly never left (shutdown while it waited for the flood
    /// limit, no connection, flood control) puts its update back in the inbox, to be answered
    /// after a restart.
    private func deliver(_ update: Update, to chat: Int64, _ send: () async throws -> Void) async {
        await commit(update)
        do {
            try await send()
        } catch let error where Self.certainlyNotSent(error) {
            logger.notice("reply not sent; it will be sent after a restart", metadata: ["chat": "\(chat)", "error": "\(error)"])
            do { try journal?.reopen(update) } catch {
                logger.error("could not keep an unanswered update", metadata: ["update": "\(update.updateID)", "error": "\(error)"])
            }
        } catch TelegramError.forbidden(let reason) {
            logger.notice("the bot can no longer post here; marking the chat inactive", metadata: ["chat": "\(chat)", "reason": "\(reason)"])
            try? await store.markInactive(chat)
        } catch TelegramError.badRequest(let reason) where reason.contains("message is not modified") {
            return
        } catch {
            logger.error("could not send reply", metadata: ["chat": "\(chat)", "error": "\(error)"])
        }
    }

    private static func certainlyNotSent(_ error: any Error) -> Bool {
        switch error {
        case TelegramError.transport(_, mayHaveBeenDelivered: false), TelegramError.retryAfter: true
        default: false
        }
    }
}
