import Foundation
import GRDB
import Telegram
import Testing
import TestLogging
@testable import Throwback

@Suite(.capturingLogs) struct StoreTests {
    @Test func rostersKeepLastFMSpellingAndIgnoreCase() async throws {
        let store = try BotStore.inMemory()
        #expect(try await store.addToRoster(["RJ", "eartle", "rj"], chat: -1, limit: 50) == ["RJ", "eartle"])
        #expect(try await store.roster(of: -1).map(\.lastFMName) == ["RJ", "eartle"])
        #expect(try await store.write { try $0.removeFromRoster("EARTLE", chat: -1) }?.lastFMName == "eartle")
        #expect(try await store.addToRoster(["a1", "b2", "c3"], chat: -1, limit: 2) == ["a1"])
    }

    /// Replies still waiting for the group go to the supergroup with its roster and settings,
    /// in the same transaction, so that a restart does not send them to the old id; one
    /// already on its way is left as it is.
    @Test func aMigratedChatTakesItsRowsAlong() async throws {
        let store = try BotStore.inMemory()
        _ = try await store.addToRoster(["RJ"], chat: -5, limit: 50)
        try await store.updateSettings(for: -5) { $0.minimumPlayCount = 4 }
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let reply = { (text: String) in
            OutboxMessage(chatID: -5, kind: .reply, request: TelegramRequest<SentMessage>.sendMessage(chatID: -5, html: text),
                          expiresAt: now.addingTimeInterval(3600))
        }
        let replies = [reply("on its way"), reply("first"), reply("second")]
        let enqueued = try await store.write { try $0.enqueue(replies, at: now) }
        _ = try await store.write { try $0.claimForSending(enqueued[0].id, owner: "me", at: now) }
        try await store.migrateChat(from: -5, to: -1_005)
        #expect(try await store.roster(of: -5).isEmpty)
        #expect(try await store.roster(of: -1_005).map(\.lastFMName) == ["RJ"])
        #expect(try await store.settings(for: -1_005).minimumPlayCount == 4)
        let waiting = try await store.pendingMessages(limit: 10, owner: "new", at: now) { _ in false }.messages
        #expect(waiting.map(\.chatID) == [-1_005, -1_005])
        #expect(waiting.map(\.request.chatID) == [-1_005, -1_005])
        #expect(waiting.map { $0.request.parameters["text"] } == [.string("first"), .string("second")])
    }

    /// A chat the bot cannot post to gets no weekly post; once the bot is back, the post is on
    /// again if it was on, without catching up on the weeks it was away.
    @Test func aForbiddenChatIsMarkedInactiveWithItsWeeklyPostOff() async throws {
        let store = try BotStore.inMemory()
        try await store.updateSettings(for: -7) { $0.weeklyPost = true }
        try await store.write { try $0.markInactive(-7) }
        let settings = try await store.settings(for: -7)
        #expect(!settings.active)
        #expect(!settings.weeklyPostIsOn(defaultChat: nil))
        let back = Date(timeIntervalSince1970: 1_795_000_000)
        #expect(try await store.write { try $0.markActive(-7, at: back) })
        let active = try await store.settings(for: -7)
        #expect(active.weeklyPostIsOn(defaultChat: nil))
        #expect(active.weeklySince == 1_795_000_000)
        #expect(try await store.write { try $0.markActive(-7, at: back) } == false)
    }

    /// A batch's chats are read at once: their commands then find the settings in memory
    /// (a row changed behind the store's back is not read again within the minute), and a
    /// change made through the store after the read still wins.
    @Test func settingsPreloadedForABatchServeItsCommandsAndYieldToLaterChanges() async throws {
        let store = try BotStore.inMemory()
        try await store.database.write { db in
            try ChatSettings(id: -1, minimumPlayCount: 3).insert(db)
            try ChatSettings(id: -2, minimumPlayCount: 4).insert(db)
        }
        try await store.preloadSettings(for: [-1, -2, -3])
        try await store.database.write { db in try db.execute(sql: "UPDATE chat SET minimumPlayCount = 9") }
        #expect(try await store.settings(for: -1).minimumPlayCount == 3)
        #expect(try await store.settings(for: -2).minimumPlayCount == 4)
        #expect(try await store.settings(for: -3) == ChatSettings(id: -3))

        try await store.updateSettings(for: -1) { $0.minimumPlayCount = 5 }
        try await store.preloadSettings(for: [-1])
        #expect(try await store.settings(for: -1).minimumPlayCount == 5)
        // A read that began before a change and ends after it must not undo it.
        let cache = SettingsCache()
        cache[-1] = ChatSettings(id: -1, minimumPlayCount: 5)
        cache.keep(ChatSettings(id: -1, minimumPlayCount: 3))
        cache.keep(ChatSettings(id: -2, minimumPlayCount: 3))
        #expect(cache[-1]?.minimumPlayCount == 5)
        #expect(cache[-2]?.minimumPlayCount == 3)
    }

