import CSQLiteSettings
import Foundation
import GRDB

/// The store's SQLite engine, through GRDB: on disk, WAL mode with a single writer (a
/// `DatabasePool`; in memory, a `DatabaseQueue`), writes committed together by `GroupCommit`,
/// migrations explicit and append-only (`SQLiteEngine+Migrations`). What only SQLite does
/// lives here: its settings, its online backup, its files' size.
struct SQLiteEngine: StoreEngine {
    let database: any DatabaseWriter
    let commits: GroupCommit

    /// Opens (creating if needed) the database at `path`, and migrates it unless `migrating`
    /// is false.
    init(path: String, migrating: Bool) throws {
        _ = Self.configureSQLite
        var configuration = Configuration()
        // Another process (`post-weekly`, `backup`) may hold the write lock for a moment.
        configuration.busyMode = .timeout(GroupCommit.lockWait)
        // The bot reads little at a time; each reader connection costs memory, and so does
        // each connection's page cache (SQLite's default is up to 2 MiB), which the outbox's
        // passing rows would otherwise fill. A burst's inserts fill 128 KiB as fast as 512 KiB
        // and cost no more CPU for it (a page read again comes from the kernel's cache); the
        // larger cache was 0.4 MiB of a burst's peak.
        configuration.maximumReaderCount = 2
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -128") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        // GRDB puts a pool in WAL mode with synchronous=NORMAL, under which a power cut can
        // undo the last commits: a reply's "sending" mark among them, and the reply would go
        // out again. The migrations run with FULL, which syncs the log at every commit; then
        // `write` syncs the commits that ask for it (`GroupCommit`).
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try self.init(writer: pool, migrating: migrating)
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    }

    /// Opens the database at `path` as it is, for reading only: a missing file is an error,
    /// and a write throws.
    static func readOnly(path: String) throws -> SQLiteEngine {
        _ = Self.configureSQLite
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(GroupCommit.lockWait)
        configuration.maximumReaderCount = 2
        return try SQLiteEngine(writer: DatabasePool(path: path, configuration: configuration), migrating: false)
    }

    /// A database that lives in memory only.
    static func inMemory() throws -> SQLiteEngine {
        _ = Self.configureSQLite
        return try SQLiteEngine(writer: DatabaseQueue(), migrating: true)
    }

    /// Settings for the whole process, made before its first connection (later, SQLite
    /// refuses them, and keeps its defaults).
    private static let configureSQLite: Void = {
        _ = csqlite_disable_memory_statistics()
    }()

    private init(writer: any DatabaseWriter, migrating: Bool) throws {
        database = writer
        commits = GroupCommit(writer: writer)
        if migrating { try Self.migrator.migrate(database) }
    }

    func write<T: Sendable>(synced: Bool, _ body: @escaping @Sendable (any StoreSession) throws -> T) async throws -> T {
        try await commits.write(synced: synced) { db in try body(SQLiteSession(db: db)) }
    }

    /// GRDB's blocking read, on the calling thread: the bot's reads are small, and handing
    /// each to a reader's queue and back cost two thread switches, more than the read.
    func read<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        try database.read { db in try body(SQLiteSession(db: db)) }
    }

    func hasCurrentSchema() throws -> Bool {
        try database.read { db in try Self.migrator.hasCompletedMigrations(db) }
    }

    /// A write transaction that is rolled back.
    func checkWritable() async throws {
        try await database.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                try db.execute(sql: "UPDATE updateOffset SET nextOffset = nextOffset WHERE id = 1")
                return .rollback
            }
        }
    }

    /// The database file and its write-ahead log.
    func storageBytes() throws -> Int64 {
        let path = database.path
        return [path, path + "-wal"].reduce(Int64(0)) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }

    /// One bot process runs on a SQLite file (`post-weekly` beside it only posts).
    var servesReplicas: Bool { false }

    /// The one bot process on the file has every role.
    func takeTurn(_ role: StoreTurn.Role) async throws -> StoreTurn? {
        StoreTurn(isHeld: { true }, end: {})
    }

    /// Copies the whole database to `path` with SQLite's online backup, while the bot runs.
    func backup(to path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(GroupCommit.lockWait)
        let destination = try DatabaseQueue(path: path, configuration: configuration)
        try database.backup(to: destination)
        try destination.close()
    }
}

/// A GRDB connection as a `StoreSession`. Statements are GRDB's cached ones, prepared once per
/// connection; values are bound and rows read through SQLite's C API (`SQLiteStatementRun`):
/// GRDB's arguments box and convert each value first, which a profile of a burst found to
/// cost about 3% of the bot's CPU, for the outbox's few statements per message.
struct SQLiteSession: StoreSession {
    let db: Database

    func execute(_ sql: String, _ arguments: [StoreValue]) throws -> Int {
        try SQLiteStatementRun(db.cachedStatement(sql: sql), arguments).changes()
    }

    func insert(_ sql: String, _ arguments: [StoreValue]) throws -> Int64 {
        _ = try execute(sql, arguments)
        return db.lastInsertedRowID
    }

    func rows(_ sql: String, _ arguments: [StoreValue], keepPrepared: Bool) throws -> [StoreRow] {
        let statement = keepPrepared ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
        return try SQLiteStatementRun(statement, arguments).rows()
    }

    func tableNames() throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations' ORDER BY name
            """)
    }

    func afterTransaction(_ action: @escaping @Sendable () -> Void) {
        db.afterNextTransaction(onCommit: { _ in action() }, onRollback: { _ in action() })
    }
}
