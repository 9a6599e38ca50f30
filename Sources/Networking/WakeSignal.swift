import Synchronization

/// Wakes one waiting task: `notify()` ends the current `wait`, or the next one if nobody
/// waits yet (a notification is never lost, and several in a row count as one).
public final class WakeSignal: Sendable {
    private struct State: Sendable {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    public func notify() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiter = nil }
            if state.waiter == nil { state.pending = true }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns after the next `notify()`, at once if one came since the last wait, or on cancellation.
    public func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    /// Returns after the next `notify()`, or once `duration` has passed on `clock`.
    public func wait(for duration: Duration, on clock: ElapsedClock) async {
        guard duration > .zero else { return }
        await withTaskGroup(of: Void.self) { race in
            race.addTask { try? await clock.sleep(duration) }
            race.addTask { await self.wait() }
            await race.next()
            race.cancelAll()
        }
    }
}
