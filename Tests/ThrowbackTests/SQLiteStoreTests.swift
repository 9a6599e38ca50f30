import Foundation
import GRDB
import Telegram
import Synchronization
import Testing
import TestLogging
@testable import Throwback

/// What only the SQLite engine does: its files, their syncing, and its upgrades from the
/// databases earlier versions made, which must keep what they held.
@Suite(.capturingLogs) struct SQLiteStoreTests {
    @Test func theInboxSurvivesTheUpgradeToIdentities() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("old-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let old = try DatabaseQueue(path: path)
        try SQLiteEngine.migrator.migrate(old, upTo: "v1: rosters, links, chats, update journal, Last.fm cache")
        let payload = try JSONEncoder().encode(StoreTests.message(3, id: 30))
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
        try SQLiteEngine.migrator.migrate(old, upTo: "v5: the outbox, weekly post leases, and when a chat's post was turned on")
        let waiting = try JSONEncoder().encode(StoreTests.message(4, id: 40))
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
        #expect(try await journal.record([ReceivedUpdate(StoreTests.message(3, id: 30)), ReceivedUpdate(StoreTests.message(4, id: 40))], nextOffset: 5).isEmpty)
    }

    /// Last.fm cache keys now escape `%` in names: an answer kept under an old key with a `%`
    /// could be read for another name, so the upgrade drops those and keeps the rest.
    @Test func theUpgradeDropsCachedAnswersWhoseOldKeysCouldNowMeanAnotherName() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("v6-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let old = try DatabaseQueue(path: path)
        try SQLiteEngine.migrator.migrate(old, upTo: "v6: the outbox's state apart from its body, indexes of what waits, one journal table")
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
        #expect(try await store.write { try $0.session.value("PRAGMA synchronous") as Int? } == 1)
        #expect(try await store.write { try $0.session.value("PRAGMA journal_mode") as String? } == "wal")
    }

    @Test func theDatabaseSurvivesReopening() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        try await BotStore(path: path).link(telegramUser: 3, to: "RJ")
        #expect(try await BotStore(path: path).linkedName(of: 3) == "RJ")
    }

    /// A database from before the roster's order was a column of its own: each roster keeps
    /// the order its users were added in, and a user added after the upgrade comes last.
    @Test func rostersKeepTheirOrderThroughTheUpgrade() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("v10-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let old = try DatabaseQueue(path: path)
        try SQLiteEngine.migrator.migrate(old, upTo: "v10: each chat's outbox sent by one process at a time, under a lease")
        try await old.write { db in
            for (chat, name) in [(-1, "zed"), (-2, "Olga"), (-1, "Amy"), (-1, "bob")] {
                try db.execute(
                    sql: "INSERT INTO rosterEntry (chatID, nameKey, lastFMName, addedAt) VALUES (?, ?, ?, '2026-11-25 10:00:00.000')",
                    arguments: [chat, name.lowercased(), name]
                )
            }
        }
        try old.close()
        let store = try BotStore(path: path)
        #expect(try await store.roster(of: -1).map(\.lastFMName) == ["zed", "Amy", "bob"])
        #expect(try await store.addToRoster(["Carl"], chat: -1, limit: 50) == ["Carl"])
        #expect(try await store.roster(of: -1).map(\.lastFMName) == ["zed", "Amy", "bob", "Carl"])
        #expect(try await store.roster(of: -2).map(\.lastFMName) == ["Olga"])
    }

    /// A database from before the bounds: its cache's size is counted, its rows count as
    /// used at the upgrade, a sent photo's bytes go, and a waiting one's go once it is settled.
    @Test func theUpgradeCountsTheCacheAndDropsSentPhotos() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("v6-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let old = try DatabaseQueue(path: path)
        try SQLiteEngine.migrator.migrate(old, upTo: "v6: the outbox's state apart from its body, indexes of what waits, one journal table")
        try await old.write { db in
            try db.execute(sql: """
                INSERT INTO lastfmCache (key, value) VALUES ('user.getweeklyalbumchart|user=a', x'0102030405'), ('album.getinfo|artist=é', x'01');
                INSERT INTO outbox (id, chatID, kind, state, createdAt, expiresAt)
                    VALUES (1, -1, 'reply', 'sent', '2026-11-25 10:00:00.000', '2099-01-01 00:00:00.000'),
                           (2, -1, 'reply', 'pending', '2026-11-25 10:00:00.000', '2099-01-01 00:00:00.000');
                INSERT INTO outboxBody (id, method, parameters, upload) VALUES (1, 'sendPhoto', x'7b7d', x'ffd8'), (2, 'sendPhoto', x'7b7d', x'ffd8');
                """)
        }
        try old.close()
        let store = try BotStore(path: path)
        #expect(try await PruningTests.countedCacheBytes(store) == 31 + 5 + 23 + 1)
        #expect(try await store.read { session in try session.value("SELECT count(*) FROM lastfmCache WHERE usedAt IS NULL") as Int? } == 0)
        let uploads: [Bool] = try await store.read { session in try session.column("SELECT upload IS NOT NULL FROM outboxBody ORDER BY id") }
        #expect(uploads == [false, true])
        // Still waiting at the upgrade, it is known to upload a picture, both when read back to
        // be sent and when its chat's queue is dropped: then its bytes go too.
        let waiting = try await store.read { session in try OutboxCoding.messages([2], in: session) }
        #expect(waiting.map(\.uploads) == [true])
        #expect(try await store.write { transaction in try transaction.dropPending(chat: -1, note: "chat gone", at: Date()) } == [2])
        #expect(try await store.read { session in try session.value("SELECT upload IS NOT NULL FROM outboxBody WHERE id = 2") as Bool? } == false)
    }

    /// Pruning finds unused album info by the index of album info alone, so that a pass never
    /// reads the charts kept for good.
    @Test func albumInfoIsPrunedThroughItsOwnIndex() async throws {
        let store = try BotStore.inMemory()
        let plan = try await store.read { session in
            try session.rows("""
                EXPLAIN QUERY PLAN SELECT key FROM lastfmCache WHERE substr(key, 1, 14) = 'album.getinfo|' AND usedAt < ? LIMIT ?
                """, [.text("2026-01-01"), .integer(5)]).map { try $0.get("detail") as String }
        }
        #expect(plan.contains { $0.contains("lastfmCacheAlbumInfoByUse") }, "\(plan)")
    }

    /// A reply's way through the store, from its update's handled mark to its chat's lane given
    /// up, runs no statement through a table SQLite makes for the run: a `RETURNING`, a list
    /// of values or a trigger's `IN` list of three each build and zero one, which made a warm
    /// burst's SQLite work half as dear again. Nor does it run a trigger.
    @Test func aRepliesWayThroughTheStoreBuildsNoTableOfItsOwn() async throws {
        let store = try BotStore.inMemory()
        let engine = try #require(store.engine as? SQLiteEngine)
        let traced = Mutex<Set<String>>([])
        try await engine.database.writeWithoutTransaction { db in
            db.trace(options: .statement) { event in
                if case .statement(let statement) = event { traced.withLock { _ = $0.insert(statement.sql) } }
            }
        }
        let (now, later) = (Date(), Date().addingTimeInterval(60))
        let reply = OutboxMessage(
            chatID: -1, kind: .reply, request: TelegramRequest<SentMessage>.sendMessage(chatID: -1, html: "x"), expiresAt: later
        )
        try await store.write { transaction in
            try transaction.markHandled(StoreTests.message(1, id: 10), at: now)
            let id = try #require(try transaction.enqueue([reply], at: now).first?.id)
            #expect(try transaction.takeLanes([-1], in: .outbox, owner: "a", until: later, at: now) == [-1])
            #expect(try transaction.claimForSending([id], owner: "a", at: now) == [id])
            try transaction.recordSent([OutboxReceipt(id: id, messageID: 5)], at: now)
            try transaction.releaseLanes([-1], in: .outbox, owner: "a")
        }
        let statements = traced.withLock { $0 }.filter { !$0.hasPrefix("--") && !$0.hasPrefix("BEGIN") && !$0.hasPrefix("COMMIT") }
        #expect(statements.count >= 7, "\(statements)")
        for sql in statements {
            let unbound = [StoreValue](repeating: .null, count: sql.filter { $0 == "?" }.count)
            let program: [String] = try await store.read { session in try session.rows("EXPLAIN " + sql, unbound).map { try $0.get("opcode") } }
            let buildsATable = program.contains("OpenEphemeral")
            #expect(!buildsATable, "\(sql)")
            // A trigger's sub-program: SQLite then keeps a statement journal for each run.
            #expect(!program.contains("Program"), "\(sql)")
        }
    }
}

