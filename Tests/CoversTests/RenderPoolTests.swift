@testable import Covers
import Dispatch
import Synchronization
import Testing

/// Counts jobs running at once; each job blocks on `gate` until the test lets it finish,
/// so concurrency is observed without sleeping.
final class ConcurrencyProbe: Sendable {
    let running = Atomic<Int>(0)
    let maxRunning = Atomic<Int>(0)
    let completed = Atomic<Int>(0)
    let ranOnWorker = Atomic<Bool>(true)
    let gate = DispatchSemaphore(value: 0)

    func job(started: AsyncStream<Void>.Continuation) {
        let now = running.add(1, ordering: .sequentiallyConsistent).newValue
        maxRunning.max(now, ordering: .sequentiallyConsistent)
        if !RenderPool.isOnWorker { ranOnWorker.store(false, ordering: .sequentiallyConsistent) }
        started.yield()
        gate.wait()
        running.subtract(1, ordering: .sequentiallyConsistent)
        completed.add(1, ordering: .sequentiallyConsistent)
    }
}

@Suite(.timeLimit(.minutes(1))) struct RenderPoolTests {
    /// Busy-waits (yielding, not sleeping) until `condition` holds.
    static func until(_ condition: () -> Bool) async {
        while !condition() { await Task.yield() }
    }

    @Test func runsAtMostWidthJobsAtOnceAndQueuesTheRest() async throws {
        let pool = RenderPool(width: 2)
        let probe = ConcurrencyProbe()
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask { try await pool.run { probe.job(started: startedContinuation) } }
            }
            var starts = started.makeAsyncIterator()
            _ = await starts.next()
            _ = await starts.next()
            // Both workers are held at the gate; the other four must be waiting, not running.
            await Self.until { pool.waitingCount == 4 }
            #expect(probe.running.load(ordering: .sequentiallyConsistent) == 2)
            for _ in 0..<6 { probe.gate.signal() }
            try await group.waitForAll()
        }
        #expect(probe.completed.load(ordering: .sequentiallyConsistent) == 6)
        #expect(probe.maxRunning.load(ordering: .sequentiallyConsistent) == 2)
        let ranOnWorker = probe.ranOnWorker.load(ordering: .sequentiallyConsistent)
        #expect(ranOnWorker)
        #expect(!RenderPool.isOnWorker)
    }

    @Test func aWaitingCallerCanBeCancelled() async throws {
        let pool = RenderPool(width: 1)
        let probe = ConcurrencyProbe()
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let blocker = Task { try await pool.run { probe.job(started: startedContinuation) } }
        var starts = started.makeAsyncIterator()
        _ = await starts.next()

        let waiter = Task { try await pool.run { 42 } }
        await Self.until { pool.waitingCount == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(pool.waitingCount == 0)

        probe.gate.signal()
        try await blocker.value
        // The worker was released, and the pool still works.
        #expect(try await pool.run { 7 } == 7)
    }

    @Test func errorsFromTheWorkReachTheCaller() async {
        let pool = RenderPool(width: 1)
        await #expect(throws: CoverError.renderFailed) { try await pool.run { throw CoverError.renderFailed } }
        #expect(await (try? pool.run { 1 }) == 1)
    }
}
