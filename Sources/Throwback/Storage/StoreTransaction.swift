import Foundation

/// The store inside one transaction (see `BotStore.write`): the changes a command makes,
/// the update's handled mark and the messages it enqueues, all committed together.
public struct StoreTransaction {
    let session: any StoreSession
    let store: BotStore

    // MARK: Chats

    /// A chat's settings as stored, or the defaults.
    public func settings(for chat: Int64) throws -> ChatSettings {
        try storedSettings(of: chat) ?? ChatSettings(id: chat)
    }

    private func storedSettings(of chat: Int64) throws -> ChatSettings? {
        try BotStore.storedSettings(of: [chat], in: session).first
    }

    /// Changes a chat's settings, creating its row if needed; returns the new settings.
    @discardableResult
    public func updateSettings(for chat: Int64, _ change: (inout ChatSettings) -> Void) throws -> ChatSettings {
        var settings = try settings(for: chat)
        change(&settings)
        _ = try session.execute(ChatSettings.save, settings.arguments)
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
        guard let settings = try storedSettings(of: chat), !settings.active else { return false }
        try updateSettings(for: chat) {
            $0.active = true
            $0.weeklySince = Int64(now.timeIntervalSince1970)
        }
        return true
    }

    /// A group became a supergroup: everything stored for the old id moves to the new one,
    /// the messages waiting to be sent there included.
    public func migrateChat(from old: Int64, to new: Int64) throws {
        if var settings = try storedSettings(of: old) {
            _ = try session.execute("DELETE FROM chat WHERE id = ?", [.integer(old)])
            settings.id = new
            _ = try session.execute(ChatSettings.save, settings.arguments)
        }
        // Each table's rows move unless the new chat has one of the same key already.
        for (table, key) in [("rosterEntry", "nameKey"), ("weeklyPost", "week")] {
            _ = try session.execute("""
                UPDATE \(table) SET chatID = ? WHERE chatID = ?
                AND NOT EXISTS (SELECT 1 FROM \(table) AS kept WHERE kept.chatID = ? AND kept.\(key) = \(table).\(key))
                """, [.integer(new), .integer(old), .integer(new)])
            _ = try session.execute("DELETE FROM \(table) WHERE chatID = ?", [.integer(old)])
        }
        try moveWaitingMessages(from: old, to: new)
        forgetCachedSettings(of: [old, new])
    }

    /// The settings cache must not outlive a change, whether it commits or rolls back.
    private func forgetCachedSettings(of chats: [Int64]) {
        let cache = store.recentSettings
        let forget: @Sendable () -> Void = { for chat in chats { cache[chat] = nil } }
        forget()
        session.afterTransaction(forget)
    }

    // MARK: Rosters

    public func roster(of chat: Int64) throws -> [RosterEntry] {
        try Self.roster(of: chat, in: session)
    }

    static func roster(of chat: Int64, in session: any StoreSession) throws -> [RosterEntry] {
        // In the order users were added: the weekly post follows it.
        try session.rows("SELECT \(RosterEntry.columns) FROM rosterEntry WHERE chatID = ? ORDER BY ordinal", [.integer(chat)])
            .map(RosterEntry.init)
    }

    /// Adds names not already on the roster, up to `limit` entries in all.
    /// Returns the names added, in the order given.
    public func addToRoster(_ names: [String], chat: Int64, limit: Int) throws -> [String] {
        var count: Int = try session.value("SELECT count(*) FROM rosterEntry WHERE chatID = ?", [.integer(chat)]) ?? 0
        var added: [String] = []
        for name in names where count < limit {
            let entry = RosterEntry(chatID: chat, lastFMName: name)
            // Numbered after every entry before it, of any chat, as row ids were.
            let inserted = try session.execute("""
                INSERT INTO rosterEntry (chatID, nameKey, lastFMName, addedAt, ordinal)
                VALUES (?, ?, ?, ?, (SELECT coalesce(max(ordinal), 0) + 1 FROM rosterEntry))
                ON CONFLICT (chatID, nameKey) DO NOTHING
                """, [.integer(chat), .text(entry.nameKey), .text(name), .date(entry.addedAt)])
            guard inserted > 0 else { continue }
            added.append(name)
            count += 1
        }
        return added
    }

    /// Removes a name (any spelling); returns the removed entry, if it was there.
    public func removeFromRoster(_ name: String, chat: Int64) throws -> RosterEntry? {
        try session.rows(
            "DELETE FROM rosterEntry WHERE chatID = ? AND nameKey = ? RETURNING \(RosterEntry.columns)", [.integer(chat), .text(name.lowercased())]
        ).first.map(RosterEntry.init)
    }

    // MARK: Account links

    public func link(telegramUser: Int64, to lastFMName: String) throws {
        _ = try session.execute("""
            INSERT INTO accountLink (telegramUserID, lastFMName) VALUES (?, ?)
            ON CONFLICT (telegramUserID) DO UPDATE SET lastFMName = excluded.lastFMName
            """, [.integer(telegramUser), .text(lastFMName)])
    }

    /// Removes a link; returns the name that was linked, if any.
    public func unlink(telegramUser: Int64) throws -> String? {
        try session.value("DELETE FROM accountLink WHERE telegramUserID = ? RETURNING lastFMName", [.integer(telegramUser)])
    }

    // MARK: Buttons and collages

    /// Remembers a Last.fm name too long for a button's 64 bytes of callback data, as used
    /// at `date`: a message showing the button was sent or edited then.
    public func saveButtonName(_ name: String, key: String, at date: Date) throws {
        _ = try session.execute("""
            INSERT INTO buttonName (key, name, usedAt) VALUES (?, ?, ?)
            ON CONFLICT (key) DO UPDATE SET name = excluded.name, usedAt = excluded.usedAt
            """, [.text(key), .text(name), .date(date)])
    }

    public func saveCollageFileID(_ fileID: String, for key: CollageKey, at date: Date) throws {
        _ = try session.execute("""
            INSERT INTO collagePhoto ("user", week, minimumPlayCount, fileID, savedAt, usedAt) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT ("user", week, minimumPlayCount) DO UPDATE SET fileID = excluded.fileID, savedAt = excluded.savedAt, usedAt = excluded.usedAt
            """, key.arguments + [.text(fileID), .date(date), .date(date)])
    }

    public func forgetCollageFileID(_ key: CollageKey) throws {
        _ = try session.execute("DELETE FROM collagePhoto WHERE \(CollageKey.condition)", key.arguments)
    }
}
