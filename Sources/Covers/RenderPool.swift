import Dispatch
import Synchronization

/// Runs blocking work on a few dedicated dispatch queues, at most `width` jobs at a time.
///
/// Image work is CPU-bound and calls into C for tens of milliseconds; on Swift's cooperative
/// pool (one thread per core) it would hold up every other task, such as another chat's reply.
/// Callers beyond `width` wait in FIFO order without holding any thread, and a caller
/// cancelled while waiting leaves the queue at once with `CancellationError`.
final class RenderPool: Sendable {
    let width: Int
    private let queues: [DispatchQueue]
    private let state: Mutex<State>
    /// Marks the pool's own queues, so tests can check where work ran.
    private static let workerKey = DispatchSpecificKey<Int>()

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Int, any Error>
    }

    private struct State {
        var freeQueues: [Int]
        var waiters: [Waiter] = []
        var nextWaiterID: UInt64 = 0
    }

    init(width: Int, label: String = "covers.render") {
        self.width = max(1, width)
        queues = (0..<self.width).map { index in
            let queue = DispatchQueue(label: "\(label).\(index)", qos: .userInitiated)
            queue.setSpecific(key: Self.workerKey, value: index)
            return queue
        }
        state = Mutex(State(freeQueues: Array((0..<self.width).reversed())))
    }

    /// Whether the caller is running on one of the pools' worker queues.
    static var isOnWorker: Bool { DispatchQueue.getSpecific(key: workerKey) != nil }

    /// Jobs waiting for a free worker (for tests and diagnostics).
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Runs `work` on a free worker queue, first waiting for one if all are busy.
    /// Once started, `work` runs to the end: C code cannot be interrupted safely.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let index = try await acquire()
        defer { release(index) }
        // A caller cancelled while its turn was being handed over needs no render.
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            queues[index].async {
                continuation.resume(with: Result { try work() })
            }
        }
    }

    private func acquire() async throws -> Int {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                // Decide under the lock, resume outside it: resuming runs no code of ours,
                // but keeping the critical section minimal is the simplest rule to audit.
                let decision: Result<Int, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let free = state.freeQueues.popLast() { return .success(free) }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let decision { continuation.resume(with: decision) }
            }
        } onCancel: {
            // If the waiter is not queued yet, the `Task.isCancelled` check above catches it:
            // that check and this removal both happen under the lock.
            let cancelled = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Hands the worker straight to the longest waiter, or marks it free.
    private func release(_ index: Int) {
        let next: Waiter? = state.withLock { state in
            if state.waiters.isEmpty {
                state.freeQueues.append(index)
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.continuation.resume(returning: index)
    }
}
