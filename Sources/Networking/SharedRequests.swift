import Synchronization

/// Requests in flight, shared by key: a caller that asks for what another caller is already
/// fetching waits for that answer instead of asking the service again. So two chats that ask
/// for the same cold week at the same moment cost one chain of requests, not two.
///
/// The shared work runs in its own task, so cancelling one caller never cancels the answer
/// the others wait for (that caller still waits for the work to end, which the clients bound
/// with their timeouts). The entry goes when the work ends: nothing is cached here.
public final class SharedRequests<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let running = Mutex<[Key: Task<Value, any Error>]>([:])

    public init() {}

    /// The answer for `key`: from the request already in flight, or from `work`.
    public func value(for key: Key, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = running.withLock { running in
            if let existing = running[key] { return existing }
            let task = Task { try await work() }
            running[key] = task
            return task
        }
        defer { forget(task, for: key) }
        return try await task.value
    }

    /// How many requests are in flight, for tests.
    public var count: Int { running.withLock { $0.count } }

    private func forget(_ task: Task<Value, any Error>, for key: Key) {
        running.withLock { running in
            // Only this very task: a later request under the same key is not touched.
            if running[key] == task { running[key] = nil }
        }
    }
}
