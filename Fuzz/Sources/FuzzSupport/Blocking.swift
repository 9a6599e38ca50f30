import Dispatch
import Synchronization

/// Runs async work to completion from a synchronous caller, such as libFuzzer's entry point.
///
/// The work runs in a detached task on the cooperative pool while the calling thread (never a
/// pool thread here) waits on a semaphore; the result travels back through a mutex.
public func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    switch blockingResult({ await body() }) {
    case .success(let value): value
    case .failure(let error): fatalError("fuzz harness: non-throwing work threw \(error)")
    }
}

/// The same, for work that throws: the value or the error, whatever it is.
public func blockingResult<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        box.put(result)
        done.signal()
    }
    done.wait()
    return box.take()
}

/// One result handed from the task to the waiting thread.
private final class ResultBox<T: Sendable>: Sendable {
    private let slot = Mutex<Result<T, any Error>?>(nil)

    func put(_ result: Result<T, any Error>) {
        slot.withLock { $0 = result }
    }

    func take() -> Result<T, any Error> {
        guard let result = slot.withLock({ $0.take() }) else {
            fatalError("fuzz harness: the task signalled without a result")
        }
        return result
    }
}
