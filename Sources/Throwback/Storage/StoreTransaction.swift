import Foundation
import GRDB

/// The store inside one transaction (see `BotStore.write`): the changes a command makes,
/// the update's handled mark and the messages it enqueues, all committed together.
public struct StoreTransaction {
    let db: Database
    let store: BotStore

    // MARK: Chats

    /// A chat's settings as stored, or the defaults.
    public func settings(for chat: Int64) throws -> ChatSettings {
        try ChatSettings.fetchOne(db, key: chat) ?? ChatSettings(id: chat)
    }

    /// Changes a chat's settings, creating its row if needed; returns the new settings.
    @discardableResult
    public func updateSettings(for chat: Int64, _ change: (inout ChatSettings) -> Void) throws -> ChatSettings {
        var settings = try settings(for: chat)
        change(&settings)
        try settings.save(db)
        forgetCachedSettings(of: [chat])
        return settings
    }

    /// After a 403, or the bot's removal: it cannot post there any more, so it stops trying.
    /// The chat's roster and settings, its weekly post's on or off included, are kept for
    /// when the bot is back.
    public func markInactive(_ chat: Int64) throws {
        try updateSettings(for: chat) { $0.active = false }
    }

    /// The bot is in the chat again: it posts there again, and its weekly post is on again if
    /// it was on. A post that fell due while the bot was away is not caught up. Returns whether
    /// the chat was inactive.
    @discardableResult
    public func markActive(_ chat: Int64, at now: Date) throws -> Bool {
        guard let settings = try ChatSettings.fetchOne(db, key: chat), !settings.active else { return false }
        try updateSettings(for: chat) {
            $0.active = true
            $0.weeklySince = Int64(now.timeIntervalSince1970)
        }
        return true
    }

    /// A group became a supergroup: everything stored for the old id moves to the new one,
    /// the messages waiting to be sent there included.
    public func migrateChat(from old: Int64, to new: Int64) throws {
        if var settings = try ChatSettings.fetchOne(db, key: old) {
            try settings.delete(db)
            settings.id = new
            try settings.save(db)
        }
        for table in ["rosterEntry", "weeklyPost"] {
            try db.execute(sql: "UPDATE OR IGNORE \(table) SET chatID = ? WHERE chatID = ?", arguments: [new, old])
            try db.execute(sql: "DELETE FROM \(table) WHERE chatID = ?", arguments: [old])
        }
        try moveWaitingMessages(from: old, to: new)
        forgetCachedSettings(of: [old, new])
    }

    /// The settings cache must not outlive a change, whether it commits or rolls back.
    private func forgetCachedSettings(of chats: [Int64]) {
        let cache = store.recentSettings
        let forget: @Sendable (Database) -> Void = { _ in for chat in chats { cache[chat] = nil } }
        forget(db)
        db.afterNextTransaction(onCommit: forget, onRollback: forget)
    }

    // MARK: Rosters

    public func roster(of chat: Int64) throws -> [RosterEntry] {
        try Self.roster(of: chat, in: db)
    }

    static func roster(of chat: Int64, in db: Database) throws -> [RosterEntry] {
        // In the order users were added: the weekly post follows it.
        try RosterEntry.filter(Column("chatID") == chat).order(Column.rowID).fetchAll(db)
    }

    /// Adds names not already on the roster, up to `limit` entries in all.
    /// Returns the names added, in the order given.
    public func addToRoster(_ names: [String], chat: Int64, limit: Int) throws -> [String] {
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

    /// Removes a name (any spelling); returns the removed entry, if it was there.
    public func removeFromRoster(_ name: String, chat: Int64) throws -> RosterEntry? {
        guard let entry = try RosterEntry.fetchOne(db, key: ["chatID": chat, "nameKey": name.lowercased()]) else { return nil }
        try entry.delete(db)
        return entry
    }

    // MARK: Account links

    public func link(telegramUser: Int64, to lastFMName: String) throws {
        try AccountLink(telegramUserID: telegramUser, lastFMName: lastFMName).save(db)
    }

    /// Removes a link; returns the name that was linked, if any.
    public func unlink(telegramUser: Int64) throws -> String? {
        guard let link = try AccountLink.fetchOne(db, key: telegramUser) else { return nil }
        try link.delete(db)
        return link.lastFMName
    }

    // MARK: Buttons and collages

    /// Remembers a Last.fm name too long for a button's 64 bytes of callback data, as used
    /// at `date`: a message showing the button was sent or edited then.
    public func saveButtonName(_ name: String, key: String, at date: Date) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO buttonName (key, name, usedAt) VALUES (?, ?, ?)")
            .execute(arguments: [key, name, StoredDate(date)])
    }

    public func saveCollageFileID(_ fileID: String, for key: CollageKey, at date: Date) throws {
        try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO collagePhoto (user, week, minimumPlayCount, fileID, savedAt, usedAt) VALUES (?, ?, ?, ?, ?, ?)"
        ).execute(arguments: key.arguments + [fileID, StoredDate(date), StoredDate(date)])
    }

    public func forgetCollageFileID(_ key: CollageKey) throws {
        try db.execute(sql: "DELETE FROM collagePhoto WHERE \(CollageKey.condition)", arguments: key.arguments)
    }
}
