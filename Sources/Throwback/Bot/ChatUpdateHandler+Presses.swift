import Foundation
import Telegram

// Presses of ◀ / ▶: answered at once, then the throwback edited in place.
extension ChatUpdateHandler {
    /// Handles a ◀ / ▶ press, on a chat message or on one sent in inline mode. The press is
    /// answered before any Last.fm call, so the client's spinner stops at once; a refusal
    /// shows as a toast, later trouble as a log line.
    func press(_ query: CallbackQuery, _ admission: CommandRouter.Admission, arrival: Arrival, log: UpdateLog) async -> CommandEnding? {
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
        let language = arrival.language
        guard let target = await navigation.target(from: query.data) else {
            await acknowledge(query, language.text(.pressStale), by: deadline, log: log)
            return await done(.expired)
        }
        let message = query.message.flatMap { $0.isInaccessible ? nil : $0 }
        guard message != nil || query.inlineMessageID != nil else {
            await acknowledge(query, language.text(.pressTooOld), by: deadline, log: log)
            return await done(.expired)
        }
        // An inline message is in a chat the bot may not know: the presser's settings apply.
        let chat = message?.chat.id ?? query.from.id
        var invocation = CommandInvocation(
            chatID: chat, isPrivateChat: message?.chat.isPrivate ?? true, userID: query.from.id, language: language
        )
        invocation.lastFMUser = target.user
        invocation.yearsAgo = target.yearsAgo
        if case .failure(let refusal) = await router.authorize(throwback, invocation) {
            await acknowledge(query, refusal.reply.rendered(with: .plain), by: deadline, log: log)
            return await done(.refused(by: refusal.guardName))
        }
        await acknowledge(query, nil, by: deadline, log: log)
        let minimum = (try? await store.settings(for: chat).minimumPlayCount) ?? 1
        let reply = await throwback.throwback(user: target.user, yearsAgo: target.yearsAgo, minimumPlayCount: minimum, in: language)
        guard case .throwback = reply else {
            log.logger.notice("a year button could not be answered", metadata: ["reason": "\(reply.rendered(with: .plain) ?? "")"])
            return await done(.failed)
        }
        guard let message else {
            let buttons = YearNavigation.buttons(for: reply, in: language)
            await inline.edit(query.inlineMessageID ?? "", to: reply, keyboard: buttons.keyboard, in: language, logger: log.logger)
            return await done(.answered) { transaction in
                try transaction.saveButtonNames(buttons, at: self.now())
                return []
            }
        }
        let (edit, buttons) = await edit(message, to: reply, in: language)
        return await done(.answered) { transaction in
            try transaction.saveButtonNames(buttons, at: self.now())
            return [edit]
        }
    }

    /// The edit that shows `reply` in place of `message`. A photo message stays one
    /// (Telegram cannot turn it into text): without a new picture, only its caption changes.
    private func edit(_ message: Message, to reply: BotReply, in language: Language) async -> (OutboxMessage, YearNavigation.Buttons) {
        let buttons = YearNavigation.buttons(for: reply, in: language)
        let (chat, id, keyboard) = (message.chat.id, message.messageID, buttons.keyboard)
        guard message.hasPhoto else {
            let html = reply.rendered(with: .telegram.speaking(language)) ?? ""
            return (outgoing(TelegramRequest<IgnoredResult>.editMessageText(chatID: chat, messageID: id, html: html, keyboard: keyboard), in: chat), buttons)
        }
        let caption = reply.rendered(with: CollagePhotos.captionFormatter.speaking(language)) ?? ""
        if case .throwback(.chart(let summary)) = reply, let photo = await photo(of: summary, in: chat) {
            let request = TelegramRequest<SentMessage>.editMessageMedia(
                chatID: chat, messageID: id, photo: photo.source, captionHTML: caption, keyboard: keyboard
            )
            return (outgoing(request, in: chat, collage: photo.reusableKey), buttons)
        }
        let captionOnly = TelegramRequest<IgnoredResult>.editMessageCaption(chatID: chat, messageID: id, captionHTML: caption, keyboard: keyboard)
        return (outgoing(captionOnly, in: chat), buttons)
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
