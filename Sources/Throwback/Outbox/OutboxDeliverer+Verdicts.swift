import Foundation
import Logging
import Networking
import Telegram

// What becomes of a message Telegram did not take: by `SendVerdict`, tried again, settled,
// sent as text alone, or its chat marked gone.
extension OutboxDeliverer {
    func failed(
        _ message: OutboxMessage, request: TelegramRequest<MessageReceipt>, error: any Error, verdict: SendVerdict, failures: Int, logger: Logger
    ) async -> Step {
        switch verdict {
        case .notSent, .mayHaveBeenSent:
            // Telegram's wait when it named one (sooner only earns another 429), else the backoff;
            // a message that may have arrived goes again only if it is an edit, which changes
            // nothing when made twice.
            guard let wait = settings.backoff.wait(beforeRetry: failures + 1, after: verdict, repeatable: request.isRepeatable) else {
                logger.warning("a message may have arrived; it is not sent again", metadata: ["error": "\(error)"])
                await settle(message, .unconfirmed, note: "\(error)", logger: logger)
                return .done
            }
            await returnToPending(message, for: wait, logger: logger)
            if verdict == .mayHaveBeenSent {
                logger.notice("an edit may have arrived; it goes again, which changes nothing if it did", metadata: ["error": "\(error)", "wait": "\(wait)"])
            } else {
                metrics.increment("vinylogue_retries_total", [("api", "telegram")])
                logger.notice("message not sent; it waits and goes again", metadata: ["error": "\(error)", "wait": "\(wait)"])
            }
            return .again(wait)
        case .refused(.credentials):
            // A token or API URL Telegram refuses may be fixed and the bot restarted: keep the message.
            let wait = settings.backoff.delay(beforeRetry: failures + 1)
            await returnToPending(message, for: wait, logger: logger)
            logger.error("Telegram refused the bot token while sending; the message waits", metadata: ["error": "\(error)"])
            return .again(wait)
        case .refused(.alreadyDone):
            logger.debug("the message already shows that")
            await settle(message, .sent, note: "not modified", logger: logger)
            return .done
        case .refused(.recipientGone):
            logger.notice("the bot can no longer post here; the chat is marked inactive and its queue dropped", metadata: ["reason": "\(error)"])
            clearLane(of: message)
            let now = now()
            do {
                let dropped = try await store.write { transaction in
                    try transaction.markInactive(message.chatID)
                    try transaction.settle(message, as: .dropped, note: "chat gone", at: now)
                    return try transaction.dropPending(chat: message.chatID, note: "chat gone", at: now)
                }
                metrics.increment("vinylogue_outbox_messages_total", [("outcome", "dropped")], by: Int64(dropped.count + 1))
            } catch {
                logger.error("could not mark a chat inactive", metadata: ["error": "\(error)"])
            }
            return .done
        case .refused(.request):
            return await refused(message, request: request, refusal: error, failures: failures, logger: logger)
        }
    }

    /// A message Telegram refused for what it says: drawn again, sent as text, or dropped.
    private func refused(
        _ message: OutboxMessage, request: TelegramRequest<MessageReceipt>, refusal: any Error, failures: Int, logger: Logger
    ) async -> Step {
        // A stored picture Telegram no longer knows is drawn again and uploaded, once.
        if request.sendsStoredPhoto, let key = message.photoKey, let photos {
            await photos.refused(photo: key)
            if let upload = await photos.remade(photo: key) {
                logger.notice("Telegram refused a stored collage; sending it drawn again")
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
}
