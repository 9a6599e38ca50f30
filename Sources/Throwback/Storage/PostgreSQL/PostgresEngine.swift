#if PostgreSQL
import Dispatch
import Logging
import PostgresNIO
import PostgresStore
import Synchronization

/// The store's PostgreSQL engine, for replicas that share one database (`DATABASE_URL`).
///
/// Statements run synchronously, as the store's bodies are written: each waits for its answer
/// on the thread that runs the body, never on one of NIO's event loops. Writes run one at a
/// time on a queue of their own, off the task pool; reads run on the calling thread, each on
/// a connection of its own, in a snapshot (`REPEATABLE READ`).
///
/// Every write transaction first takes one transaction-scoped advisory lock, so that writes
/// are serialized across every process on the database, as SQLite serializes them: what the
/// store's logic proves for several processes on one SQLite file (one sender per chat, one
/// weekly post per chat and week, an update handled once) holds for replicas unchanged.
final class PostgresEngine: StoreEngine {
    /// The advisory lock every write transaction holds: any 64-bit number no other program on
    /// the database uses ("vinyl" in ASCII).
    static let writeLock: Int64 = 0x76_69_6E_79_6C

    /// Connections kept open between statements; more are opened while reads overlap.
    private static let idleLimit = 4

    private let url: PostgresURL
    private let logger: Logger
    private let idle = Mutex<[PostgresConnection]>([])
    private let writes = DispatchQueue(label: "vinylogue.store.postgres-writes")
    private let texts = PostgresStatementTexts()

    /// Opens the database at `url` and migrates it unless `migrating` is false; warns once if
    /// its connections may cross a network unencrypted.
    static func open(url: PostgresURL, migrating: Bool, logger: Logger) async throws -> PostgresEngine {
        url.warnIfPlaintext(logger)
        let engine = PostgresEngine(url: url, logger: logger)
        try await engine.onWriteQueue {
            if migrating {
                try engine.transaction(writing: true) { session in try Self.migrate(session) }
            } else {
                // Reached and answering: a health check or a view fails here, with the reason.
                try engine.transaction(writing: false) { session in try session.run("SELECT 1") }
            }
        }
        return engine
    }

    private init(url: PostgresURL, logger: Logger) {
        self.url = url
        self.logger = logger
    }

    deinit {
        for connection in idle.withLock({ $0 }) { Self.close(connection) }
    }

    func write<T: Sendable>(synced: Bool, _ body: @escaping @Sendable (any StoreSession) throws -> T) async throws -> T {
        try await onWriteQueue { try self.transaction(writing: true, synced: synced, body) }
    }

    func read<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        try transaction(writing: false, body)
    }

    func hasCurrentSchema() throws -> Bool {
        try read { session in try Self.hasCompletedMigrations(session) }
    }

    /// A write transaction that is rolled back: on a read-only server (a standby), the update fails.
    func checkWritable() async throws {
        struct Rollback: Error {}
        do {
            try await write(synced: false) { session in
                _ = try session.execute("UPDATE updateOffset SET nextOffset = nextOffset WHERE id = 1", [])
                throw Rollback()
            }
        } catch is Rollback {}
    }

    /// The whole database's size, as PostgreSQL counts it (tables, indexes, and their free space).
    func storageBytes() throws -> Int64 {
        try read { session in try session.value("SELECT pg_database_size(current_database())") ?? 0 }
    }

    var servesReplicas: Bool { true }

    /// A session advisory lock on a connection of the turn's own: PostgreSQL frees it when the
    /// connection ends, so a replica that dies gives its turn up at once.
    func takeTurn(_ role: StoreTurn.Role) async throws -> StoreTurn? {
        let (url, logger, texts) = (url, logger, texts)
        // Off the write queue too: opening a connection waits for the server.
        let connection = try await Self.run(on: .global()) { () -> PostgresConnection? in
            let connection = try url.connectWaiting(logger: logger)
            let held: Bool
            do {
                held = try PostgresSession(connection: connection, texts: texts, logger: logger)
                    .value("SELECT pg_try_advisory_lock(?)", [.integer(role.rawValue)]) == true
            } catch {
                Self.close(connection)
                throw error
            }
            if !held { Self.close(connection) }
            return held ? connection : nil
        }
        guard let connection else { return nil }
        return StoreTurn(isHeld: { !connection.isClosed }, end: { Self.close(connection) })
    }

    /// Runs `work` on the write queue.
    private func onWriteQueue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await Self.run(on: writes, work)
    }

    /// Runs `work` on `queue`, off the task pool, whose few threads a wait would hold.
    private static func run<T: Sendable>(on queue: DispatchQueue, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs `body` in a transaction on a connection of its own: committed if it returns,
    /// rolled back if it throws.
    private func transaction<T>(writing: Bool, synced: Bool = true, _ body: (PostgresSession) throws -> T) throws -> T {
        let session = PostgresSession(connection: try takeConnection(), texts: texts, logger: logger)
        defer { giveBack(session.connection) }
        do {
            // Sent without waiting: the body's first statement waits for them.
            if writing {
                session.send("BEGIN")
                // Not syncing is PostgreSQL's own choice per transaction: a crash may lose it, never
                // corrupt it. Set with the lock, in one statement rather than two.
                session.send(synced
                    ? "SELECT pg_advisory_xact_lock(\(Self.writeLock))"
                    : "SELECT pg_advisory_xact_lock(\(Self.writeLock)), set_config('synchronous_commit', 'off', true)")
            } else {
                session.send("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            }
            let result = try body(session)
            // A read has nothing to commit: the next use of the connection finds it ended.
            if writing { try session.run("COMMIT") } else { session.send("COMMIT") }
            session.transactionEnded()
            return result
        } catch {
            // A connection that failed mid-way is closed, and so not given back.
            try? session.run("ROLLBACK")
            session.transactionEnded()
            throw error
        }
    }

    private func takeConnection() throws -> PostgresConnection {
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return connection }
        }
        return try url.connectWaiting(logger: logger)
    }

    private func giveBack(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        let kept = idle.withLock { idle in
            guard idle.count < Self.idleLimit else { return false }
            idle.append(connection)
            return true
        }
        if !kept { Self.close(connection) }
    }

    /// Closes `connection`, which stays referenced until it is closed (postgres-nio requires it).
    private static func close(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }
}
#endif
