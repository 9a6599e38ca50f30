import Foundation

/// The store inside one transaction, as its SQL engine runs it: everything above the engine
/// (`StoreTransaction`, the journal, the outbox, the pruner, the Last.fm cache) speaks to the
/// database through this alone, in SQL both engines accept (`?` placeholders, upserts by
/// `ON CONFLICT`, no row ids, no `RETURNING` where a statement runs per message).
/// Synchronous: a body runs whole on the thread the engine gives it, as a commit's writes do
/// today.
protocol StoreSession {
    /// Runs a statement; returns how many rows it changed. Its SQL is prepared once per
    /// connection and kept, keyed by its text.
    func execute(_ sql: String, _ arguments: [StoreValue]) throws -> Int

    /// Runs an `INSERT` of one row into a table keyed by an `id` the database numbers, and
    /// returns that id. Not by `RETURNING`: SQLite gathers a statement's returned rows in a
    /// table of their own, made and zeroed for every run.
    func insert(_ sql: String, _ arguments: [StoreValue]) throws -> Int64

    /// Runs a query and returns its rows. With `keepPrepared` false the statement is not kept:
    /// for SQL made anew for each call (a list of ids), which would fill the cache.
    func rows(_ sql: String, _ arguments: [StoreValue], keepPrepared: Bool) throws -> [StoreRow]

    /// The names of the store's tables, the engine's own left out.
    func tableNames() throws -> [String]

    /// Runs `action` once the transaction under way ends, committed or rolled back.
    func afterTransaction(_ action: @escaping @Sendable () -> Void)
}

extension StoreSession {
    func rows(_ sql: String, _ arguments: [StoreValue] = []) throws -> [StoreRow] {
        try rows(sql, arguments, keepPrepared: true)
    }

    /// The first column of the first row, or nil when there is no row.
    func value<T: StoreValueConvertible>(_ sql: String, _ arguments: [StoreValue] = []) throws -> T? {
        try rows(sql, arguments).first.map { try $0.get(0) }
    }

    /// The first column of every row.
    func column<T: StoreValueConvertible>(_ sql: String, _ arguments: [StoreValue] = [], keepPrepared: Bool = true) throws -> [T] {
        try rows(sql, arguments, keepPrepared: keepPrepared).map { try $0.get(0) }
    }

    /// Whether the store has a table of this name (in any case).
    func tableExists(_ name: String) throws -> Bool {
        try tableNames().contains { $0.lowercased() == name.lowercased() }
    }
}

/// An SQL engine the store runs on: how it writes and reads, and what only it can tell.
protocol StoreEngine: Sendable {
    /// Runs `body` in a transaction, possibly shared with other writes asked for meanwhile
    /// (it may then run twice, the first time rolled back: it must do nothing but database
    /// work). Returns once committed, and durable unless `synced` is false.
    func write<T: Sendable>(synced: Bool, _ body: @escaping @Sendable (any StoreSession) throws -> T) async throws -> T

    /// Runs `body` in a snapshot of its own, on the calling thread.
    func read<T>(_ body: (any StoreSession) throws -> T) throws -> T

    /// Whether every migration this version knows has run.
    func hasCurrentSchema() throws -> Bool

    /// Throws unless the database takes a write now; changes nothing.
    func checkWritable() async throws

    /// The bytes the database takes on disk.
    func storageBytes() throws -> Int64

    /// Whether several bot processes (replicas) may share this database, each handling
    /// whatever updates are waiting in its journal.
    var servesReplicas: Bool { get }

    /// Takes the role `role` for this process if no other process on the database has it;
    /// nil if one has. A process that dies loses its roles at once.
    func takeTurn(_ role: StoreTurn.Role) async throws -> StoreTurn?
}

/// A role one process on the database has at a time, until it ends it or dies.
public struct StoreTurn: Sendable {
    public enum Role: Int64, Sendable {
        /// Polling Telegram: one `getUpdates` consumer per bot token.
        case poller = 0x76_69_6E_79_70
    }

    /// Whether the role is still this process's: false once its hold on the database is lost.
    public let isHeld: @Sendable () -> Bool
    /// Gives the role up.
    public let end: @Sendable () -> Void
}
