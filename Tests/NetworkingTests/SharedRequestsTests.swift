import Networking
import Synchronization
import Testing
import TestSupport

@Suite struct SharedRequestsTests {
    @Test func callersOfTheSameKeyShareOneRequest() async throws {
        let shared = SharedRequests<String, Int>()
        let gate = Gate()
        let runs = Mutex(0)
        let work: @Sendable () async throws -> Int = {
            runs.withLock { $0 += 1 }
            await gate.wait()
            return 42
        }
        async let first = shared.value(for: "week", work)
        async let second = shared.value(for: "week", work)
        while shared.callers < 2 { await Task.yield() }
        await gate.open()
        #expect(try await [first, second] == [42, 42])
        #expect(runs.withLock { $0 } == 1)
        #expect(shared.callers == 0)
    }

    @Test func aCancelledCallerStopsWaitingAndTheOthersStillGetTheAnswer() async throws {
        let shared = SharedRequests<String, Int>()
        let gate = Gate()
        let work: @Sendable () async throws -> Int = {
            await gate.wait()
            return 7
        }
        let leaving = Task { try await shared.value(for: "week", work) }
        let staying = Task { try await shared.value(for: "week", work) }
        while shared.callers < 2 { await Task.yield() }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        await gate.open()
        #expect(try await staying.value == 7)
    }

    @Test func theLastCallerToLeaveCancelsTheWork() async throws {
        let shared = SharedRequests<String, Int>()
        let started = Gate()
        let work: @Sendable () async throws -> Int = {
            await started.open()
            // Ends only by cancellation: a request nobody waits for must not run on.
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
        let only = Task { try await shared.value(for: "week", work) }
        await started.wait()
        only.cancel()
        await #expect(throws: CancellationError.self) { try await only.value }
        #expect(shared.callers == 0)
        // A new caller starts afresh rather than joining the cancelled work.
        #expect(try await shared.value(for: "week") { 1 } == 1)
    }
}
