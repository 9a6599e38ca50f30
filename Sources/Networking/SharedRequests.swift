import Synchronization

/// Requests in flight, shared by key: a caller that asks for what another caller is already
/// fetching waits for that answer instead of asking the service again. So two chats that ask
/// for the same cold week at the same moment cost one chain of requests, not two.
///
/// The shared work runs in its own task, so cancelling one caller never cancels the answer
/// the others wait for (that caller still waits for the work to end, which the clients bound
/// with their timeouts). The entry goes when the work ends: nothing is cached here.
public final class SharedRequests<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct InFlight {
        var task: Task<Value, any Error>
        var callers: Int
    }

    private let running = Mutex<[Key: InFlight]>([:])

    public init() {}

    /// The answer for `key`: from the request already in flight, or from `work`.
    public func value(for key: Key, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = running.withLock { running in
            if let existing = running[key] {
                running[key]?.callers += 1
                return existing.task
            }
            let task = Task { try await work() }
            running[key] = InFlight(task: task, callers: 1)
            return task
        }
        defer { leave(task, for: key) }
        return try await task.value
    }

    /// Callers waiting for requests in flight, all keys together: for tests and metrics.
    public var callers: Int { running.withLock { $0.values.reduce(0) { $0 + $1.callers } } }

    private func leave(_ task: Task<Value, any Error>, for key: Key) {
        running.withLock { running in
            // Only this very task: a later request under the same key is not touched.
            guard let entry = running[key], entry.task == task else { return }
            running[key] = entry.callers > 1 ? InFlight(task: task, callers: entry.callers - 1) : nil
        }
    }
}