    private func message(_ updateID: Int64, chat: Int64 = -1, id: Int64) -> Update {
        Update(updateID: updateID, message: Message(messageID: id, chat: Chat(id: chat, type: "group"), text: "/help"))
    }

    @Test func theJournalRemembersWhatWasHandled() async throws {
        let store = try BotStore.inMemory()
        let journal = UpdateJournal(store: store)
        let batch = [message(5, id: 50), message(6, id: 60)]
        #expect(try await journal.offset() == nil)
        #expect(try await journal.record(batch.map(ReceivedUpdate.init), nextOffset: 7).map(\.updateID) == [5, 6])
        #expect(try await journal.offset() == 7)
        #expect(try await journal.unhandled().map(\.updateID) == [5, 6])
        try await store.write { try $0.markHandled(batch[0], at: Date()) }
        #expect(try await journal.unhandled().map(\.updateID) == [6])
        // Telegram delivers the same batch again: nothing is new.
        #expect(try await journal.record(batch.map(ReceivedUpdate.init), nextOffset: 7).isEmpty)
        #expect(try await journal.unhandled().map(\.updateID) == [6])
        // Handling that fails part-way commits nothing: the update stays in the inbox.
        struct Failure: Error {}
        await #expect(throws: Failure.self) {
            try await store.write { transaction in
                try transaction.markHandled(batch[1], at: Date())
                throw Failure()
            }
        }
        #expect(try await journal.unhandled().map(\.updateID) == [6])
    }

    @Test func renumberedUpdatesAreNewAndTheOffsetFollowsThemDown() async throws {
        let store = try BotStore.inMemory()
        let journal = UpdateJournal(store: store)
        let old = [message(900, id: 1), message(901, id: 2)]
        _ = try await journal.record(old.map(ReceivedUpdate.init), nextOffset: 902)
        for update in old { try await store.write { try $0.markHandled(update, at: Date()) } }
        // A week later Telegram starts again at a lower id, reusing 900.
        let renumbered = [message(899, id: 3), message(900, id: 4)]
        #expect(try await journal.record(renumbered.map(ReceivedUpdate.init), nextOffset: 901).map(\.updateID) == [899, 900])
        #expect(try await journal.offset() == 901)
        // A redelivery of an update handled before is recognised by what it is.
        #expect(try await journal.record([ReceivedUpdate(message(17, id: 2))], nextOffset: 18).isEmpty)
    }

    @Test func theInboxSurvivesTheUpgradeToIdentities() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("old-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let old = try DatabaseQueue(path: path)
        try BotStore.migrator.migrate(old, upTo: "v1: rosters, links, chats, update journal, Last.fm cache")
        let payload = try JSONEncoder().encode(message(3, id: 30))
        try await old.write { db in
            try db.execute(sql: "INSERT INTO inboxUpdate (updateID, payload) VALUES (3, ?)", arguments: [payload])
        }
        try old.close()
        let journal = UpdateJournal(store: try BotStore(path: path))
        #expect(try await journal.unhandled().map { $0.message?.messageID } == [30])
    }

    /// A database from before the outbox's body moved to a table of its own, and before the
    /// journal became one table: what waited keeps waiting, and what was handled stays known.
    @Test func theOutboxAndTheJournalSurviveTheUpgrade() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("v5-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let old = try DatabaseQueue(path: path)
        try BotStore.migrator.migrate(old, upTo: "v5: the outbox, weekly post leases, and when a chat's post was turned on")
        let waiting = try JSONEncoder().encode(message(4, id: 40))
        try await old.write { db in
            try db.execute(sql: """
                INSERT INTO outbox (chatID, kind, method, parameters, state, createdAt, expiresAt)
                VALUES (-1, 'reply', 'sendMessage', ?, 'pending', '2026-11-25 10:00:00.000', '2099-01-01 00:00:00.000'),
                       (-1, 'reply', 'sendMessage', ?, 'sent', '2026-11-25 09:00:00.000', '2099-01-01 00:00:00.000')
                """, arguments: [Data(#"{"chat_id":-1,"text":"waiting"}"#.utf8), Data(#"{"chat_id":-1,"text":"gone"}"#.utf8)])
            try db.execute(sql: "INSERT INTO inboxEntry (identity, payload) VALUES ('m:-1:40', ?)", arguments: [waiting])
            try db.execute(sql: "INSERT INTO handledUpdate (identity, handledAt) VALUES ('m:-1:30', '2026-11-25 10:00:00.000')")
        }
        try old.close()
        let store = try BotStore(path: path)
        let pending = try await store.pendingMessages(limit: 10, owner: "new", at: Date()) { _ in false }.messages
        #expect(pending.map(\.request.method) == ["sendMessage"])
        #expect(pending.first.map { String(decoding: $0.request.parametersJSON, as: UTF8.self) }?.contains("waiting") == true)
        let journal = UpdateJournal(store: store)
        #expect(try await journal.unhandled().map { $0.message?.messageID } == [40])
        // The handled update is recognised when Telegram sends it again; the waiting one too.
        #expect(try await journal.record([ReceivedUpdate(message(3, id: 30)), ReceivedUpdate(message(4, id: 40))], nextOffset: 5).isEmpty)
    }

    /// Last.fm cache keys now escape `%` in names: an answer kept under an old key with a `%`
    /// could be read for another name, so the upgrade drops those and keeps the rest.
    @Test func theUpgradeDropsCachedAnswersWhoseOldKeysCouldNowMeanAnotherName() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("v6-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let old = try DatabaseQueue(path: path)
        try BotStore.migrator.migrate(old, upTo: "v6: the outbox's state apart from its body, indexes of what waits, one journal table")
        try await old.write { db in
            try db.execute(sql: """
                INSERT INTO lastfmCache (key, value) VALUES
                    ('album.getinfo|artist=a|album=b%25c', x'00'), ('album.getinfo|artist=a|album=ok computer', x'01')
                """)
        }
        try old.close()
        let cache = SQLiteLastFMCache(store: try BotStore(path: path))
        #expect(await cache.value(forKey: "album.getinfo|artist=a|album=b%25c", now: Date()) == nil)
        #expect(await cache.value(forKey: "album.getinfo|artist=a|album=ok computer", now: Date()) == Data([1]))
    }

    /// Writes asked for at once share a commit, but a write that fails undoes only itself.
    @Test func aFailingWriteInASharedCommitUndoesOnlyItself() async throws {
        let store = try BotStore.inMemory()
        struct Failure: Error {}
        await withTaskGroup(of: Void.self) { group in
            for chat in 1...20 {
                group.addTask {
                    _ = try? await store.write { transaction in
                        _ = try transaction.addToRoster(["user\(chat)"], chat: -Int64(chat), limit: 50)
                        if chat.isMultiple(of: 5) { throw Failure() }
                    }
                }
            }
        }
        for chat in 1...20 {
            #expect(try await store.roster(of: -Int64(chat)).count == (chat.isMultiple(of: 5) ? 0 : 1), "\(chat)")
        }
    }

    /// A weekly post's claim is one process's while its lease lasts: another is refused until
    /// it runs out, then may take the post over; a completed post is claimed again only forced.
    @Test func aWeeklyClaimIsExclusiveWhileItsLeaseLasts() async throws {
        let store = try BotStore.inMemory()
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        func claim(_ owner: String, at seconds: TimeInterval, force: Bool = false) async throws -> WeeklyClaim {
            try await store.write { transaction in
                try transaction.claimWeeklyPost(
                    chat: -1, week: 7, dueAt: start, force: force, owner: owner, lease: .seconds(120), now: start.addingTimeInterval(seconds)
                )
            }
        }
        guard case .claimed(let first) = try await claim("a", at: 0) else { Issue.record("not claimed"); return }
        #expect(try await claim("b", at: 60) == .heldElsewhere(until: start.addingTimeInterval(120)))
        // "a" stopped without a word: once its lease runs out, "b" finishes the post.
        guard case .claimed(let taken) = try await claim("b", at: 121) else { Issue.record("not taken over"); return }
        #expect(taken.generation == first.generation)
        #expect(try await store.write { try $0.completeWeeklyPost(first, owner: "a", at: start) } == false)
        #expect(try await store.write { try $0.completeWeeklyPost(taken, owner: "b", at: start) })
        #expect(try await claim("a", at: 200) == .alreadyPosted)
        guard case .claimed(let forced) = try await claim("a", at: 200, force: true) else { Issue.record("not forced"); return }
        #expect(forced.generation == 2)
    }

    /// A chat's outbox lane is one process's while its lease lasts: another neither takes it nor
    /// sees its messages in a scan until the lease runs out or is given up.
    @Test func aChatsLaneIsOneProcessesWhileItsLeaseLasts() async throws {
        let store = try BotStore.inMemory()
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        _ = try await store.write { transaction in
            try transaction.enqueue([OutboxMessage(
                chatID: -1, kind: .reply, request: TelegramRequest<SentMessage>.sendMessage(chatID: -1, html: "hi"), expiresAt: start.addingTimeInterval(3600)
            )], at: start)
        }
        func take(_ owner: String, at seconds: TimeInterval) async throws -> Bool {
            try await store.write { try $0.takeLane(-1, owner: owner, until: start.addingTimeInterval(seconds + 30), at: start.addingTimeInterval(seconds)) }
        }
        func scan(_ owner: String, at seconds: TimeInterval) async throws -> (count: Int, heldUntil: Date?) {
            let (messages, heldUntil) = try await store.pendingMessages(limit: 10, owner: owner, at: start.addingTimeInterval(seconds)) { _ in false }
            return (messages.count, heldUntil)
        }
        #expect(try await take("a", at: 0))
        #expect(try await take("b", at: 10) == false)
        #expect(try await scan("b", at: 10) == (0, start.addingTimeInterval(30)))
        #expect(try await scan("a", at: 10) == (1, nil))
        // "a" renews while it sends; it stops without a word, and the lease runs out.
        #expect(try await take("a", at: 20))
        #expect(try await take("b", at: 49) == false)
        #expect(try await scan("b", at: 50) == (1, nil))
        #expect(try await take("b", at: 50))
        #expect(try await store.write { try $0.renewLane(-1, owner: "a", until: start.addingTimeInterval(100)) } == false)
        // Given up, it is free at once.
        try await store.write { try $0.releaseLanes([-1], owner: "b") }
        #expect(try await take("a", at: 51))
    }

    /// A commit that asks for it is on disk before the bot goes on, so that a power cut cannot
    /// take back a reply's "sending" mark (GRDB's WAL setup alone syncs no commit); one that
    /// leaves its syncing to a later commit is only written.
    @Test func commitsAreSyncedToDiskWhenTheyAskForIt() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try BotStore(path: path)
        let before = store.logSyncCount
        try await store.link(telegramUser: 1, to: "RJ")
        #expect(store.logSyncCount == before + 1)
        try await store.write(synced: false) { try $0.link(telegramUser: 2, to: "Nico") }
        #expect(store.logSyncCount == before + 1)
        try await store.write { try $0.link(telegramUser: 3, to: "Ana") }
        #expect(store.logSyncCount == before + 2)
        // The commit itself syncs nothing (NORMAL): the sync after it does.
        #expect(try await store.write { try Int.fetchOne($0.db, sql: "PRAGMA synchronous") } == 1)
        #expect(try await store.write { try String.fetchOne($0.db, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test func theDatabaseSurvivesReopening() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        try await BotStore(path: path).link(telegramUser: 3, to: "RJ")
        #expect(try await BotStore(path: path).linkedName(of: 3) == "RJ")
    }
}

@Suite struct StoredDateTests {
    @Test(arguments: [0.0, 0.999, 59.5, 59.9996, 86_399.9999, 951_782_400.123, 1_700_000_000.0, 1_795_000_000.987_6, 4_102_444_799.999, 253_402_300_799.0])
    func aDateIsWrittenAsGRDBWritesIt(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(StoredDate.text(date).databaseValue == date.databaseValue)
    }

    @Test func aStoredDateIsStoredAsItsText() throws {
        let dates = [0.0, 59.9996, 1_795_000_000.987_6, 253_402_300_799.0].map(Date.init(timeIntervalSince1970:))
        try DatabaseQueue().write { db in
            try db.execute(sql: "CREATE TABLE stamp (at DATETIME)")
            for date in dates { try db.cachedStatement(sql: "INSERT INTO stamp (at) VALUES (?)").execute(arguments: [StoredDate(date)]) }
            #expect(try String.fetchAll(db, sql: "SELECT at FROM stamp ORDER BY rowid") == dates.compactMap { String.fromDatabaseValue($0.databaseValue) })
        }
    }
}
