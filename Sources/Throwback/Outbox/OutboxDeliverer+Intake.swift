import DequeModule
import Foundation

// Intake: messages handed in by this process, groups that became supergroups, and the
// room left for more.
extension OutboxDeliverer {
    /// Takes messages this process has just committed to the outbox.
    public func accept(_ messages: [OutboxMessage]) {
        state.withLock { state in
            guard !state.stopping else { return }
            for var message in messages where message.id != 0 && state.known.insert(message.id).inserted {
                if let new = state.migrated[message.chatID] { message = Self.redirected(message, to: new) }
                let chat = message.chatID
                if state.lanes[chat] == nil { state.ready.append(chat) }
                state.lanes[chat, default: Lane()].queue.append(message)
                state.waiting += 1
            }
            // Started under the lock, so that there is never more than one.
            if state.pump == nil, !state.lanes.isEmpty { state.pump = Task(executorPreference: executor) { await self.pump() } }
        }
        wake.notify()
    }

    /// A group became a supergroup (its waiting rows moved with its roster): its queue joins
    /// the new chat's, in the order the messages were enqueued, aimed at the new id, and so do
    /// messages handed in for the old id later. A message on its way stays first, so that the
    /// next waits for it.
    public func followMigration(from old: Int64, to new: Int64) {
        guard old != new else { return }
        state.withLock { state in
            state.migrated[old] = new
            guard var moving = state.lanes.removeValue(forKey: old) else { return }
            moving.queue = Deque(moving.queue.map { Self.redirected($0, to: new) })
            guard var target = state.lanes[new] else {
                state.lanes[new] = moving
                if !moving.sending { state.ready.append(new) }
                return
            }
            // Only one message of a lane is on its way at a time: should both lanes have one,
            // the old one's stays in its lane until it is settled.
            let bothSending = moving.sending && target.sending
            if bothSending, let first = moving.queue.popFirst() {
                state.lanes[old] = Lane(queue: [first], sending: true, failures: moving.failures)
            }
            let onItsWay = target.sending ? target.queue.popFirst() : moving.sending && !bothSending ? moving.queue.popFirst() : nil
            target.queue = Deque((Array(target.queue) + moving.queue).sorted { $0.id < $1.id })
            if let onItsWay { target.queue.prepend(onItsWay) }
            if moving.sending && !bothSending { (target.sending, target.failures) = (true, moving.failures) }
            state.lanes[new] = target
        }
        wake.notify()
    }

    private static func redirected(_ message: OutboxMessage, to chat: Int64) -> OutboxMessage {
        var message = message
        message.chatID = chat
        message.request = message.request.redirected(to: chat)
        return message
    }

    /// Whether `chat` may take another reply: the outbox holds no more than
    /// `maxRepliesPerChat` waiting for one chat.
    public func hasRoomForReplies(in chat: Int64) -> Bool {
        state.withLock { state in
            (state.lanes[chat]?.queue.count { $0.kind == .reply } ?? 0) < settings.maxRepliesPerChat
        }
    }

    /// Returns once fewer than `maxWaiting` messages wait in memory: intake waits here, so
    /// that a burst waits at Telegram rather than in this process.
    public func waitForRoom() async {
        // Without a suspension when there is room, as there nearly always is.
        if state.withLock({ $0.waiting < settings.maxWaiting || $0.stopping }) { return }
        await withCheckedContinuation { continuation in
            let room = state.withLock { state -> Bool in
                guard state.waiting >= settings.maxWaiting, !state.stopping else { return true }
                state.roomWaiters.append(continuation)
                return false
            }
            if room { continuation.resume() }
        }
    }
}
