import Foundation
import Telegram

/// The bot's database: rosters, account links, chat settings, the update journal, the
/// outbox, the Last.fm cache, weekly posts and stored button names. Its logic speaks to an
/// SQL engine only through `StoreEngine` and `StoreSession`; the engine today is SQLite
/// (`SQLiteEngine`), and migrations are explicit and append-only.
///
/// Every change goes through `write`, whose body sees the store as a `StoreTransaction`:
/// what one update changes, the update's handled mark and the messages it enqueues commit
/// together or not at all. Writes asked for at the same moment share one commit.
public struct BotStore: Sendable {
    let engine: any StoreEngine
    /// Chat settings read lately: every throwback needs its chat's filter and covers setting,
    /// and a read is a thread hop. Writes through this store clear an entry; a change made by
    /// another process (`post-weekly`) is seen within `SettingsCache.lifetime`.
    let recentSettings = SettingsCache()
    /// Cached rows read lately, marked used by the next pruning (`StoragePruner`).
    let recentUse = RecentUse()

    /// Opens (creating if needed) the SQLite database at `path`, and migrates it unless
    /// `migrating` is false: a health check or a backup by a newer binary must not change the
    /// schema under the bot that is running.
    public init(path: String, migrating: Bool = true) throws {
        self.init(engine: try SQLiteEngine(path: path, migrating: migrating))
    }

    /// Opens the database at `path` as it is, for reading only: nothing is created (a missing
    /// file is an error), migrated or written, and a write throws. For the operator's views
    /// (`chats`, `post-weekly --dry-run`), which WAL mode lets read beside the running bot.
    public static func readOnly(path: String) throws -> BotStore {
        BotStore(engine: try SQLiteEngine.readOnly(path: path))
    }

    /// A database that lives in memory only, for the console and tests.
    public static func inMemory() throws -> BotStore {
        BotStore(engine: try SQLiteEngine.inMemory())
    }

    init(engine: any StoreEngine) {
        self.engine = engine
    }

    /// Whether every migration this version knows has run: false for a database an older
    /// version made, whose tables may lack a column this one reads.
    public func hasCurrentSchema() throws -> Bool {
        try engine.hasCurrentSchema()
    }

    /// How many commits were synced to disk after they were written (for tests).
    var logSyncCount: Int { (engine as? SQLiteEngine)?.commits.syncCount ?? 0 }

    /// Runs `body` in a transaction shared with the other writes asked for meanwhile: if it
    /// throws, none of its changes are kept. Returns once the transaction is committed, and
    /// synced to disk unless `synced` is false: a write nobody sees the effect of before a
    /// later synced one may leave the syncing to it (see `GroupCommit`).
    public func write<T: Sendable>(synced: Bool = true, _ body: @escaping @Sendable (StoreTransaction) throws -> T) async throws -> T {
        try await engine.write(synced: synced) { [self] session in try body(StoreTransaction(session: session, store: self)) }
    }

    /// Reads in a snapshot of its own, on the calling thread.
    func read<T: Sendable>(_ body: (any StoreSession) throws -> T) async throws -> T {
        try readHere(body)
    }

    /// The engine's blocking read: from a synchronous function, so that no async overload is chosen.
    func readHere<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        try engine.read(body)
    }

    /// Whether replicas may share this store: each then handles the updates waiting in the
    /// journal (`JournalFeed`), and one at a time polls (`takeTurn(.poller)`).
    public var servesReplicas: Bool { engine.servesReplicas }

    /// Takes `role` for this process unless another process on the database has it.
    public func takeTurn(_ role: StoreTurn.Role) async throws -> StoreTurn? {
        try await engine.takeTurn(role)
    }

    // MARK: Operations

    /// Throws unless the database takes a write now (a write transaction that is rolled back).
    public func checkWritable() async throws {
        try await engine.checkWritable()
    }

    /// Copies the whole database to `path` with SQLite's online backup, while the bot runs.
    public func backup(to path: String) throws {
        guard let sqlite = engine as? SQLiteEngine else { throw StoreError.unsupported("backup") }
        try sqlite.backup(to: path)
    }

    // MARK: Chats

    public func settings(for chat: Int64) async throws -> ChatSettings {
        if let cached = recentSettings[chat] { return cached }
        let settings = try await read { session in try Self.storedSettings(of: [chat], in: session).first } ?? ChatSettings(id: chat)
        recentSettings.keep(settings)
        return settings
    }

    /// Reads the settings of many chats at once, for `settings(for:)` to find in memory: a
    /// poll's batch of commands from many chats costs one read, not one per chat.
    public func preloadSettings(for chats: Set<Int64>) async throws {
        let missing = chats.filter { recentSettings[$0] == nil }
        guard !missing.isEmpty else { return }
        // One snapshot for the batch: its statements then share one read lock.
        let stored = try await read { session in try Self.storedSettings(of: missing, in: session) }
        let byID = Dictionary(stored.map { ($0.id, $0) }) { first, _ in first }
        for chat in missing {
            recentSettings.keep(byID[chat] ?? ChatSettings(id: chat))
        }
    }

    /// The stored settings of these chats, each read by one prepared statement: a query for
    /// the whole set would be written and compiled anew for every batch.
    static func storedSettings(of chats: some Sequence<Int64>, in session: any StoreSession) throws -> [ChatSettings] {
        try chats.compactMap { chat in try session.rows(ChatSettings.selectOne, [.integer(chat)]).first.map(ChatSettings.init) }
    }

    /// Changes a chat's settings, creating its row if needed.
    public func updateSettings(for chat: Int64, _ change: @escaping @Sendable (inout ChatSettings) -> Void) async throws {
        _ = try await write { try $0.updateSettings(for: chat, change) }
    }

    /// Every chat with a settings row, for the weekly scheduler.
    public func allSettings() async throws -> [ChatSettings] {
        try await read { session in try session.rows(ChatSettings.select).map(ChatSettings.init) }
    }

    /// Every chat with settings of its own or a roster, in id order.
    public func knownChats() async throws -> [Int64] {
        try await read { session in try session.column("SELECT id FROM chat UNION SELECT chatID FROM rosterEntry ORDER BY 1") }
    }

    /// A group became a supergroup: everything stored for the old id moves to the new one.
    public func migrateChat(from old: Int64, to new: Int64) async throws {
        try await write { try $0.migrateChat(from: old, to: new) }
    }

    // MARK: Rosters, links, buttons, collages

    public func roster(of chat: Int64) async throws -> [RosterEntry] {
        try await read { session in try StoreTransaction.roster(of: chat, in: session) }
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
        try await read { session in try session.value("SELECT lastFMName FROM accountLink WHERE telegramUserID = ?", [.integer(telegramUser)]) }
    }

    public func buttonName(key: String) async throws -> String? {
        try await read { session in try session.value("SELECT name FROM buttonName WHERE key = ?", [.text(key)]) }
    }

    /// The Telegram `file_id` of a collage already uploaded for this user, week and filter.
    public func collageFileID(_ key: CollageKey) async throws -> String? {
        try await read { session in try session.value("SELECT fileID FROM collagePhoto WHERE \(CollageKey.condition)", key.arguments) }
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
    /// The `collagePhoto` row of a key, with `arguments` in this order. `user` is quoted: in
    /// PostgreSQL, the bare word is the current role's name.
    static let condition = #""user" = ? AND week = ? AND minimumPlayCount = ?"#

    var arguments: [StoreValue] { [.text(user), .integer(week), .integer(Int64(minimumPlayCount))] }
}
