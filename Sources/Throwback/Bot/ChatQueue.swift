import DequeModule
import Synchronization
import Telegram

/// The updates waiting to be handled, as they arrived: first in, first out within a chat,
/// and a chat is given to one worker at a time, so that its updates are answered in order
/// while other chats go ahead. Intake waits when too many updates are queued.
///
/// `close()` is synchronous and callable from any thread (a graceful-shutdown handler):
/// workers then take nothing new, and a waiting intake gives up.
final class ChatQueue: Sendable {
    /// An update, and the chat a worker holds while handling it.
    typealias Work = ChatUpdateHandler.Arrival

    private struct State {
        var lanes: [Int64: Deque<Work>] = [:]
        /// Chats with queued updates and no worker, in the order they became ready.
        var ready = Deque<Int64>()
        var busy = Set<Int64>()
        var queued = 0
        var closed = false
        var idleWorkers: [(id: Int, continuation: CheckedContinuation<Work?, Never>)] = []
        var waitingIntake: (id: Int, continuation: CheckedContinuation<Bool, Never>)?
        var nextWaiterID = 0
    }

    private let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Queues an update; waits while the queue is full. False once closed.
    func enqueue(_ update: Work) async -> Bool {
        let chat = update.chat
        while true {
            let (accepted, wake) = state.withLock { state -> (Bool?, (CheckedContinuation<Work?, Never>, Work)?) in
                if state.closed { return (false, nil) }
                guard state.queued < capacity else { return (nil, nil) }
                state.lanes[chat, default: []].append(update)
                state.queued += 1
                if !state.busy.contains(chat), state.lanes[chat]?.count == 1 { state.ready.append(chat) }
                return (true, Self.assign(&state))
            }
            if let (worker, work) = wake { worker.resume(returning: work) }
            if let accepted { return accepted }
            let id = state.withLock { state in
                state.nextWaiterID += 1
                return state.nextWaiterID
            }
            let resumed = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state -> Bool in
                        if state.closed || state.queued < capacity || Task.isCancelled { return true }
                        state.waitingIntake = (id, continuation)
                        return false
                    }
                    if resumeNow { continuation.resume(returning: true) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                    guard state.waitingIntake?.id == id else { return nil }
                    defer { state.waitingIntake = nil }
                    return state.waitingIntake?.continuation
                }
                waiter?.resume(returning: true)
            }
            guard resumed, !Task.isCancelled else { return false }
        }
    }

    /// The next update for a worker, or nil once the queue is closed. The update's chat is
    /// the worker's until it calls `done(chat:)`.
    func next() async -> Work? {
        // Without a suspension when an update is ready, as in a burst.
        let ready = state.withLock { state -> (work: Work?, id: Int) in
            if !state.closed, !Task.isCancelled, let work = Self.take(&state) { return (work, 0) }
            state.nextWaiterID += 1
            return (nil, state.nextWaiterID)
        }
        if let work = ready.work { return work }
        let id = ready.id
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let outcome = state.withLock { state -> Work?? in
                    if state.closed || Task.isCancelled { return .some(nil) }
                    if let work = Self.take(&state) { return .some(work) }
                    state.idleWorkers.append((id, continuation))
                    return .none
                }
                if case .some(let work) = outcome { continuation.resume(returning: work) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Work?, Never>? in
                guard let index = state.idleWorkers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.idleWorkers.remove(at: index).continuation
            }
            waiter?.resume(returning: nil)
        }
    }

    /// A worker finished an update of `chat`; the chat's next update may go to any worker.
    func done(chat: Int64) {
        let (worker, intake) = state.withLock { state in
            state.busy.remove(chat)
            if state.lanes[chat]?.isEmpty == false { state.ready.append(chat) }
            let intake = state.queued < capacity ? state.waitingIntake.take()?.continuation : nil
            return (Self.assign(&state), intake)
        }
        if let (continuation, work) = worker { continuation.resume(returning: work) }
        intake?.resume(returning: true)
    }

    /// Stops the queue: idle workers and a waiting intake are released, nothing new is taken.
    func close() {
        let (workers, intake) = state.withLock { state in
            state.closed = true
            defer { state.idleWorkers = [] }
            return (state.idleWorkers.map(\.continuation), state.waitingIntake.take()?.continuation)
        }
        for worker in workers { worker.resume(returning: nil) }
        intake?.resume(returning: false)
    }

    /// Takes the first update of the first ready chat, marking the chat busy.
    private static func take(_ state: inout State) -> Work? {
        guard let chat = state.ready.popFirst(), let update = state.lanes[chat]?.popFirst() else { return nil }
        if state.lanes[chat]?.isEmpty == true { state.lanes[chat] = nil }
        state.busy.insert(chat)
        state.queued -= 1
        return update
    }

    /// Hands ready work to an idle worker, if both exist.
    private static func assign(_ state: inout State) -> (CheckedContinuation<Work?, Never>, Work)? {
        guard !state.closed, !state.idleWorkers.isEmpty, let work = take(&state) else { return nil }
        return (state.idleWorkers.removeFirst().continuation, work)
    }
}
