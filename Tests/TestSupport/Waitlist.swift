import Synchronization

/// Tests waiting for a fake to reach a state, such as "three `sendMessage` calls".
///
/// A wait ends when its condition is met or when its task is cancelled, which is what a
/// suite's `.timeLimit` does: a wrong expectation then fails the test with a thrown
/// `CancellationError` instead of hanging the whole run.
public final class Waitlist<Condition: Sendable>: Sendable {
    private struct Entry {
        let condition: Condition
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var nextID = 0
        var entries: [Int: Entry] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Suspends until `resume(where:)` finds `condition` met. Runs on the caller's actor, so
    /// that nothing the fake does can slip between the caller's check and this wait.
    public func wait(for condition: Condition, isolation: isolated (any Actor)? = #isolation) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Checked under the lock, so a cancellation is seen here or by `onCancel`.
                let cancelled = state.withLock { state in
                    if Task.isCancelled { return true }
                    state.entries[id] = Entry(condition: condition, continuation: continuation)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            state.withLock { $0.entries.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Ends every wait whose condition `isMet` says is met now.
    public func resume(where isMet: (Condition) -> Bool) {
        let ready = state.withLock { state in
            let ids = state.entries.filter { isMet($0.value.condition) }.map(\.key)
            return ids.compactMap { state.entries.removeValue(forKey: $0) }
        }
        for entry in ready { entry.continuation.resume() }
    }
}
