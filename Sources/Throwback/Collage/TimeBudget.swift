import Synchronization

/// Runs `operation` for at most `budget` on `clock`: its result, or nil once the budget is
/// spent (the operation is then cancelled and left to finish on its own, so a render that
/// cannot be interrupted never holds up the caller). Cancelling the caller cancels both.
func withinBudget<T: Sendable>(
    _ budget: Duration, clock: any Clock<Duration>, _ operation: @escaping @Sendable () async -> T?
) async -> T? {
    let race = BudgetRace<T>()
    let work = Task { race.finish(await operation()) }
    let timer = Task {
        // Cancelled when the work finished first; either way, the first to finish decides.
        try? await clock.sleep(for: budget)
        race.finish(nil)
    }
    let cancelBoth: @Sendable () -> Void = { work.cancel(); timer.cancel() }
    return await withTaskCancellationHandler {
        let value = await race.value()
        cancelBoth()
        return value
    } onCancel: {
        cancelBoth()
    }
}

/// The first of two finishers wins; the waiter may arrive before or after it.
private final class BudgetRace<T: Sendable>: Sendable {
    private enum State {
        case running
        case waiting(CheckedContinuation<T?, Never>)
        case finished(T?)
        case delivered
    }

    private let state = Mutex(State.running)

    func finish(_ value: T?) {
        let waiter: CheckedContinuation<T?, Never>? = state.withLock { state in
            switch state {
            case .running:
                state = .finished(value)
                return nil
            case .waiting(let continuation):
                state = .delivered
                return continuation
            case .finished, .delivered:
                return nil
            }
        }
        waiter?.resume(returning: value)
    }

    func value() async -> T? {
        await withCheckedContinuation { continuation in
            let ready: T?? = state.withLock { state in
                if case .finished(let value) = state {
                    state = .delivered
                    return .some(value)
                }
                state = .waiting(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
