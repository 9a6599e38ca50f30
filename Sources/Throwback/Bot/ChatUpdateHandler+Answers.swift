import Foundation
import Networking
import Telegram

// Answers to messages: a reply, as a collage where there is one, or text; enqueued for the
// outbox.
extension ChatUpdateHandler {
    /// Answers a message; logs its command's line once the answer is queued. The chat action
    /// `progress` shows ends once the answer is ready, before it waits for room in the outbox:
    /// a warm answer waiting there is no slow fetch.
    func answer(
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
            let (answer, buttons) = await answer(reply, to: message, in: context.language)
            ready()
            queued(await commit(update, log: log) { transaction in
                try transaction.saveButtonNames(buttons, at: self.now())
                return answer
            })
        case let .change(change, then)?:
            ready()
            let formatter = ChartFormatter.telegram.speaking(context.language)
            let committed = await commit(update, log: log) { transaction in
                try change(transaction).rendered(with: formatter).map { [self.text($0, replyingTo: message)] } ?? []
            }
            // What the change could not save gets an apology, and the update counts as handled.
            if !committed, !Task.isCancelled {
                queued(await commit(update, log: log) { _ in [self.text(StorageFailure.message(in: context.language), replyingTo: message)] }, .failed)
            } else if committed {
                queued(true)
                await then?()
            }
        }
    }

    /// How a command ended once its update was to be recorded: as `ending` if it was, as a
    /// failure if storage failed, nil if shutdown left it for the next start.
    func ended(_ ending: CommandEnding, committed: Bool) -> CommandEnding? {
        committed ? ending : Task.isCancelled ? nil : .failed
    }

    /// A reply to a message, in `language`: a throwback as its collage where there is one, else text.
    func answer(_ reply: BotReply, to message: Message, in language: Language) async -> ([OutboxMessage], YearNavigation.Buttons) {
        let buttons = YearNavigation.buttons(for: reply, in: language)
        let chat = message.chat.id
        func text(_ html: String) -> TelegramRequest<SentMessage> {
            .sendMessage(chatID: chat, html: html, replyTo: message.messageID, topic: message.topicID, keyboard: buttons.keyboard)
        }
        if case .throwback(.chart(let summary)) = reply, let photo = await photo(of: summary, in: chat) {
            let caption = CollagePhotos.captionFormatter.speaking(language).format(summary)
            let request = TelegramRequest<SentMessage>.sendPhoto(
                chatID: chat, photo: photo.source, captionHTML: caption, replyTo: message.messageID, topic: message.topicID,
                keyboard: buttons.keyboard
            )
            // Should Telegram refuse the picture, the outbox sends the caption alone.
            return ([outgoing(request, in: chat, collage: photo.reusableKey)], buttons)
        }
        return ([outgoing(text(reply.rendered(with: .telegram.speaking(language)) ?? ""), in: chat)], buttons)
    }

    private func text(_ html: String, replyingTo message: Message) -> OutboxMessage {
        outgoing(
            TelegramRequest<SentMessage>.sendMessage(chatID: message.chat.id, html: html, replyTo: message.messageID, topic: message.topicID),
            in: message.chat.id
        )
    }

    /// A throwback's collage, where the chat has covers on and one can be had in time.
    func photo(of summary: ChartSummary, in chat: Int64) async -> CollagePhotos.Photo? {
        guard await willSendCollage(in: chat), let photos else { return nil }
        return await photos.photo(for: summary)
    }

    /// Whether a throwback in `chat` is answered with a collage, where it has albums and covers.
    func willSendCollage(in chat: Int64) async -> Bool {
        guard photos != nil else { return false }
        return (try? await store.settings(for: chat).covers) ?? true
    }

    /// A reply for the outbox, which drops it if it waits longer than replies may.
    func outgoing(
        _ request: TelegramRequest<some JSONReadable>, in chat: Int64, collage: CollageKey? = nil
    ) -> OutboxMessage {
        OutboxMessage(
            chatID: chat, kind: .reply, request: request, photoKey: collage?.photoKey,
            expiresAt: lifetimes.replyExpiry(askedAt: now())
        )
    }
}
