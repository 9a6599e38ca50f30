import Synchronization

/// Requests in flight, shared by key: a caller that asks for what another caller is already
/// fetching waits for that answer instead of asking the service again. So two chats that ask
/// for the same cold week at the same moment cost one chain of requests, not two.
///
/// The work runs in a task of its own and each caller waits on its own continuation, so a
/// cancelled caller stops waiting at once without taking the answer from the others; when
/// the last caller is gone the work is cancelled too, as an unshared request would be. The
/// entry goes when the work ends: nothing is cached here.
public final class SharedRequests<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Value, any Error>

    private struct InFlight {
        /// Tells this run from a later one under the same key.
        var run: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: Waiter]
    }

    private struct State {
        var running: [Key: InFlight] = [:]
        var lastID: UInt64 = 0

        mutating func nextID() -> UInt64 {
            lastID &+= 1
            return lastID
        }
    }

    private let state = Mutex(State())

    /// What a caller does once registered.
    private enum Step {
        case cancelled
        case joined
        case start(run: UInt64)
    }

    public init() {}

    /// The answer for `key`: from the request already in flight, or from `work`.
    /// Throws `CancellationError` as soon as the calling task is cancelled.
    public func value(for key: Key, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let id = state.withLock { $0.nextID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let step = state.withLock { state -> Step in
                    // Checked under the lock: a cancellation after this finds the waiter in `leave`.
                    if Task.isCancelled { return .cancelled }
                    if state.running[key] != nil {
                        state.running[key]?.waiters[id] = waiter
                        return .joined
                    }
                    let run = state.nextID()
                    state.running[key] = InFlight(run: run, task: nil, waiters: [id: waiter])
                    return .start(run: run)
                }
                switch step {
                case .cancelled:
                    waiter.resume(throwing: CancellationError())
                case .joined:
                    break
                case .start(let run):
                    let task = Task { [self] in
                        let result: Result<Value, any Error>
                        do { result = .success(try await work()) } catch { result = .failure(error) }
                        finish(key, run: run, with: result)
                    }
                    // Every caller may have gone before the task was stored (or it already
                    // finished): cancelling it then stops work nobody waits for, or does nothing.
                    let abandoned = state.withLock { state -> Bool in
                        guard state.running[key]?.run == run else { return true }
                        state.running[key]?.task = task
                        return false
                    }
                    if abandoned { task.cancel() }
                }
            }
        } onCancel: {
            leave(key, waiter: id)
        }
    }

    /// Callers waiting for requests in flight, all keys together: for tests and metrics.
    public var callers: Int { state.withLock { $0.running.values.reduce(0) { $0 + $1.waiters.count } } }

    /// Hands the answer to every caller still waiting for this run.
    private func finish(_ key: Key, run: UInt64, with result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [Waiter] in
            guard let entry = state.running[key], entry.run == run else { return [] }
            state.running[key] = nil
            return Array(entry.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// A caller was cancelled: it stops waiting; the last one to go cancels the work.
    private func leave(_ key: Key, waiter id: UInt64) {
        let (waiter, orphaned) = state.withLock { state -> (Waiter?, Task<Void, Never>?) in
            guard let waiter = state.running[key]?.waiters.removeValue(forKey: id) else { return (nil, nil) }
            guard state.running[key]?.waiters.isEmpty == true else { return (waiter, nil) }
            let task = state.running[key]?.task
            state.running[key] = nil
            return (waiter, task)
        }
        orphaned?.cancel()
        waiter?.resume(throwing: CancellationError())
    }
}
