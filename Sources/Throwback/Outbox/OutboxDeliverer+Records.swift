import Foundation
import Logging

// Records: what became of each message, written to the outbox.
extension OutboxDeliverer {
    func takeUnrecorded() -> [OutboxReceipt] {
        state.withLock { state in
            defer { state.unrecorded = [] }
            return state.unrecorded
        }
    }

    /// Records the sends that went since the last write.
    func recordSends() async {
        let unrecorded = takeUnrecorded()
        let released = state.withLock { state in
            defer { state.unreleased = [] }
            return state.unreleased
        }
        guard !unrecorded.isEmpty || !released.isEmpty else { return }
        do {
            try await store.write { [now, owner] transaction in
                try transaction.recordSent(unrecorded, at: now())
                try transaction.releaseLanes(released, in: .outbox, owner: owner)
            }
        } catch {
            // Their leases run out instead.
            logger.error("could not record messages as sent; they count as possibly sent", metadata: ["error": "\(error)"])
        }
    }

    func settle(
        _ message: OutboxMessage, _ outcome: OutboxMessage.State, messageID: Int64? = nil, note: String? = nil, ifPending: Bool = false,
        logger: Logger
    ) async {
        metrics.increment("vinylogue_outbox_messages_total", [("outcome", outcome.rawValue)])
        let now = now()
        do {
            try await store.write { try $0.settle(message, as: outcome, messageID: messageID, note: note, ifPending: ifPending, at: now) }
        } catch {
            // The message stays marked as sending: a later scan counts it as possibly sent.
            logger.error("could not record what became of a message", metadata: ["outcome": "\(outcome.rawValue)", "error": "\(error)"])
        }
    }

    /// Puts a message that did not leave back, to go again after `wait`: its chat stays this
    /// process's meanwhile, the lease renewed to cover the wait (a flood wait may be long).
    func returnToPending(_ message: OutboxMessage, for wait: Duration, logger: Logger) async {
        let chat = message.chatID
        let held = state.withLock { $0.lanes[chat]?.leaseUntil }
        // Till the wait is over, and a while more to claim the message again (which renews it):
        // a process that takes the chat over after a crash keeps Telegram's wait too.
        let until = now().addingTimeInterval((wait + settings.laneLease / 2).seconds)
        do {
            let kept = try await store.write { [owner] transaction in
                try transaction.returnToPending(message.id)
                return try held != nil && transaction.renewLane(chat, in: .outbox, owner: owner, until: until)
            }
            // Unless the lane was given up and taken anew meanwhile.
            state.withLock { state in
                if held != nil, state.lanes[chat]?.leaseUntil == held { state.lanes[chat]?.leaseUntil = kept ? until : nil }
            }
        } catch {
            logger.error("could not return an unsent message to the outbox", metadata: ["error": "\(error)"])
        }
    }
}
