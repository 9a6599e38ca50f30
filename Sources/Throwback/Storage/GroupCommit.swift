import GRDB
import Synchronization

/// Writes from many tasks committed together: every write asked for while a commit is under
/// way joins the next transaction, so that a burst of replies costs one commit, and one
/// fsync, instead of one each.
///
/// The first writer to find no commit under way leads: it runs the transactions itself, on
/// its own thread, until no write is left, and then wakes the writers it served. So a write
/// that meets no other costs no hand-off to another thread. Writes run without savepoints;
/// should one throw, its transaction is rolled back and each of its writes runs again on its
/// own, so that only the failing one fails. A write's body must therefore do nothing but
/// database work (it may run twice, the first time rolled back).
final class GroupCommit: Sendable {
    private struct Queue: Sendable {
        var pending: [any PendingWrite] = []
        var leading = false
    }

    private let writer: any DatabaseWriter
    private let queue = Mutex(Queue())

    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Runs `body` in the next shared transaction and returns its result once committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let write = Write(body)
        let leads = queue.withLock { queue in
            queue.pending.append(write)
            defer { queue.leading = true }
            return !queue.leading
        }
        if leads {
            // Writers that are ready to run join this transaction: on one thread they would
            // otherwise commit one by one.
            await Task.yield()
            commitAll()
        } else {
            await write.committed()
        }
        return try write.result()
    }

    /// Commits batch after batch until no write waits, then gives up the lead.
    private func commitAll() {
        while let batch = nextBatch() {
            do {
                try writer.writeWithoutTransaction { db in
                    try db.inTransaction(.immediate) {
                        for write in batch { try write.run(db) }
                        return .commit
                    }
                }
                for write in batch { write.finish(nil) }
            } catch where batch.count > 1 {
                for write in batch {
                    do {
                        try writer.writeWithoutTransaction { db in
                            try db.inTransaction(.immediate) {
                                try write.run(db)
                                return .commit
                            }
                        }
                        write.finish(nil)
                    } catch {
                        write.finish(error)
                    }
                }
            } catch {
                batch[0].finish(error)
            }
        }
    }

    private func nextBatch() -> [any PendingWrite]? {
        queue.withLock { queue in
            guard !queue.pending.isEmpty else {
                queue.leading = false
                return nil
            }
            defer { queue.pending = [] }
            return queue.pending
        }
    }
}

/// A write waiting for its commit.
private protocol PendingWrite: AnyObject, Sendable {
    func run(_ db: Database) throws
    /// Settles it: committed (nil) or failed.
    func finish(_ failure: (any Error)?)
}

private final class Write<T: Sendable>: PendingWrite {
    private enum State {
        /// Not committed yet; the continuation of a writer waiting for it.
        case waiting(CheckedContinuation<Void, Never>?)
        case finished(Result<T, any Error>)
    }

    private let body: @Sendable (Database) throws -> T
    /// The body's value in the transaction under way.
    private let value = Mutex<T?>(nil)
    private let state = Mutex(State.waiting(nil))

    init(_ body: @escaping @Sendable (Database) throws -> T) {
        self.body = body
    }

    func run(_ db: Database) throws {
        let result = try body(db)
        value.withLock { $0 = result }
    }

    func finish(_ failure: (any Error)?) {
        let outcome: Result<T, any Error> = failure.map { .failure($0) } ?? value.withLock { value in value.map { .success($0) } }
            ?? .failure(CancellationError())
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state = .finished(outcome) }
            if case .waiting(let waiter) = state { return waiter }
            return nil
        }
        waiter?.resume()
    }

    /// Returns once the write is settled.
    func committed() async {
        await withCheckedContinuation { continuation in
            let settled = state.withLock { state -> Bool in
                if case .finished = state { return true }
                state = .waiting(continuation)
                return false
            }
            if settled { continuation.resume() }
        }
    }

    func result() throws -> T {
        guard case .finished(let outcome) = state.withLock({ $0 }) else { throw CancellationError() }
        return try outcome.get()
    }
}
