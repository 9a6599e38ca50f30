import Dispatch
import GRDB
import GRDBSQLite
import Logging
import Synchronization

/// Writes from many tasks committed together: every write asked for while a commit is under
/// way joins the next transaction, so that a burst of replies costs one commit, and one
/// fsync, instead of one each.
///
/// The first writer to find no commit under way leads: it runs the transactions itself, on
/// its own thread, until no write is left, and then wakes the writers it served. So a write
/// that meets no other costs no hand-off to another thread. But the writer's thread is often
/// the one that drives every transfer, so it never waits for the disk: a batch that must be
/// synced, and any commit while another connection holds the write lock (another process's
/// `backup` or `post-weekly`), are led by the store's own thread instead, which syncs and
/// waits while polls and sends go on. Writes run without savepoints;
/// should one throw, its transaction is rolled back and each of its writes runs again on its
/// own, so that only the failing one fails. A write's body must therefore do nothing but
/// database work (it may run twice, the first time rolled back).
///
/// The writer connection runs with `synchronous=NORMAL`: a commit is written to the log and
/// not synced. A transaction one of whose writes asks for it is synced to disk right after
/// its commit, before any of its writers goes on, by the log's own `xSync` (what `FULL` does
/// inside the commit); a later synced commit carries the unsynced ones before it to disk
/// with its own, since the log is one file written in order. A write that nobody sees the
/// effect of before a synced one (an update's handled mark and its replies, which the
/// outbox's "sending" mark syncs before they go) spares the bot an `fsync`. (Switching the
/// `synchronous` setting per commit instead cost a `PRAGMA`, which SQLite compiles anew
/// every time it runs.)
final class GroupCommit: Sendable {
    private struct Queue: Sendable {
        var pending: [Write] = []
        var leading = false
    }

    private let writer: any DatabaseWriter
    private let queue = Mutex(Queue())
    /// Where commits are synced, and wait for a write lock another connection holds, so that
    /// no caller's thread does.
    private let committer = DispatchQueue(label: "vinylogue.store.commits")
    /// How many times the log was synced after a commit: for tests.
    private let logSyncs = Atomic<Int>(0)

    private let logger: Logger

    init(writer: any DatabaseWriter, logger: Logger = Logger(label: "store")) {
        self.writer = writer
        self.logger = logger
    }

    /// How many times a commit was followed by a sync of the log.
    var syncCount: Int { logSyncs.load(ordering: .relaxed) }

