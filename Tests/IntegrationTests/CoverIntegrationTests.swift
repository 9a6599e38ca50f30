import Clocks
import Covers
import Foundation
import GRDB
import Synchronization
import Telegram
import Testing
import TestSupport
import Throwback
import TestLogging
import WeeklyCharts

/// A renderer that records the tiles it was given and draws with the real one, or fails.
final class RecordingRenderer: CollageRendering {
    private let tiles = Mutex<[[CollageTile]]>([])
    private let fails: Bool
    private let real = CollageRenderer()

    init(fails: Bool = false) {
        self.fails = fails
    }

    var renders: [[CollageTile]] { tiles.withLock { $0 } }

    func render(_ tiles: [CollageTile]) async throws -> Data {
        self.tiles.withLock { $0.append(tiles) }
        if fails { throw CoverError.renderFailed }
        return try await real.render(tiles)
    }
}

/// Throwbacks as cover collages, against the fakes: Last.fm's `album.getInfo` and image host,
/// Telegram's `sendPhoto` and `editMessageMedia`.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct CoverIntegrationTests {
    let group: Int64 = -7001
    let otherGroup: Int64 = -7002
    let member: Int64 = 300
    /// The start of the Last.fm week shown for a throwback `years` years back.
    static func week(_ years: Int) -> Int {
        Int(LastFMWeek.start(of: WeekFinder.date(yearsBefore: BotHarness.now, years: years)).timeIntervalSince1970)
    }

    /// `carol`: six years of weeks, with `albums` albums (all over 5 plays) three and four years ago.
    private func addCarol(_ harness: BotHarness, albums: Int) async {
        let end = Int(LastFMWeek.start(of: BotHarness.now).timeIntervalSince1970)
        await harness.lastFM.addUser("carol", ranges: (1...(52 * 6)).reversed().map { (from: end - $0 * 604_800, to: end - ($0 - 1) * 604_800) })
        for years in [3, 4] {
            let from = Self.week(years)
            await harness.lastFM.setAlbumChart(user: "carol", from: from, to: from + 604_800, albums: (1...albums).map {
                (artist: "Artist \($0)", name: "Album \($0) (\(years)y)", plays: 40 - $0)
            })
        }
    }

    private func expectedCaption(_ harness: BotHarness, _ user: String, years: Int, minimumPlayCount: Int = 1) async throws -> String {
        CollagePhotos.captionFormatter.format(try await harness.engine().throwback(user: user, yearsAgo: years, minimumPlayCount: minimumPlayCount))
    }

    @Test func aThrowbackIsOnePhotoWithTheChartAsCaptionAndAJPEGCollage() async throws {
        let harness = try await BotHarness.start()
        await harness.lastFM.setDefaultCover(.generated)
        await harness.telegram.pushMessage("/tb alice 3", chatID: group, userID: member)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendPhoto")
        try await bot.shutDown()

        let delivered = await harness.telegram.delivered
        #expect(delivered.map(\.method) == ["sendPhoto"])
        let photo = try #require(delivered.first)
        #expect(photo.caption == (try await expectedCaption(harness, "alice", years: 3)))
        #expect(photo.replyToMessageID != nil)
        #expect(photo.buttonData.contains("tb|2|alice"))
        let info = try ImageInfo(inspecting: try #require(photo.files["photo"]))
        #expect(info.format == .jpeg)
        #expect(info.dimensions == ImageDimensions(width: 900, height: 900))
        // Sent, the picture is never uploaded again: its bytes are not kept.
        let database = try DatabaseQueue(path: harness.databasePath)
        #expect(try await database.read { db in try String.fetchAll(db, sql: "SELECT state FROM outbox") } == ["sent"])
        #expect(try await database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM outboxBody WHERE upload IS NOT NULL") } == 0)
        try database.close()
        await harness.stop()
    }

    @Test func theSameThrowbackInAnotherChatReusesTheFileIDAndUploadsNothing() async throws {
        let harness = try await BotHarness.start()
        await harness.lastFM.setDefaultCover(.generated)
        await harness.telegram.pushMessage("/tb alice 3", chatID: group, userID: member)
        var bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendPhoto")
        try await bot.shutDown()
        let lookups = await harness.lastFM.count("album.getinfo")
        let downloads = await harness.lastFM.coverDownloads

        await harness.telegram.pushMessage("/tb alice 3", chatID: otherGroup, userID: member)
        bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendPhoto", count: 2)
        try await bot.shutDown()

        let photos = await harness.telegram.delivered.filter { $0.method == "sendPhoto" }
        #expect(photos.count == 2)
        #expect(photos[1].chatID == otherGroup)
        #expect(photos[1].files.isEmpty)
        let firstID = try #require(await harness.telegram.photoMessage(chat: group, messageID: harness.telegram.sentMessageIDs[0])?.fileID)
        #expect(photos[1].parameters["photo"] as? String == firstID)
        #expect(photos[1].caption == photos[0].caption)
        #expect(await harness.telegram.uploadedPhotos.count == 1)
        #expect(await harness.lastFM.count("album.getinfo") == lookups)
        #expect(await harness.lastFM.coverDownloads == downloads)
        await harness.stop()
    }

    @Test func aFileIDTelegramNoLongerKnowsIsForgottenAndTheCollageUploadedAgain() async throws {
        let harness = try await BotHarness.start()
        await harness.lastFM.setDefaultCover(.generated)
        let key = CollageKey(user: "alice", week: Int64(Self.week(3)), minimumPlayCount: 1)
        try await BotStore(path: harness.databasePath).saveCollageFileID("photo-from-another-bot", for: key, at: BotHarness.now)
        await harness.telegram.pushMessage("/tb alice 3", chatID: group, userID: member)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendPhoto", count: 2)
        try await bot.shutDown()

        #expect(await harness.telegram.refusals.map(\.description) == ["Bad Request: wrong file identifier/HTTP URL specified"])
        #expect(await harness.telegram.delivered.map(\.method) == ["sendPhoto"])
        #expect(await harness.telegram.uploadedPhotos.count == 1)
        let stored = try await BotStore(path: harness.databasePath).collageFileID(key)
        #expect(stored != nil && stored != "photo-from-another-bot")
        await harness.stop()
    }

    @Test func theEarlierYearButtonReplacesThePhotoAndCaptionInPlace() async throws {
        let harness = try await BotHarness.start()
        await harness.lastFM.setDefaultCover(.generated)
        await addCarol(harness, albums: 4)
        await harness.telegram.pushMessage("/tb carol 3", chatID: group, userID: member)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendPhoto")
        let sent = try #require(await harness.telegram.sentMessageIDs.first)
        let before = try #require(await harness.telegram.photoMessage(chat: group, messageID: sent))
        let photo = try #require(await harness.telegram.delivered.first)
        #expect(photo.buttonData.first == "tb|4|carol")
        await harness.telegram.pushCallback(data: "tb|4|carol", chatID: group, messageID: sent, userID: member)
        try await harness.telegram.waitForCalls("editMessageMedia")
        try await bot.shutDown()

        let after = try #require(await harness.telegram.photoMessage(chat: group, messageID: sent))
        #expect(after.fileID != before.fileID)
        #expect(after.caption == (try await expectedCaption(harness, "carol", years: 4)))
        #expect(await harness.telegram.sentMessageIDs.count == 1)
        #expect(await harness.telegram.uploadedPhotos.count == 2)
        #expect(await harness.telegram.refusals.isEmpty)
        await harness.stop()
    }

    @Test func coversThatAreMissingHTMLHugeOrABombBecomePlaceholderTiles() async throws {
        let harness = try await BotHarness.start()
        await harness.lastFM.setDefaultCover(.generated)
        await addCarol(harness, albums: 9)
        var bomb = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        bomb += Data("IHDR".utf8) + Data([0, 0, 0x75, 0x30, 0, 0, 0x75, 0x30, 8, 6, 0, 0, 0]) + Data(count: 4096)
        let huge = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(count: 20 << 20)
        let bad: [FakeLastFM.Cover] = [
            .served(status: 404, body: Data("<html>Not Found</html>".utf8), contentType: "text/html"),
            .served(status: 200, body: Data("<!doctype html><html><body>cover</body></html>".utf8), contentType: "image/jpeg"),
            .served(status: 200, body: huge, contentType: "image/jpeg"),
            .served(status: 200, body: bomb, contentType: "image/png"),
        ]
        for (offset, cover) in bad.enumerated() {
            await harness.lastFM.setCover(artist: "Artist \(6 + offset)", album: "Album \(6 + offset) (3y)", cover)
        }
        let renderer = RecordingRenderer()
        await harness.telegram.pushMessage("/tb carol 3", chatID: group, userID: member)
        let bot = RunningBot(try await harness.services(clock: ImmediateClock(), admins: [member], collageRenderer: renderer).bot)
        try await harness.telegram.waitForCalls("sendPhoto")
        #expect(await harness.lastFM.coverDownloads == 9)
        // Another collage of the same albums: the good covers come from disk, the 404, the
        // HTML and the bomb are not fetched again; only the cut-off one is tried again.
        await harness.telegram.pushMessage("/filter 2", chatID: group, userID: member)
        await harness.telegram.pushMessage("/tb carol 3", chatID: group, userID: member)
        try await harness.telegram.waitForCalls("sendPhoto", count: 2)
        try await bot.shutDown()
        #expect(await harness.lastFM.coverDownloads == 10)

        let tiles = try #require(renderer.renders.first)
        #expect(tiles.map(\.rank) == Array(1...9))
        #expect(tiles.map { $0.image != nil } == Array(repeating: true, count: 5) + Array(repeating: false, count: 4))
        let photo = try #require(await harness.telegram.delivered.first)
        #expect(try ImageInfo(inspecting: try #require(photo.files["photo"])).dimensions == ImageDimensions(width: 900, height: 900))
        // The huge body was cut off at the size cap: that cover may work next time, so this
        // collage is not kept for reuse.
        let key = CollageKey(user: "carol", week: Int64(Self.week(3)), minimumPlayCount: 1)
        #expect(try await BotStore(path: harness.databasePath).collageFileID(key) == nil)
        await harness.stop()
    }

    @Test func whenRenderingFailsTheReplyIsTheTextMessage() async throws {
        let harness = try await BotHarness.start()
        await harness.lastFM.setDefaultCover(.generated)
        await harness.telegram.pushMessage("/tb alice 3", chatID: group, userID: member)
        let renderer = RecordingRenderer(fails: true)
        let bot = RunningBot(try await harness.services(clock: ImmediateClock(), collageRenderer: renderer).bot)
        try await harness.telegram.waitForCalls("sendMessage")
        try await bot.shutDown()

        #expect(renderer.renders.count == 1)
        #expect(await harness.telegram.calls("sendPhoto").isEmpty)
        #expect(await harness.telegram.delivered.map(\.text) == [try await harness.expectedReply("alice", years: 3)])
        await harness.stop()
    }

    /// A picture Telegram will not take (here, bytes no image decoder reads) never costs the
    /// answer: the caption goes as text instead, with its buttons.
    @Test func aPictureTelegramRefusesIsReplacedByItsCaptionAsText() async throws {
        struct Garbage: CollageRendering {
            func render(_ tiles: [CollageTile]) async throws -> Data { Data("GIF89a not a JPEG".utf8) }
        }
        let harness = try await BotHarness.start()
        await harness.lastFM.setDefaultCover(.generated)
        await harness.telegram.pushMessage("/tb alice 3", chatID: group, userID: member, messageID: 8)
        let bot = RunningBot(try await harness.services(clock: ImmediateClock(), collageRenderer: Garbage()).bot)
        try await harness.telegram.waitForDeliveries(1)
        try await bot.shutDown()

        #expect(await harness.telegram.refusals.map(\.description) == ["Bad Request: IMAGE_PROCESS_FAILED"])
        let reply = try #require(await harness.telegram.delivered.first)
        #expect(reply.method == "sendMessage")
        #expect(reply.text == (try await expectedCaption(harness, "alice", years: 3)))
        #expect(reply.replyToMessageID == 8)
        #expect(reply.buttonData.contains("tb|2|alice"))
        await harness.stop()
    }

    @Test func withoutAnyCoverOrWithCoversOffTheReplyIsText() async throws {
        let harness = try await BotHarness.start()
        // No album has art: a grid of placeholders would say less than the text.
        await harness.telegram.pushMessage("/tb alice 3", chatID: group, userID: member)
        await harness.telegram.pushMessage("/covers off", chatID: otherGroup, userID: member)
        var bot = RunningBot(try await harness.bot(clock: ImmediateClock(), admins: [member]))
        try await harness.telegram.waitForCalls("sendMessage", count: 2)
        try await bot.shutDown()
        await harness.lastFM.setDefaultCover(.generated)
        await harness.telegram.pushMessage("/tb alice 3", chatID: otherGroup, userID: member)
        bot = RunningBot(try await harness.bot(clock: ImmediateClock(), admins: [member]))
        try await harness.telegram.waitForCalls("sendMessage", count: 3)
        try await bot.shutDown()

        let expected = try await harness.expectedReply("alice", years: 3)
        let replies = await harness.telegram.delivered.sorted { $0.chatID ?? 0 > $1.chatID ?? 0 }.map { $0.text ?? "" }
        #expect(replies.contains(expected))
        #expect(replies.contains("Throwbacks here are text only. Turn the cover collage on with: covers on"))
        #expect(await harness.telegram.delivered.filter { $0.chatID == otherGroup }.last?.text == expected)
        #expect(await harness.telegram.calls("sendPhoto").isEmpty)
        await harness.stop()
    }

    @Test func aColdCollageOfNineAlbumsCostsNineLookupsAndAWarmOneNone() async throws {
        let harness = try await BotHarness.start()
        await harness.lastFM.setDefaultCover(.generated)
        await addCarol(harness, albums: 12)
        let renderer = RecordingRenderer()
        await harness.telegram.pushMessage("/tb carol 3", chatID: group, userID: member)
        var bot = RunningBot(try await harness.services(clock: ImmediateClock(), admins: [member], collageRenderer: renderer).bot)
        try await harness.telegram.waitForCalls("sendPhoto")
        try await bot.shutDown()
        #expect(await harness.lastFM.count("album.getinfo") == 9)
        #expect(await harness.lastFM.coverDownloads == 9)

        // Another filter is another collage of the same nine albums, after a restart: the
        // cover URLs come from the database and the covers from the disk cache.
        await harness.telegram.pushMessage("/filter 2", chatID: otherGroup, userID: member)
        await harness.telegram.pushMessage("/tb carol 3", chatID: otherGroup, userID: member)
        bot = RunningBot(try await harness.services(clock: ImmediateClock(), admins: [member], collageRenderer: renderer).bot)
        try await harness.telegram.waitForCalls("sendPhoto", count: 2)
        try await bot.shutDown()
        #expect(renderer.renders.count == 2)
        #expect(renderer.renders.allSatisfy { $0.count == 9 && $0.allSatisfy { $0.image != nil } })
        #expect(await harness.lastFM.count("album.getinfo") == 9)
        #expect(await harness.lastFM.coverDownloads == 9)
        #expect(await harness.telegram.uploadedPhotos.count == 2)
        await harness.stop()
    }

    @Test func theWeeklyPostOpensWithOneCollageOfTheRostersCombinedWeek() async throws {
        let harness = try await BotHarness.start()
        await harness.lastFM.setDefaultCover(.generated)
        let end = Int(LastFMWeek.start(of: BotHarness.now).timeIntervalSince1970)
        let oneYear = Self.week(1)
        for user in ["dana", "eve"] {
            await harness.lastFM.addUser(user, ranges: (1...104).reversed().map { (from: end - $0 * 604_800, to: end - ($0 - 1) * 604_800) })
        }
        await harness.lastFM.setAlbumChart(user: "dana", from: oneYear, to: oneYear + 604_800, albums: [
            ("Low", "Things We Lost in the Fire", 10), ("Björk", "Homogenic", 4),
        ])
        await harness.lastFM.setAlbumChart(user: "eve", from: oneYear, to: oneYear + 604_800, albums: [
            ("Björk", "homogenic", 9), ("Slint", "Spiderland", 6),
        ])
        let store = try BotStore(path: harness.databasePath)
        try await store.updateSettings(for: group) { $0.weeklyPost = true }
        _ = try await store.addToRoster(["dana", "eve"], chat: group, limit: 50)
        let renderer = RecordingRenderer()
        let services = try await harness.services(clock: ImmediateClock(), collageRenderer: renderer)

        #expect(await services.poster.post(chat: group, dueAt: BotHarness.now).posted == [2, 2])
        await services.outbox.idle()
        let delivered = await harness.telegram.delivered
        try #require(delivered.map(\.method) == ["sendPhoto", "sendMessage"])
        let header = ChartFormatter.telegram.weeklyHeader(for: WeeklyPostComposer.week(at: BotHarness.now))
        #expect(delivered[0].caption == header)
        #expect(delivered[1].text?.hasPrefix(header) == false)
        #expect(delivered[1].text?.contains("<b>dana</b>") == true)
        #expect(delivered[1].text?.contains("<b>eve</b>") == true)
        // Björk's Homogenic: 4 + 9 plays, whatever the spelling, comes first.
        #expect(renderer.renders.first?.map(\.label) == [
            "Björk\nHomogenic", "Low\nThings We Lost in the Fire", "Slint\nSpiderland",
        ])
        #expect(await services.poster.post(chat: group, dueAt: BotHarness.now) == .alreadyPosted)
        await harness.stop()
    }
}
