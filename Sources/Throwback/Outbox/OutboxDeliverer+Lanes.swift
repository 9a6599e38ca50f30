import DequeModule
import Foundation
import HeapModule

// The lanes: one per chat with messages waiting, and how each moves on once its first
// message is settled.
extension OutboxDeliverer {
    /// A chat's messages waiting, in order, and where its first one stands.
    struct Lane: Sendable {
        var queue = Deque<OutboxMessage>()
        /// Its first message is on its way: the lane waits for the outcome.
        var sending = false
        /// Failures in a row of its first message, for the backoff.
        var failures = 0
        /// When this process's lease of the chat runs out; nil until it is taken.
        var leaseUntil: Date?
    }

    /// A lane held back until a moment: its chat's next flood-limit slot, a 429's wait, a backoff.
    struct Held: Comparable, Sendable {
        var until: Duration
        var chat: Int64

        static func < (a: Held, b: Held) -> Bool { (a.until, a.chat) < (b.until, b.chat) }
    }

    /// Everything the deliverer holds in memory, behind one lock.
    struct State: Sendable {
        var lanes: [Int64: Lane] = [:]
        /// Lanes whose first message may go as soon as the overall limit allows, in order.
        var ready = Deque<Int64>()
        var held = Heap<Held>()
        var known: Set<Int64> = []
        var waiting = 0
        var sending = 0
        var pump: Task<Void, Never>?
        var stopping = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
        /// Sends whose success is recorded with the next write, rather than in one of their own.
        var unrecorded: [OutboxReceipt] = []
        /// Groups that became supergroups while this process ran, to their new ids.
        var migrated: [Int64: Int64] = [:]
        /// Chats whose lanes emptied: their leases are given up with the next write.
        var unreleased: Set<Int64> = []
    }

    /// The lane a message waits in: its chat's, or, once its group became a supergroup, the
    /// supergroup's.
    static func lane(of message: OutboxMessage, in state: State) -> Int64 {
        state.lanes[message.chatID] == nil ? state.migrated[message.chatID] ?? message.chatID : message.chatID
    }

    /// Forgets every lane, ending the pump: their messages stay pending, for another process
    /// or the next start, and their leases are given up with the next write.
    static func forgetLanes(_ state: inout State) {
        for (chat, lane) in state.lanes {
            for message in lane.queue { state.known.remove(message.id) }
            if lane.leaseUntil != nil { state.unreleased.insert(chat) }
        }
        (state.lanes, state.ready, state.held, state.waiting, state.pump) = ([:], [], Heap(), 0, nil)
    }

    /// Moves a lane on once its first message is settled, or holds it for another try.
    func complete(_ message: OutboxMessage, _ step: Step) {
        let now = clock.elapsed()
        let room = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let chat = Self.lane(of: message, in: state)
            state.sending -= 1
            // Taken out while it changes, so that its queue is not copied.
            guard var lane = state.lanes.removeValue(forKey: chat) else { return [] }
            lane.sending = false
            switch step {
            case .done:
                lane.failures = 0
                if lane.queue.first?.id == message.id {
                    lane.queue.removeFirst()
                    state.waiting -= 1
                }
                state.known.remove(message.id)
                if !lane.queue.isEmpty {
                    state.lanes[chat] = lane
                    state.ready.append(chat)
                } else if lane.leaseUntil != nil {
                    state.unreleased.insert(chat)
                }
            case .again(let wait):
                lane.failures += 1
                state.lanes[chat] = lane
                state.held.insert(Held(until: now + wait, chat: chat))
            }
            guard state.waiting < settings.maxWaiting else { return [] }
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        for waiter in room { waiter.resume() }
        wake.notify()
    }

    /// Lets go of a lane whose chat another process sends to: its messages are that process's
    /// (they stay pending), and a scan takes them up again once its lease runs out.
    func leave(_ chat: Int64) {
        let room = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.sending -= 1
            guard let lane = state.lanes.removeValue(forKey: chat) else { return [] }
            for message in lane.queue { state.known.remove(message.id) }
            state.waiting -= lane.queue.count
            guard state.waiting < settings.maxWaiting else { return [] }
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        logger.debug("another process sends this chat's messages; they wait for it", metadata: ["chat": "\(chat)"])
        for waiter in room { waiter.resume() }
        rescan.notify()
        wake.notify()
    }

    /// Drops every message of a lane but the first (which its caller settles).
    func clearLane(of message: OutboxMessage) {
        state.withLock { state in
            let chat = Self.lane(of: message, in: state)
            guard var lane = state.lanes[chat], let first = lane.queue.popFirst() else { return }
            for message in lane.queue { state.known.remove(message.id) }
            state.waiting -= lane.queue.count
            lane.queue = [first]
            state.lanes[chat] = lane
        }
    }
}
