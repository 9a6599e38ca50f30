import Clocks
import Foundation
import Networking
import Synchronization
import Telegram
import Testing
import TestSupport
import Throwback
import TestLogging
import WeeklyCharts

extension WeeklyPostOutcome {
    /// The numbers of messages and of users of a post handed to the outbox.
    var posted: [Int]? {
        guard case let .posted(messages, users) = self else { return nil }
        return [messages.count, users]
    }
}

@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct WeeklyPostTests {
    /// Turns the weekly post on for `chat`, with `users` tracked.
    private func prepare(_ harness: BotHarness, chat: Int64, users: [String], schedule: String? = nil, zone: String? = nil) async throws {
        let store = try BotStore(path: harness.databasePath)
        try await store.updateSettings(for: chat) {
            $0.weeklyPost = true
            $0.schedule = schedule
            $0.scheduleZone = zone
        }
        _ = try await store.addToRoster(users, chat: chat, limit: 50)
    }

    @Test(arguments: [
        ("sun 02:30", "Europe/Berlin", 1_774_699_200, 1_774_747_800),
        ("sun 02:30", "Europe/Berlin", 1_792_843_200, 1_792_888_200),
        ("sun 02:30", "America/New_York", 1_772_884_800, 1_772_955_000),
        ("sun 01:30", "America/New_York", 1_793_448_000, 1_793_511_000),
    ])
    func theSchedulerFiresAtTheRightInstantAcrossDaylightSaving(schedule: String, zone: String, start: Int, expected: Int) async throws {
        let harness = try await BotHarness.start()
        let clock = TestClock()
        let date = TestDate(Date(timeIntervalSince1970: TimeInterval(start)), following: clock)
        try await prepare(harness, chat: -8001, users: ["alice"], schedule: schedule, zone: zone)
        let services = try await harness.services(clock: clock, now: { date.now })
        let running = RunningBot(services: [services.scheduler])
        // Up to a second before the instant: nothing.
        var remaining = Duration.seconds(expected - start - 1)
        while remaining > .zero {
            #expect(await clock.waitForSleeper())
            let step = min(remaining, .seconds(1800))
            await clock.advance(by: step)
            remaining -= step
        }
        #expect(await clock.waitForSleeper())
        #expect(await harness.telegram.calls("sendMessage").isEmpty)
        await clock.advance(by: .seconds(1))
        try await harness.telegram.waitForCalls("sendMessage")
        try await running.shutDown(advancing: clock)
        let post = try #require(await harness.telegram.delivered.first)
        #expect(post.chatID == -8001)
        #expect(post.text?.contains("<b>alice</b>") == true)
        await harness.stop()
    }

    @Test func aPostMissedWhileDownIsCaughtUpOnceButNotOnceItsWeekIsOver() async throws {
        let harness = try await BotHarness.start()
        let date = TestDate(Date(timeIntervalSince1970: 1_794_996_000)) // Wed 18 Nov, 10:00 UTC
        try await prepare(harness, chat: -8002, users: ["alice"])
        let services = try await harness.services(clock: ImmediateClock(), now: { date.now })
        // The post was due Monday 09:00 while the bot was down: it goes out once now.
        await services.scheduler.tick()
        await services.scheduler.tick()
        await services.outbox.idle()
        #expect(await harness.telegram.delivered.count == 1)
        // A bot down over the next Monday that starts on Sunday afternoon, after the Last.fm
        // week ended, posts nothing for the week it missed.
        date.set(1_795_424_400 + 7 * 24 * 3600 - 20 * 3600) // Sun 29 Nov, 13:00 UTC
        await services.scheduler.tick()
        await services.outbox.idle()
        #expect(await harness.telegram.delivered.count == 1)
        date.set(1_795_424_400 + 7 * 24 * 3600) // Mon 30 Nov, 09:00 UTC
        await services.scheduler.tick()
        await services.outbox.idle()
        #expect(await harness.telegram.delivered.count == 2)
        await harness.stop()
    }

    /// The whole post is handed to the outbox at once: a stop between two of its messages
    /// leaves the rest to the next start, which sends each of them once.
    @Test func aStopInTheMiddleOfAPostLeavesTheRestToTheNextStartAndPostsNobodyTwice() async throws {
        let harness = try await BotHarness.start()
        let users = ["alice", "bob", "slowpoke"]
        try await prepare(harness, chat: -8003, users: users)
        let instant = Date(timeIntervalSince1970: 1_794_819_600)
        let clock = TestClock()
        // Short messages, so that the post takes several, a second apart.
        let first = try await harness.services(clock: clock, weeklyMessageLength: 100)
        let delivering = Task { await first.outbox.run() }
        guard case .posted(let messages, let posted) = await first.poster.post(chat: -8003, dueAt: instant) else {
            Issue.record("not posted")
            return
        }
        #expect(posted == 3)
        #expect(messages.count == 2)
        try await harness.telegram.waitForCalls("sendMessage")
        // The second message waits for the chat's flood limit when the process stops.
        #expect(await clock.waitForSleeper())
        delivering.cancel()
        await first.outbox.idle()
        #expect(await harness.telegram.delivered.count == 1)

        let second = try await harness.services(clock: ImmediateClock(), weeklyMessageLength: 100)
        #expect(await second.poster.post(chat: -8003, dueAt: instant) == .alreadyPosted)
        await second.outbox.scan()
        await second.outbox.idle()
        let texts = await harness.telegram.delivered.map { $0.text ?? "" }
        #expect(texts.count == 2)
        for user in users { #expect(texts.filter { $0.contains("<b>\(user)</b>") }.count == 1, "\(user)") }
        #expect(texts[0].contains("This week one year ago"))
        #expect(!texts[1].contains("This week one year ago"))
        await harness.stop()
    }

    @Test func aSecondRunInTheSameWeekSendsNothingUnlessForced() async throws {
        let harness = try await BotHarness.start()
        try await prepare(harness, chat: -8004, users: ["alice", "bob"])
        let services = try await harness.services(clock: ImmediateClock())
        let due = try await services.scheduler.due(at: BotHarness.now)
        #expect(due.map(\.chat) == [-8004])
        for item in due { #expect(await services.poster.post(chat: item.chat, dueAt: item.instant).posted == [1, 2]) }
        #expect(try await services.scheduler.due(at: BotHarness.now).isEmpty)
        let forced = try await services.scheduler.due(at: BotHarness.now, includingPosted: true)
        #expect(await services.poster.post(chat: -8004, dueAt: forced[0].instant) == .alreadyPosted)
        #expect(await services.poster.post(chat: -8004, dueAt: forced[0].instant, force: true).posted == [1, 2])
        await services.outbox.idle()
        #expect(await harness.telegram.delivered.count == 2)
        await harness.stop()
    }

    @Test func threeChatsAndTenUsersWithinBothAPIsLimits() async throws {
        let harness = try await BotHarness.start()
        // Users with eleven years of weeks, so that both anniversaries have data, and a
        // chart in each of those weeks.
        let end = Int(LastFMWeek.start(of: BotHarness.now).timeIntervalSince1970)
        let elevenYears = (1...(52 * 11 + 2)).reversed().map { (from: end - $0 * 604_800, to: end - ($0 - 1) * 604_800) }
        let users = (1...10).map { "user\($0)" }
        for user in users {
            await harness.lastFM.addUser(user, ranges: user == "user2" ? elevenYears : Array(elevenYears.suffix(52 * 2)))
        }
        for years in [1, 5, 10] {
            // The post is about the weeks before the instant it was due: Monday 16 Nov 09:00.
            let due = Date(timeIntervalSince1970: 1_794_819_600)
            let from = Int(LastFMWeek.start(of: WeekFinder.date(yearsBefore: due, years: years)).timeIntervalSince1970)
            for user in users {
                await harness.lastFM.setAlbumChart(user: user, from: from, to: from + 604_800, albums: [("Artist \(years)", "Album of \(user)", 10 + years)])
            }
        }
        await harness.lastFM.failAlways(user: "user5")
        // "ghost" was renamed on Last.fm after it was added: its section says so, not that Last.fm failed.
        try await prepare(harness, chat: -9001, users: ["user1", "user2", "user3", "user4", "ghost"])
        try await prepare(harness, chat: -9002, users: ["user5", "user6", "user7", "user1"])
        try await prepare(harness, chat: -9003, users: ["user8", "user9", "user10"])
        await harness.telegram.setGone(-9003)
        let services = try await harness.services(clock: ImmediateClock())
        await services.scheduler.tick()
        await services.outbox.idle()

        let delivered = await harness.telegram.delivered
        let first = try #require(delivered.first { $0.chatID == -9001 }?.text)
        let second = try #require(delivered.first { $0.chatID == -9002 }?.text)
        #expect(first.contains("<b>user1</b>") && first.contains("<b>user4</b>"))
        #expect(first.range(of: "<b>user1</b>")!.lowerBound < first.range(of: "<b>user2</b>")!.lowerBound)
        #expect(first.contains("5 years ago this week") && first.contains("10 years ago this week"), "\(first)")
        #expect(first.contains("<b>ghost</b>: Last.fm no longer knows this account"), "\(first)")
        #expect(second.contains("<b>user5</b>: unavailable this week"))
        #expect(second.contains("<b>user6</b>") && second.contains("<b>user1</b>"))
        #expect(await harness.telegram.tooManyRequests == 0)
        let gone = try await BotStore(path: harness.databasePath).settings(for: -9003)
        #expect(!gone.active && !gone.weeklyPostIsOn(defaultChat: nil))
        // Two calls a user (one chart list, one chart), plus user2's two anniversaries; user1 is
        // asked once for both chats. user5's failing calls are retries of one failure. Each
        // album of the chats' collages is looked up once, whichever chats show it.
        let calls = await harness.lastFM.calls.filter { !["user5", "ghost"].contains($0.user?.lowercased()) && $0.method != "album.getinfo" }
        #expect(calls.count <= 2 * 9 + 2)
        #expect(await harness.lastFM.count("album.getinfo") <= 9)
        #expect(harness.logs.text.contains("weekly post handed to the outbox"))
        #expect(harness.logs.text.contains("the bot can no longer post here"))
        await harness.stop()
    }

    @Test func weeklyOnInAForumTopicPostsThereAndTheCommandsAnswerInOneLine() async throws {
        let harness = try await BotHarness.start()
        let chat: Int64 = -9100
        await harness.telegram.pushMessage("/weekly on", chatID: chat, userID: 1, topic: 77)
        await harness.telegram.pushMessage("/track alice", chatID: chat, userID: 1, topic: 77)
        await harness.telegram.pushMessage("/weekly someday 09:00", chatID: chat, userID: 1, topic: 77)
        await harness.telegram.pushMessage("/weekly fri 25:00", chatID: chat, userID: 1, topic: 77)
        await harness.telegram.pushMessage("/weekly fri 18:00 Mars/Olympus", chatID: chat, userID: 1, topic: 77)
        await harness.telegram.pushMessage("/weekly fri 18:00 Europe/Berlin", chatID: chat, userID: 1, topic: 77)
        await harness.telegram.pushMessage("/postnow", chatID: chat, userID: 1, topic: 77)
        let services = try await harness.services(clock: ImmediateClock(), admins: [1])
        let running = RunningBot(services: [services.bot])
        try await harness.telegram.waitForCalls("sendMessage", count: 7)
        try await running.shutDown()

        let delivered = await harness.telegram.delivered
        #expect(delivered.allSatisfy { $0.threadID == 77 })
        let texts = delivered.map { $0.text ?? "" }
        #expect(texts[0].hasPrefix("The weekly throwback post is on: the next one is due Mon "))
        #expect(texts[1] == "Now tracking alice.")
        #expect(texts[2].contains("is not a day of the week") && !texts[2].contains("\n"))
        #expect(texts[3].contains("is not a time") && !texts[3].contains("\n"))
        #expect(texts[4].contains("is not a time zone") && !texts[4].contains("\n"))
        #expect(texts[5].contains("Fri 20 Nov, 18:00 (Europe/Berlin)"))
        #expect(texts[6].contains("This week one year ago") && texts[6].contains("<b>alice</b>"))
        // The forced post counts as this week's.
        #expect(try await services.scheduler.due(at: BotHarness.now).isEmpty)
        await harness.stop()
    }
}
