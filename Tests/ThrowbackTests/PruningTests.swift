import Foundation
import LastFM
import Logging
import Synchronization
import Telegram
import Testing
import TestLogging
@testable import Throwback
import WeeklyCharts

/// Every table has a bound: rows past their lifetime go in one pruning pass, rows still
/// needed stay, and the listening cache keeps to its size.
@Suite(.capturingLogs) struct PruningTests {
    static let day: TimeInterval = 86_400
    static let then = Date(timeIntervalSince1970: 1_780_000_000)
    /// Past every lifetime: the longest, a button name's, is a year.
    static let later = then.addingTimeInterval(400 * day)

    @Test(arguments: TestEngine.allCases) func rowsPastTheirLifetimeGoAndFreshOnesStay(engine: TestEngine) async throws {
        let store = try await engine.makeStore()
        try await Self.fill(store, tag: "old", chat: -1, at: Self.then)
        try await Self.fill(store, tag: "new", chat: -2, at: Self.later.addingTimeInterval(-3600))
        // Kept cached rows used lately count from their use, not from when they were written.
        let cache = SQLiteLastFMCache(store: store, now: { Self.then })
        await cache.store(Data("{}".utf8), forKey: "album.getinfo|artist=used|album=x", expiresAt: nil)
        try await store.saveCollageFileID("file-used", for: CollageKey(user: "used", week: 0, minimumPlayCount: 1), at: Self.then)
        #expect(await cache.value(forKey: "album.getinfo|artist=used|album=x", now: Self.later.addingTimeInterval(-Self.day)) != nil)
        store.noteCollageUsed(CollageKey(user: "used", week: 0, minimumPlayCount: 1))

        try await Self.pruner(store, now: Self.later).prune()

        let rows = try await Self.rows(store)
        #expect(rows["outbox"] == ["-2 sent", "-1 pending", "-2 pending"])
        #expect(rows["outboxBody"]?.count == 3)
        #expect(rows["lastfmCache"] == [
            "album.getinfo|artist=new|album=x", "album.getinfo|artist=used|album=x",
            // A past week's chart never changes: it is kept for good, within the cap.
            "user.getweeklyalbumchart|user=new", "user.getweeklyalbumchart|user=old",
            "user.getweeklychartlist|user=new",
        ])
        #expect(rows["buttonName"] == ["new"])
        #expect(rows["collagePhoto"] == ["new", "used"])
        #expect(rows["journalEntry"] == ["m:-2:1", "m:-2:2", "m:-2:3"])
        #expect(rows["weeklyPost"] == ["-2"])
        // What the pruning took is counted in the cache's size as well.
        #expect(try await Self.cacheBytes(store) == Self.countedCacheBytes(store))
    }

    /// One row of every table that ages, written at `date` (outbox rows in `chat`).
    static func fill(_ store: BotStore, tag: String, chat: Int64, at date: Date) async throws {
        let message = { (text: String) in
            OutboxMessage(
                chatID: chat, kind: .reply, request: TelegramRequest<SentMessage>.sendMessage(chatID: chat, html: text),
                expiresAt: date.addingTimeInterval(3600)
            )
        }
        let messages = [message("sent"), message("waiting")]
        let enqueued = try await store.write { try $0.enqueue(messages, at: date) }
        try await store.write { transaction in
            _ = try transaction.claimForSending([enqueued[0].id], owner: "test", at: date)
            try transaction.recordSent([OutboxReceipt(id: enqueued[0].id, messageID: 1)], at: date)
            try transaction.saveButtonName("name-\(tag)", key: tag, at: date)
            try transaction.saveCollageFileID("file-\(tag)", for: CollageKey(user: tag, week: 0, minimumPlayCount: 1), at: date)
            let week = Int64(date.timeIntervalSince1970)
            let claim = try transaction.claimWeeklyPost(
                chat: chat, week: week, dueAt: date, force: false, owner: "test", lease: .seconds(120), now: date
            )
            guard case .claimed(let progress) = claim else { return }
            _ = try transaction.completeWeeklyPost(progress, owner: "test", at: date)
        }
        let cache = SQLiteLastFMCache(store: store, now: { date })
        await cache.store(Data("[]".utf8), forKey: "user.getweeklychartlist|user=\(tag)", expiresAt: date.addingTimeInterval(day))
        await cache.store(Data("{}".utf8), forKey: "album.getinfo|artist=\(tag)|album=x", expiresAt: nil)
        await cache.store(Data("{}".utf8), forKey: "user.getweeklyalbumchart|user=\(tag)", expiresAt: nil)
        // The journal: one update handled, one never handled, and one no version can read.
        let updates = (1...2).map { Update(updateID: $0, message: Message(messageID: $0, chat: Chat(id: chat, type: "group"), text: "/help")) }
        _ = try await UpdateJournal(store: store, now: { date }).record(updates.map(ReceivedUpdate.init), nextOffset: 3)
        try await store.write { transaction in
            try transaction.markHandled(updates[0], at: date)
            _ = try transaction.session.execute(
                "INSERT INTO journalEntry (identity, payload, receivedAt) VALUES (?, ?, ?)", [.text("m:\(chat):3"), .blob(Data([0])), .date(date)]
            )
        }
    }

    static func pruner(_ store: BotStore, cap: Int = 1 << 30, now: Date) -> StoragePruner {
        StoragePruner(store: store, listeningCacheBytes: cap, batch: 2, now: { now }, logger: Logger(label: "test"))
    }

    /// What each table holds, as text that says which row it is.
    static func rows(_ store: BotStore) async throws -> [String: [String]] {
        try await store.read { session in
            let numbers = { (sql: String) throws -> [String] in try (session.column(sql) as [Int64]).map { "\($0)" } }
            return [
                "outbox": try session.rows("SELECT chatID, state FROM outbox ORDER BY state DESC, id").map {
                    "\(try $0.get(0) as Int64) \(try $0.get(1) as String)"
                },
                "outboxBody": try numbers("SELECT id FROM outboxBody"),
                "lastfmCache": try session.column("SELECT key FROM lastfmCache ORDER BY key"),
                "buttonName": try session.column("SELECT key FROM buttonName ORDER BY key"),
                "collagePhoto": try session.column(#"SELECT "user" FROM collagePhoto ORDER BY "user""#),
                "journalEntry": try session.column("SELECT identity FROM journalEntry ORDER BY identity"),
                "weeklyPost": try numbers("SELECT chatID FROM weeklyPost ORDER BY chatID"),
            ]
        }
    }

    /// The listening cache's answers, as stored.
    static func cacheBytes(_ store: BotStore) async throws -> Int {
        try await store.read { session in
            try session.rows("SELECT key, value FROM lastfmCache").reduce(0) { total, row in
                total + (try row.get(0) as String).utf8.count + (try row.get(1) as Data).count
            }
        }
    }

    /// The listening cache's size as the store keeps count of it.
    static func countedCacheBytes(_ store: BotStore) async throws -> Int {
        try await store.read { session in try session.value("SELECT bytes FROM lastfmCacheSize") ?? -1 }
    }

    /// However recent, no more finished messages are kept than the count allows: the newest.
    @Test(arguments: TestEngine.allCases) func theOutboxKeepsItsNewestFinishedMessagesUpToItsCount(engine: TestEngine) async throws {
        let store = try await engine.makeStore()
        let message = OutboxMessage(
            chatID: -1, kind: .reply, request: TelegramRequest<SentMessage>.sendMessage(chatID: -1, html: "x"), expiresAt: Self.later
        )
        let enqueued = try await store.write { try $0.enqueue(Array(repeating: message, count: 8), at: Self.then) }
        try await store.write { transaction in
            _ = try transaction.claimForSending(enqueued.dropLast().map(\.id), owner: "test", at: Self.then)
            try transaction.recordSent(enqueued.dropLast().map { OutboxReceipt(id: $0.id, messageID: 1) }, at: Self.then)
        }
        let pruner = StoragePruner(
            store: store, lifetimes: .init(finishedMessageCount: 3), listeningCacheBytes: 1 << 30, batch: 2, now: { Self.then },
            logger: Logger(label: "test")
        )
        try await pruner.prune()
        let left: [Int64] = try await store.read { session in try session.column("SELECT id FROM outbox ORDER BY id") }
        #expect(left == enqueued.suffix(4).map(\.id))
    }

    /// Lanes of chats (who sends a chat's messages, who handles its updates) whose leases
    /// ran out long ago go; a lane held now stays with its holder.
    @Test(arguments: TestEngine.allCases) func lanesLongRunOutGoAndHeldOnesStay(engine: TestEngine) async throws {
        let store = try await engine.makeStore()
        let now = Self.then
        for table in [LaneTable.outbox, .journal] {
            _ = try await store.write { transaction in
                try transaction.takeLanes([1, 2, 3], in: table, owner: "dead", until: now.addingTimeInterval(-7200), at: now.addingTimeInterval(-9000))
                    .union(transaction.takeLanes([4], in: table, owner: "alive", until: now.addingTimeInterval(30), at: now))
            }
        }
        let pruned = try await Self.pruner(store, now: now).prune()
        #expect(pruned["outboxLane"] == 3 && pruned["journalLane"] == 3)
        for table in ["outboxLane", "journalLane"] {
            let left: [String] = try await store.read { session in try session.column("SELECT owner FROM \(table)") }
            #expect(left == ["alive"], "\(table)")
        }
    }

    @Test(arguments: TestEngine.allCases) func aPhotosUploadIsDroppedOnceItIsSettled(engine: TestEngine) async throws {
        let store = try await engine.makeStore()
        let jpeg = Data(repeating: 0xD8, count: 40_000)
        let upload = InputFile(filename: "collage.jpg", contentType: "image/jpeg", data: jpeg)
        let photo = { (chat: Int64) in
            OutboxMessage(
                chatID: chat, kind: .reply, request: TelegramRequest<SentMessage>.sendPhoto(chatID: chat, photo: .upload(upload), captionHTML: "x"),
                expiresAt: Self.later
            )
        }
        let messages = [photo(-1), photo(-1), photo(-1), photo(-1), photo(-2), photo(-1)]
        let enqueued = try await store.write { try $0.enqueue(messages, at: Self.then) }
        try await store.write { transaction in
            _ = try transaction.claimForSending(enqueued.prefix(2).map(\.id), owner: "test", at: Self.then)
            try transaction.recordSent([OutboxReceipt(id: enqueued[0].id, messageID: 10, uploads: enqueued[0].uploads)], at: Self.then)
            _ = try transaction.settleAbandoned(sendingBefore: Self.later, at: Self.then)
            try transaction.settle(enqueued[2], as: .dropped, note: "refused", at: Self.then)
            // Taken by another process meanwhile, which is sending it: not dropped here.
            _ = try transaction.claimForSending([enqueued[3].id], owner: "other", at: Self.then)
            try transaction.settle(enqueued[3], as: .dropped, note: "expired unsent", ifPending: true, at: Self.then)
            _ = try transaction.dropPending(chat: -2, note: "chat gone", at: Self.then)
        }
        // Sent, possibly sent, dropped: never sent again, so the picture's bytes are gone.
        for index in [0, 1, 2, 4] { #expect(try await store.upload(of: enqueued[index]) == nil, "message \(index)") }
        // Still to be sent, by another process or this one.
        for index in [3, 5] { #expect(try await store.upload(of: enqueued[index])?.data == jpeg, "message \(index)") }
    }

    /// A run of 5,000 users' weeks through the cached Last.fm client: each pass brings the
    /// cache back under its cap, the weeks asked for last stay, and the first ones go.
    @Test(arguments: TestEngine.allCases) func fiveThousandUsersKeepTheListeningCacheUnderItsCap(engine: TestEngine) async throws {
        let store = try await engine.makeStore()
        let clock = Mutex(Self.then)
        let now: @Sendable () -> Date = { clock.withLock { $0 } }
        let lastFM = ChartsForAnyone().cached(in: SQLiteLastFMCache(store: store, now: now), now: now)
        let cap = 200 * 1024
        let pruner = StoragePruner(store: store, listeningCacheBytes: cap, batch: 100, now: now, logger: Logger(label: "test"))
        let week = WeeklyChartRange(fromUnix: 1_700_000_000, toUnix: 1_700_604_800)
        var largest = 0
        for user in 0..<5_000 {
            clock.withLock { $0 = Self.then.addingTimeInterval(Double(user)) }
            _ = try await lastFM.weeklyAlbumChart(user: "user\(user)", range: week)
            if user % 500 == 499 {
                largest = max(largest, try await Self.cacheBytes(store))
                try await pruner.prune()
                let bytes = try await Self.cacheBytes(store)
                #expect(bytes <= cap)
                #expect(bytes > cap - 10 * 1024, "evicts what the cap needs, not more")
                #expect(try await Self.countedCacheBytes(store) == bytes)
            }
        }
        #expect(largest > cap, "the run outgrew the cap")
        let kept: [String] = try await store.read { session in try session.column("SELECT key FROM lastfmCache") }
        #expect(kept.contains { $0.contains("user=user4999|") })
        #expect(!kept.contains { $0.contains("user=user0|") })
    }
}

/// Last.fm for any user: a week of ten albums, as `user.getweeklyalbumchart` sends it.
private struct ChartsForAnyone: LastFMClient {
    func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        let albums = (1...10).map { rank in
            ##"{"artist":{"#text":"Artist \##(rank)"},"name":"Album \##(rank)","playcount":"\##(20 - rank)","@attr":{"rank":"\##(rank)"}}"##
        }
        let user = call.user ?? ""
        return try call.decode(Data(#"{"weeklyalbumchart":{"album":[\#(albums.joined(separator: ","))],"@attr":{"user":"\#(user)"}}}"#.utf8))
    }
}
