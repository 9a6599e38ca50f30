import CSQLiteSettings
import Foundation
import GRDB
import Telegram

/// The bot's SQLite database: rosters, account links, chat settings, the update journal,
/// the outbox, the Last.fm cache, weekly posts and stored button names. On disk, WAL mode
/// with a single writer (a `DatabasePool`; in memory, a `DatabaseQueue`); migrations are
/// explicit and append-only (`BotStore+Migrations`).
///
/// Every change goes through `write`, whose body sees the store as a `StoreTransaction`:
/// what one update changes, the update's handled mark and the messages it enqueues commit
/// together or not at all. Writes asked for at the same moment share one commit.
public struct BotStore: Sendable {
    let database: any DatabaseWriter
    private let commits: GroupCommit
    /// Chat settings read lately: every throwback needs its chat's filter and covers setting,
    /// and a read is a thread hop. Writes through this store clear an entry; a change made by
    /// another process (`post-weekly`) is seen within `SettingsCache.lifetime`.
    let recentSettings = SettingsCache()
    /// Cached rows read lately, marked used by the next pruning (`StoragePruner`).
    let recentUse = RecentUse()

    /// Opens (creating if needed) the database at `path`, and migrates it unless `migrating`
    /// is false: a health check or a backup by a newer binary must not change the schema
    /// under the bot that is running.
    public init(path: String, migrating: Bool = true) throws {
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

    /// Opens the database at `path` as it is, for reading only: nothing is created (a missing
    /// file is an error), migrated or written, and a write throws. For the operator's views
    /// (`chats`, `post-weekly --dry-run`), which WAL mode lets read beside the running bot.
    public static func readOnly(path: String) throws -> BotStore {
        _ = Self.configureSQLite
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(GroupCommit.lockWait)
        configuration.maximumReaderCount = 2
        return try BotStore(writer: DatabasePool(path: path, configuration: configuration), migrating: false)
    }

    /// Whether every migration this version knows has run: false for a database an older
    /// version made, whose tables may lack a column this one reads.
    public func hasCurrentSchema() throws -> Bool {
        try readHere { db in try Self.migrator.hasCompletedMigrations(db) }
    }

    /// Settings for the whole process, made before its first connection (later, SQLite
    /// refuses them, and keeps its defaults).
    private static let configureSQLite: Void = {
        _ = csqlite_disable_memory_statistics()
    }()

    private init(writer: any DatabaseWriter, migrating: Bool = true) throws {
        database = writer
        commits = GroupCommit(writer: writer)
        if migrating { try Self.migrator.migrate(database) }
    }

    /// How many commits were synced to disk after they were written (for tests).
    var logSyncCount: Int { commits.syncCount }

    /// A database that lives in memory only, for the console and tests.
    public static func inMemory() throws -> BotStore {
        _ = Self.configureSQLite
        return try BotStore(writer: DatabaseQueue())
    }

    /// Runs `body` in a transaction shared with the other writes asked for meanwhile: if it
    /// throws, none of its changes are kept. Returns once the transaction is committed, and
    /// synced to disk unless `synced` is false: a write nobody sees the effect of before a
    /// later synced one may leave the syncing to it (see `GroupCommit`).
    public func write<T: Sendable>(synced: Bool = true, _ body: @escaping @Sendable (StoreTransaction) throws -> T) async throws -> T {
        try await commits.write(synced: synced) { [self] db in try body(StoreTransaction(db: db, store: self)) }
    }

    /// Reads in a snapshot of its own, on the calling thread: the bot's reads are small, and
    /// handing each to a reader's queue and back cost two thread switches, more than the read.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try readHere(body)
    }

    /// GRDB's blocking read: from a synchronous function, so that its async overload is not chosen.
    func readHere<T>(_ body: (Database) throws -> T) throws -> T {
        try database.read(body)
    }

    // MARK: Operations

