import Foundation
import Logging
import Networking
import Telegram

// Sending one claimed message, by `file_id` where its picture has one, or with its bytes.
extension OutboxDeliverer {
    /// What became of a lane's first message.
    enum Step {
        /// Settled one way or another (or another process has it): on to the next.
        case done
        /// Not sent: try the same message again after this wait.
        case again(Duration)
    }

    /// Sends a claimed message, and settles its lane by what became of it.
    func send(_ message: OutboxMessage) async {
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

    /// The request as it goes now: an upload of a picture that has a `file_id` by now is sent
    /// by that id instead; an upload read back from the outbox gets its bytes.
    private func prepared(_ message: OutboxMessage) async throws -> TelegramRequest<MessageReceipt> {
        if message.uploads, let key = message.photoKey, let photos, let fileID = await photos.fileID(forPhoto: key) {
            return message.request.withPhoto(.fileID(fileID))
        }
        guard message.uploadInRow, let photo = try await store.upload(of: message) else { return message.request }
        return message.request.withPhoto(.upload(photo))
    }

    /// The log of one message, tagged with it: built when a line is written, not per message.
    func logger(for message: OutboxMessage) -> Logger {
        var logger = logger
        logger[metadataKey: "chat"] = "\(message.chatID)"
        logger[metadataKey: "message"] = "\(message.id)"
        return logger
    }

    func send(_ message: OutboxMessage, request: TelegramRequest<MessageReceipt>, failures: Int) async -> Step {
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
            if let key = message.photoKey, let sent = receipt.message {
                await photos?.sent(photo: key, as: sent, uploaded: !request.attachments.isEmpty)
            }
            // Recorded with the next write: until then, a crash leaves it counted as possibly
            // sent, which is as good, since it is never sent again either way.
            metrics.increment("vinylogue_outbox_messages_total", [("outcome", OutboxMessage.State.sent.rawValue)])
            state.withLock { $0.unrecorded.append(OutboxReceipt(id: message.id, messageID: receipt.message?.messageID, uploads: message.uploads)) }
            return .done
        } catch {
            return await failed(
                message, request: request, error: error, verdict: SendVerdict(error, progress: progress), failures: failures, logger: logger(for: message)
            )
        }
    }
}
