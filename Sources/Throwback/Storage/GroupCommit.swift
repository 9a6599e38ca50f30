import GRDB
import Synchronization

/// Writes from many tasks committed together: every write asked for while the database is
/// busy joins the next transaction, each in a savepoint of its own, so that a burst of
/// replies costs one commit, and one fsync, instead of one each. A write that throws is
/// rolled back alone; a commit that fails fails every write it carried.
final class GroupCommit: Sendable {
    /// One write waiting for the next transaction.
    private struct Pending: Sendable {
        /// Runs the write in a savepoint; returns how to report it once the transaction is
        /// over, given the error that kept the transaction from committing, if any.
        var run: @Sendable (Database) -> @Sendable (_ commitFailure: (any Error)?) -> Void
        /// Reports a write that never ran.
        var fail: @Sendable (any Error) -> Void
    }

    private struct Queue: Sendable {
        var pending: [Pending] = []
        var scheduled = false
    }

    private let writer: any DatabaseWriter
    private let queue = Mutex(Queue())

    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Runs `body` in the next shared transaction and returns its result once committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let pending = Pending { db in
                let outcome: Result<T, any Error>
                do {
                    var value: T?
                    try db.inSavepoint {
                        value = try body(db)
                        return .commit
                    }
                    outcome = .success(value!)
                } catch {
                    outcome = .failure(error)
                }
                return { failure in continuation.resume(with: failure.map { .failure($0) } ?? outcome) }
            } fail: { error in
                continuation.resume(throwing: error)
            }
            let schedule = queue.withLock { queue in
                queue.pending.append(pending)
                defer { queue.scheduled = true }
                return !queue.scheduled
            }
            if schedule { commitNext() }
        }
    }

    /// Takes every write queued so far into one transaction on the writer's queue, and
    /// goes on while more arrive.
    private func commitNext() {
        writer.asyncWriteWithoutTransaction { [self] db in
            let batch = queue.withLock { queue in
                defer { queue.pending = [] }
                return queue.pending
            }
            var reports: [@Sendable ((any Error)?) -> Void] = []
            reports.reserveCapacity(batch.count)
            var failure: (any Error)?
            do {
                try db.inTransaction(.immediate) {
                    for pending in batch { reports.append(pending.run(db)) }
                    return .commit
                }
            } catch {
                failure = error
            }
            for report in reports { report(failure) }
            // Writes the transaction never reached (it could not begin) fail with its error.
            for pending in batch.dropFirst(reports.count) { pending.fail(failure ?? CancellationError()) }
            let more = queue.withLock { queue in
                queue.scheduled = !queue.pending.isEmpty
                return queue.scheduled
            }
            if more { commitNext() }
        }
    }
}
