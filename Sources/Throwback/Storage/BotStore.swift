import Foundation
import GRDB
import Telegram

/// The bot's SQLite database: rosters, account links, chat settings, the update journal,
/// the Last.fm cache, weekly posts and stored button names. On disk, WAL mode with a single
/// writer (a `DatabasePool`; in memory, a `DatabaseQueue`); migrations are
/// explicit and append-only: never edit a registered migration, add a new one.
public struct BotStore: Sendable {
    let database: any DatabaseWriter
    /// Chat settings read lately: every throwback needs its chat's filter and covers setting,
    /// and a read is a thread hop. Writes through this store update it; a change made by
    /// another process (`post-weekly`) is seen within `SettingsCache.lifetime`.
    private let recentSettings = SettingsCache()

    /// Opens (creating if needed) the database at `path`, and migrates it unless `migrating`
    /// is false: a health check or a backup by a newer binary must not change the schema
    /// under the bot that is running.
    public init(path: String, migrating: Bool = true) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        // The bot reads little at a time; each reader connection costs memory.
        configuration.maximumReaderCount = 2
        try self.init(writer: try DatabasePool(path: path, configuration: configuration), migrating: migrating)
    }

    private init(writer: any DatabaseWriter, migrating: Bool = true) throws {
        database = writer
        if migrating { try Self.migrator.migrate(database) }
    }

    /// A database that lives in memory only, for the console and tests.
    public static func inMemory() throws -> BotStore {
        try BotStore(writer: DatabaseQueue())
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: rosters, links, chats, update journal, Last.fm cache") { db in
            try db.create(table: "chat") { t in
                t.primaryKey("id", .integer)
                t.column("minimumPlayCount", .integer).notNull().defaults(to: 1)
                t.column("weeklyEnabled", .boolean).notNull().defaults(to: true)
                t.column("schedule", .text)
                t.column("active", .boolean).notNull().defaults(to: true)
            }
            try db.create(table: "rosterEntry") { t in
                t.column("chatID", .integer).notNull()
                t.column("nameKey", .text).notNull()
                t.column("lastFMName", .text).notNull()
                t.column("addedAt", .datetime).notNull()
                t.primaryKey(["chatID", "nameKey"])
            }
            try db.create(table: "accountLink") { t in
                t.primaryKey("telegramUserID", .integer)
                t.column("lastFMName", .text).notNull()
            }
            try db.create(table: "updateOffset") { t in
                t.primaryKey("id", .integer)
                t.column("nextOffset", .integer).notNull()
            }
            try db.create(table: "inboxUpdate") { t in
                t.primaryKey("updateID", .integer)
                t.column("payload", .blob).notNull()
            }
            try db.create(table: "processedUpdate") { t in
                t.primaryKey("updateID", .integer)
                t.column("processedAt", .datetime).notNull()
            }
            try db.create(table: "lastfmCache") { t in
                t.primaryKey("key", .text)
                t.column("value", .blob).notNull()
                t.column("expiresAt", .datetime)
            }
        }
        migrator.registerMigration("v2: updates known by what they are, not by update_id") { db in
            try db.create(table: "inboxEntry") { t in
                t.autoIncrementedPrimaryKey("sequence")
                t.column("identity", .text).notNull().unique()
                t.column("payload", .blob).notNull()
            }
            try db.create(table: "handledUpdate") { t in
                t.primaryKey("identity", .text)
                t.column("handledAt", .datetime).notNull().indexed()
            }
            // Carry the inbox over; handled ids need no carrying, because the stored offset
            // already confirms them to Telegram.
            let decoder = JSONDecoder()
            for payload in try Data.fetchAll(db, sql: "SELECT payload FROM inboxUpdate ORDER BY updateID") {
                guard let identity = (try? decoder.decode(Update.self, from: payload))?.identity else { continue }
                try db.execute(sql: "INSERT OR IGNORE INTO inboxEntry (identity, payload) VALUES (?, ?)", arguments: [identity, payload])
            }
            try db.drop(table: "inboxUpdate")
            try db.drop(table: "processedUpdate")
            try db.create(table: "buttonName") { t in
                t.primaryKey("key", .text)
                t.column("name", .text).notNull()
            }
        }
        migrator.registerMigration("v3: weekly posts, per-chat schedules and topics") { db in
            try db.alter(table: "chat") { t in
                t.add(column: "weeklyPost", .boolean)
                t.add(column: "scheduleZone", .text)
                t.add(column: "weeklyTopicID", .integer)
            }
            // No version before this one posted weekly, so no choice was ever acted on; only a
            // chat that blocked the bot keeps its post off.
            try db.execute(sql: "UPDATE chat SET weeklyPost = 0 WHERE active = 0")
            try db.alter(table: "chat") { t in t.drop(column: "weeklyEnabled") }
            try db.create(table: "weeklyPost") { t in
                t.column("chatID", .integer).notNull()
                t.column("week", .integer).notNull()
                t.column("generation", .integer).notNull()
                t.column("claimedAt", .datetime).notNull()
                t.column("completedAt", .datetime)
                t.primaryKey(["chatID", "week"])
            }
            try db.create(table: "weeklyPostMessage") { t in
                t.column("chatID", .integer).notNull()
                t.column("week", .integer).notNull()
                t.column("generation", .integer).notNull()
                t.column("sequence", .integer).notNull()
                t.column("users", .text).notNull()
                t.column("messageID", .integer)
                t.column("sentAt", .datetime)
                t.primaryKey(["chatID", "week", "generation", "sequence"])
            }
        }
        migrator.registerMigration("v4: album covers, per-chat setting and uploaded collages") { db in
            try db.alter(table: "chat") { t in
                t.add(column: "covers", .boolean).notNull().defaults(to: true)
            }
            try db.create(table: "collagePhoto") { t in
                t.column("user", .text).notNull()
                t.column("week", .integer).notNull()
                t.column("minimumPlayCount", .integer).notNull()
                t.column("fileID", .text).notNull()
                t.column("savedAt", .datetime).notNull()
                t.primaryKey(["user", "week", "minimumPlayCount"])
            }
        }
        return migrator
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
        let destination = try DatabaseQueue(path: path)
        try database.backup(to: destination)
        try destination.close()
    }

    // MARK: Chats

    public func settings(for chat: Int64) async throws -> ChatSettings {
        if let cached = recentSettings[chat] { return cached }
        let settings = try await database.read { db in
            try ChatSettings.fetchOne(db.cachedStatement(sql: "SELECT * FROM chat WHERE id = ?"), arguments: [chat])
        } ?? ChatSettings(id: chat)
        recentSettings.keep(settings)
        return settings
    }

    /// Reads the settings of many chats at once, for `settings(for:)` to find in memory: a
    /// poll's batch of commands from many chats costs one read, not one per chat.
    public func preloadSettings(for chats: Set<Int64>) async throws {
        let missing = chats.filter { recentSettings[$0] == nil }
        guard !missing.isEmpty else { return }
        let stored = try await database.read { db in try ChatSettings.fetchAll(db, keys: missing) }
        let byID = Dictionary(stored.map { ($0.id, $0) }) { first, _ in first }
        for chat in missing {
            recentSettings.keep(byID[chat] ?? ChatSettings(id: chat))
        }
    }

    /// Changes a chat's settings, creating its row if needed.
    public func updateSettings(for chat: Int64, _ change: @escaping @Sendable (inout ChatSettings) -> Void) async throws {
        recentSettings[chat] = nil
        recentSettings[chat] = try await database.write { db in
            var settings = try ChatSettings.fetchOne(db, key: chat) ?? ChatSettings(id: chat)
            change(&settings)
            try settings.save(db)
            return settings
        }
    }

    /// After a 403: the bot cannot post there any more, so it stops trying.
    public func markInactive(_ chat: Int64) async throws {
        try await updateSettings(for: chat) {
            $0.active = false
            $0.weeklyPost = false
        }
    }

    /// Every chat with a settings row, for the weekly scheduler.
    public func allSettings() async throws -> [ChatSettings] {
        try await database.read { db in try ChatSettings.fetchAll(db) }
    }

    /// A group became a supergroup: everything stored for the old id moves to the new one.
    public func migrateChat(from old: Int64, to new: Int64) async throws {
        defer {
            recentSettings[old] = nil
            recentSettings[new] = nil
        }
        try await database.write { db in
            if var settings = try ChatSettings.fetchOne(db, key: old) {
                try settings.delete(db)
                settings.id = new
                try settings.save(db)
            }
            for table in ["rosterEntry", "weeklyPost", "weeklyPostMessage"] {
                try db.execute(sql: "UPDATE OR IGNORE \(table) SET chatID = ? WHERE chatID = ?", arguments: [new, old])
                try db.execute(sql: "DELETE FROM \(table) WHERE chatID = ?", arguments: [old])
            }
        }
    }

    // MARK: Rosters

    public func roster(of chat: Int64) async throws -> [RosterEntry] {
        try await database.read { db in
            // In the order users were added: the weekly post follows it.
            try RosterEntry.filter(Column("chatID") == chat).order(Column.rowID).fetchAll(db)
        }
    }

    /// Adds names not already on the roster, up to `limit` entries in all.
    /// Returns the names added, in the order given.
    public func addToRoster(_ names: [String], chat: Int64, limit: Int) async throws -> [String] {
        try await database.write { db in
            var count = try RosterEntry.filter(Column("chatID") == chat).fetchCount(db)
            var added: [String] = []
            for name in names where count < limit {
                guard try RosterEntry.fetchOne(db, key: ["chatID": chat, "nameKey": name.lowercased()]) == nil else { continue }
                try RosterEntry(chatID: chat, lastFMName: name).insert(db)
                added.append(name)
                count += 1
            }
            return added
        }
    }

    /// Removes a name (any spelling); returns the removed entry, if it was there.
    public func removeFromRoster(_ name: String, chat: Int64) async throws -> RosterEntry? {
        try await database.write { db in
            guard let entry = try RosterEntry.fetchOne(db, key: ["chatID": chat, "nameKey": name.lowercased()]) else { return nil }
            try entry.delete(db)
            return entry
        }
    }

    // MARK: Buttons

    /// Remembers a Last.fm name too long for a button's 64 bytes of callback data.
    public func saveButtonName(_ name: String, key: String) async throws {
        try await database.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO buttonName (key, name) VALUES (?, ?)", arguments: [key, name])
        }
    }

    public func buttonName(key: String) async throws -> String? {
        try await database.read { db in try String.fetchOne(db, sql: "SELECT name FROM buttonName WHERE key = ?", arguments: [key]) }
    }

    // MARK: Collages

    /// The Telegram `file_id` of a collage already uploaded for this user, week and filter.
    public func collageFileID(_ key: CollageKey) async throws -> String? {
        try await database.read { db in
            try String.fetchOne(
                db.cachedStatement(sql: "SELECT fileID FROM collagePhoto WHERE \(CollageKey.condition)"), arguments: key.arguments
            )
        }
    }

    /// Remembers the `file_id` Telegram gave an uploaded collage, so it is never uploaded again.
    public func saveCollageFileID(_ fileID: String, for key: CollageKey, at date: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO collagePhoto (user, week, minimumPlayCount, fileID, savedAt) VALUES (?, ?, ?, ?, ?)",
                arguments: key.arguments + [fileID, StoredDate(date)]
            )
        }
    }

    /// Forgets a `file_id` Telegram no longer accepts.
    public func forgetCollageFileID(_ key: CollageKey) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM collagePhoto WHERE \(CollageKey.condition)", arguments: key.arguments)
        }
    }

    // MARK: Account links

    public func link(telegramUser: Int64, to lastFMName: String) async throws {
        try await database.write { db in try AccountLink(telegramUserID: telegramUser, lastFMName: lastFMName).save(db) }
    }

    /// Removes a link; returns the name that was linked, if any.
    public func unlink(telegramUser: Int64) async throws -> String? {
        try await database.write { db in
            guard let link = try AccountLink.fetchOne(db, key: telegramUser) else { return nil }
            try link.delete(db)
            return link.lastFMName
        }
    }

    public func linkedName(of telegramUser: Int64) async throws -> String? {
        try await database.read { db in try AccountLink.fetchOne(db, key: telegramUser)?.lastFMName }
    }
}

extension CollageKey {
    /// The `collagePhoto` row of a key, with `arguments` in this order.
    static let condition = "user = ? AND week = ? AND minimumPlayCount = ?"

    var arguments: StatementArguments { [user, week, minimumPlayCount] }
}