    /// Throws unless the database takes a write now (a write transaction that is rolled back).
    public func checkWritable() async throws {
        try await database.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                try db.execute(sql: "UPDATE updateOffset SET nextOffset = nextOffset WHERE id = 1")
                return .rollback
            }
        }
    }

    /// Copies the whole database to `path` with SQLite's online backup, while the bot runs.
    public func backup(to path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(GroupCommit.lockWait)
        let destination = try DatabaseQueue(path: path, configuration: configuration)
        try database.backup(to: destination)
        try destination.close()
    }

    // MARK: Chats

    public func settings(for chat: Int64) async throws -> ChatSettings {
        if let cached = recentSettings[chat] { return cached }
        let settings = try await read { db in try Self.storedSettings(of: [chat], in: db).first } ?? ChatSettings(id: chat)
        recentSettings.keep(settings)
        return settings
    }

    /// Reads the settings of many chats at once, for `settings(for:)` to find in memory: a
    /// poll's batch of commands from many chats costs one read, not one per chat.
    public func preloadSettings(for chats: Set<Int64>) async throws {
        let missing = chats.filter { recentSettings[$0] == nil }
        guard !missing.isEmpty else { return }
        // One snapshot for the batch: its statements then share one read lock.
        let stored = try await read { db in try Self.storedSettings(of: missing, in: db) }
        let byID = Dictionary(stored.map { ($0.id, $0) }) { first, _ in first }
        for chat in missing {
            recentSettings.keep(byID[chat] ?? ChatSettings(id: chat))
        }
    }

    /// The stored settings of these chats, each read by one prepared statement: a query for
    /// the whole set would be written and compiled anew for every batch.
    private static func storedSettings(of chats: some Sequence<Int64>, in db: Database) throws -> [ChatSettings] {
        let statement = try db.cachedStatement(sql: "SELECT * FROM chat WHERE id = ?")
        return try chats.compactMap { chat in try ChatSettings.fetchOne(statement, arguments: [chat]) }
    }

    /// Changes a chat's settings, creating its row if needed.
    public func updateSettings(for chat: Int64, _ change: @escaping @Sendable (inout ChatSettings) -> Void) async throws {
        _ = try await write { try $0.updateSettings(for: chat, change) }
    }

    /// Every chat with a settings row, for the weekly scheduler.
    public func allSettings() async throws -> [ChatSettings] {
        try await read { db in try ChatSettings.fetchAll(db) }
    }

    /// Every chat with settings of its own or a roster, in id order.
    public func knownChats() async throws -> [Int64] {
        try await read { db in try Int64.fetchAll(db, sql: "SELECT id FROM chat UNION SELECT chatID FROM rosterEntry ORDER BY 1") }
    }

    /// A group became a supergroup: everything stored for the old id moves to the new one.
    public func migrateChat(from old: Int64, to new: Int64) async throws {
        try await write { try $0.migrateChat(from: old, to: new) }
    }

    // MARK: Rosters, links, buttons, collages

    public func roster(of chat: Int64) async throws -> [RosterEntry] {
        try await read { db in try StoreTransaction.roster(of: chat, in: db) }
    }

    /// Adds names not already on the roster, up to `limit` entries in all.
    /// Returns the names added, in the order given.
    public func addToRoster(_ names: [String], chat: Int64, limit: Int) async throws -> [String] {
        try await write { try $0.addToRoster(names, chat: chat, limit: limit) }
    }

    public func link(telegramUser: Int64, to lastFMName: String) async throws {
        try await write { try $0.link(telegramUser: telegramUser, to: lastFMName) }
    }

    public func linkedName(of telegramUser: Int64) async throws -> String? {
        try await read { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT lastFMName FROM accountLink WHERE telegramUserID = ?"), arguments: [telegramUser])
        }
    }

    public func buttonName(key: String) async throws -> String? {
        try await read { db in try String.fetchOne(db.cachedStatement(sql: "SELECT name FROM buttonName WHERE key = ?"), arguments: [key]) }
    }

    /// The Telegram `file_id` of a collage already uploaded for this user, week and filter.
    public func collageFileID(_ key: CollageKey) async throws -> String? {
        try await read { db in
            try String.fetchOne(
                db.cachedStatement(sql: "SELECT fileID FROM collagePhoto WHERE \(CollageKey.condition)"), arguments: key.arguments
            )
        }
    }

    /// A collage's stored `file_id` was used again: the next pruning keeps it for longer.
    public func noteCollageUsed(_ key: CollageKey) {
        recentUse.noteCollage(key)
    }

    /// Remembers the `file_id` Telegram gave an uploaded collage, so it is never uploaded again.
    public func saveCollageFileID(_ fileID: String, for key: CollageKey, at date: Date) async throws {
        try await write { try $0.saveCollageFileID(fileID, for: key, at: date) }
    }

    /// Forgets a `file_id` Telegram no longer accepts.
    public func forgetCollageFileID(_ key: CollageKey) async throws {
        try await write { try $0.forgetCollageFileID(key) }
    }
}

extension CollageKey {
    /// The `collagePhoto` row of a key, with `arguments` in this order.
    static let condition = "user = ? AND week = ? AND minimumPlayCount = ?"

    var arguments: StatementArguments { [user, week, minimumPlayCount] }
}
