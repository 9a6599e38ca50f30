import Logging
import Telegram

/// Turns one Telegram update into at most one reply: commands are answered as a reply to the
/// command message; in groups, other text is ignored silently; in private chats it gets a hint.
public struct ChatUpdateHandler: Sendable {
    private let telegram: any TelegramClient
    private let responder: CommandResponder
    private let logger: Logger

    public init(telegram: any TelegramClient, responder: CommandResponder, logger: Logger = Logger(label: "bot")) {
        self.telegram = telegram
        self.responder = responder
        self.logger = logger
    }

    public func handle(_ update: Update) async {
        guard let message = update.message, let text = message.text, message.from?.isBot != true else { return }
        guard let reply = await responder.reply(to: text, answerUnknownText: message.chat.isPrivate) else { return }
        // Shutdown ran out of grace while this reply was being made; its answer is not worth sending.
        guard !Task.isCancelled else {
            logger.notice("reply abandoned at shutdown", metadata: ["update": "\(update.updateID)"])
            return
        }
        do {
            try await telegram.sendMessage(
                chatID: message.chat.id, html: reply.rendered(with: .telegram), replyTo: message.messageID
            )
        } catch is CancellationError {
            logger.notice("reply cancelled by shutdown", metadata: ["update": "\(update.updateID)"])
        } catch {
            logger.error("could not send reply", metadata: ["chat": "\(message.chat.id)", "error": "\(error)"])
        }
    }
}