    /// Runs `body` in the next shared transaction and returns its result once committed, and
    /// once on disk unless `synced` is false.
    func write<T: Sendable>(synced: Bool = true, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let write = Write(synced: synced, body)
        let leads = queue.withLock { queue in
            queue.pending.append(write)
            defer { queue.leading = true }
            return !queue.leading
        }
        if leads {
            // Writers that are ready to run join this transaction: on one thread they would
            // otherwise commit one by one.
            await Task.yield()
            // Here while the write lock is free and no sync is due; then the store's own
            // thread commits the rest.
            if !commitAll(onStoreThread: false) {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    committer.async {
                        _ = self.commitAll(onStoreThread: true)
                        done.resume()
                    }
                }
            }
        } else {
            await write.committed()
        }
        // The body returned a T: nothing else is stored.
        return try write.result() as! T
    }

    /// Commits batch after batch until no write waits, then gives up the lead. Off the store's
    /// thread, it stops at a batch to be synced or a write lock another connection holds and
    /// returns false, the batch queued again and the lead kept.
    private func commitAll(onStoreThread: Bool) -> Bool {
        while let batch = nextBatch() {
            if !onStoreThread, batch.contains(where: \.synced) {
                requeue(batch)
                return false
            }
            do {
                try writer.writeWithoutTransaction { db in
                    try commit(batch, in: db, syncing: batch.contains { $0.synced }, onStoreThread: onStoreThread)
                }
                for write in batch { write.finish(nil) }
            } catch is LockTaken {
                requeue(batch)
                return false
            } catch where batch.count > 1 {
                for (index, write) in batch.enumerated() {
                    do {
                        try writer.writeWithoutTransaction { db in try commit([write], in: db, syncing: write.synced, onStoreThread: onStoreThread) }
                        write.finish(nil)
                    } catch is LockTaken {
                        requeue(Array(batch[index...]))
                        return false
                    } catch {
                        write.finish(error)
                    }
                }
            } catch {
                batch[0].finish(error)
            }
        }
        return true
    }

    /// Another connection held the write lock, and the commit was not to wait for it.
    private struct LockTaken: Error {}

    /// How long a connection waits for a lock another holds: its busy timeout.
    static let lockWait: Double = 5
    /// How long a commit on the store's thread waits for the write lock before its writes
    /// fail: longer than a connection's, since it holds up no other work, and its writers
    /// would rather be late than lost.
    static let commitLockWait: Double = 30

    private func requeue(_ writes: [Write]) {
        queue.withLock { $0.pending.insert(contentsOf: writes, at: 0) }
    }

    /// Runs `writes` in one transaction, begun and committed by statements prepared once
    /// (GRDB's `inTransaction` compiles both for every transaction); rolled back if any throws.
    /// `syncing` says whether the commit is synced to disk.
    private func commit(_ writes: [Write], in db: Database, syncing: Bool, onStoreThread: Bool) throws {
        // Only BEGIN waits for the lock: once it is taken, nothing else in the transaction does.
        sqlite3_busy_timeout(db.sqliteConnection, onStoreThread ? Int32(Self.commitLockWait * 1000) : 0)
        defer { sqlite3_busy_timeout(db.sqliteConnection, Int32(Self.lockWait * 1000)) }
        do {
            try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && !onStoreThread {
            throw LockTaken()
        }
        do {
            for write in writes { try write.run(db) }
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        } catch {
            // SQLite ends the transaction itself after some errors.
            if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
            throw error
        }
        if syncing { syncLog(of: db) }
    }

    /// Syncs the write-ahead log to disk, through the file SQLite writes it with: what a
    /// commit under `synchronous=FULL` does before it returns. A database in memory has no log.
    ///
    /// A failed sync cannot take the commit back, so its writes still count as done (running
    /// them again would do them twice); the disk is failing, and the log says so.
    private func syncLog(of db: Database) {
        var log: UnsafeMutablePointer<sqlite3_file>?
        let found = sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_JOURNAL_POINTER, &log)
        guard found == SQLITE_OK, let log, let sync = log.pointee.pMethods?.pointee.xSync else { return }
        let code = sync(log, SQLITE_SYNC_NORMAL)
        guard code == SQLITE_OK else {
            return logger.critical("could not sync the database's log to disk; a power cut could undo the last changes", metadata: [
                "code": "\(code)",
            ])
        }
        logSyncs.add(1, ordering: .relaxed)
    }

    private func nextBatch() -> [Write]? {
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

/// A write waiting for its commit. Not generic over its result, so that running and settling
/// one looks up no type at run time.
private final class Write: Sendable {
    private enum State {
        /// Not committed yet: the body's value in the transaction under way, and the
        /// continuation of a writer waiting for the commit.
        case waiting(value: (any Sendable)?, waiter: CheckedContinuation<Void, Never>?)
        case finished(Result<any Sendable, any Error>)
    }

    /// Whether its commit must be on disk before the writer goes on.
    let synced: Bool
    private let body: @Sendable (Database) throws -> any Sendable
    private let state = Mutex(State.waiting(value: nil, waiter: nil))

    init(synced: Bool, _ body: @escaping @Sendable (Database) throws -> any Sendable) {
        self.synced = synced
        self.body = body
    }

    func run(_ db: Database) throws {
        let result = try body(db)
        state.withLock { state in
            if case .waiting(_, let waiter) = state { state = .waiting(value: result, waiter: waiter) }
        }
    }

    /// Settles it: committed (nil) or failed.
    func finish(_ failure: (any Error)?) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard case .waiting(let value, let waiter) = state else { return nil }
            state = .finished(failure.map { .failure($0) } ?? value.map { .success($0) } ?? .failure(CancellationError()))
            return waiter
        }
        waiter?.resume()
    }

    /// Returns once the write is settled.
    func committed() async {
        await withCheckedContinuation { continuation in
            let settled = state.withLock { state -> Bool in
                guard case .waiting(let value, _) = state else { return true }
                state = .waiting(value: value, waiter: continuation)
                return false
            }
            if settled { continuation.resume() }
        }
    }

    func result() throws -> any Sendable {
        guard case .finished(let outcome) = state.withLock({ $0 }) else { throw CancellationError() }
        return try outcome.get()
    }
}