@Suite struct StoredDateTests {
    @Test(arguments: [0.0, 0.999, 59.5, 59.9996, 86_399.9999, 951_782_400.123, 1_700_000_000.0, 1_795_000_000.987_6, 4_102_444_799.999, 253_402_300_799.0, 253_402_300_800.0])
    func aDateIsWrittenAsGRDBWritesIt(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(StoredDate.text(date).databaseValue == date.databaseValue)
    }

    @Test func aStoredDateIsStoredAsItsText() throws {
        let dates = [0.0, 59.9996, 1_795_000_000.987_6, 253_402_300_799.0].map(Date.init(timeIntervalSince1970:))
        try DatabaseQueue().write { db in
            let session = SQLiteSession(db: db)
            _ = try session.execute("CREATE TABLE stamp (at DATETIME)", [])
            for date in dates { _ = try session.execute("INSERT INTO stamp (at) VALUES (?)", [.date(date)]) }
            #expect(try String.fetchAll(db, sql: "SELECT at FROM stamp ORDER BY rowid") == dates.compactMap { String.fromDatabaseValue($0.databaseValue) })
        }
    }

    /// A stored date reads back as GRDB read it: the same moment, to the millisecond.
    @Test(arguments: [0.0, 0.999, 59.9996, 951_782_400.123, 1_795_000_000.987_6, 253_402_300_799.0])
    func aStoredDateIsReadAsGRDBReadsIt(seconds: Double) throws {
        let text = StoredDate.text(Date(timeIntervalSince1970: seconds))
        let read = try #require(Date(storeValue: .text(text)))
        let grdb = try #require(Date.fromDatabaseValue(text.databaseValue))
        #expect(abs(read.timeIntervalSince1970 - grdb.timeIntervalSince1970) < 0.000_5)
        #expect(StoredDate.text(read) == text)
    }

    /// The other forms GRDB read, and text that is no date.
    @Test func storedDatesInOtherFormsAreReadAndNonsenseIsNot() {
        #expect(StoredDate.date("2026-11-25") == Date(timeIntervalSince1970: 1_795_564_800))
        #expect(StoredDate.date("2026-11-25T10:00Z") == Date(timeIntervalSince1970: 1_795_564_800 + 36_000))
        #expect(StoredDate.date("2026-11-25 10:00:07") == Date(timeIntervalSince1970: 1_795_564_800 + 36_007))
        for nonsense in ["", "2026", "2026-13-01", "2026-11-25 10", "2026-11-25 10:00:", "yesterday", "2026-11-25 10:00:00.000 later"] {
            #expect(StoredDate.date(nonsense) == nil, "\(nonsense)")
        }
    }
}

