import Clocks
import Foundation
import Networking
import Prometheus
import Testing
import TestSupport
import Throwback
import TestLogging
import WeeklyCharts

/// Many chats due at the same minute, on an instance where Last.fm allows 5 requests a second.
@Suite(.capturingLogs, .timeLimit(.minutes(3))) struct WeeklyPrefetchTests {
    /// Mon 23 Nov 2026, 09:00 UTC: `THROWBACK_SCHEDULE`'s default.
    static let due = 1_795_424_400

    /// Sixty chats of five users each, due at once: without prefetching, their 600 requests
    /// would take two minutes at Last.fm's 5 a second. The bot runs from an hour before;
    /// at the due minute it asks Last.fm nothing, and every post goes out within the time
    /// Telegram's 30 messages a second need for sixty (the outbox's second, with its margin,
    /// is 1.1 s). A `/tb` sent meanwhile is answered without the clock moving on.
    @Test func sixtyChatsDueAtOnceGoOutWithinTelegramsLimitsAndATBIsAnsweredMeanwhile() async throws {
        let harness = try await BotHarness.start()
        let clock = TestClock()
        let prefetchClock = TestClock()
        let start = Self.due - 3600
        let date = TestDate(Date(timeIntervalSince1970: TimeInterval(start)), following: clock)
        await harness.lastFM.limitRate(5, per: .seconds(1), clock: clock)
        let end = Int(LastFMWeek.start(of: BotHarness.now).timeIntervalSince1970)
        let ranges = (1...(52 * 4)).reversed().map { (from: end - $0 * 604_800, to: end - ($0 - 1) * 604_800) }
        let week = Int(LastFMWeek.start(of: WeekFinder.date(yearsBefore: Date(timeIntervalSince1970: TimeInterval(Self.due)), years: 1)).timeIntervalSince1970)
        let store = try BotStore(path: harness.databasePath)
        let chats = (1...60).map { -70_000 - Int64($0) }
        for chat in chats {
            let users = (1...5).map { "u\(-chat)x\($0)" }
            for user in users {
                await harness.lastFM.addUser(user, ranges: ranges)
                await harness.lastFM.setAlbumChart(user: user, from: week, to: week + 604_800, albums: [("Artist", "Album of \(user)", 7)])
            }
            try await store.updateSettings(for: chat) { $0.weeklyPost = true }
            _ = try await store.addToRoster(users, chat: chat, limit: 50)
        }
        // A name Last.fm no longer knows (renamed since it was added) is an answer: it is not
        // retried, holds nothing up, and costs nothing at the due minute.
        _ = try await store.addToRoster(["ghost"], chat: chats[0], limit: 50)
        let tbWeek = Int(LastFMWeek.start(of: WeekFinder.date(yearsBefore: Date(timeIntervalSince1970: TimeInterval(Self.due - 1800)), years: 3)).timeIntervalSince1970)
        await harness.lastFM.setAlbumChart(user: "alice", from: tbWeek, to: tbWeek + 604_800, albums: [("Low", "Double Negative", 9)])

        // What `vinylogue-bot check` reports of the next day's posts.
        let check = BotAssembly(
            configuration: harness.configuration(), lastFMTransport: harness.transport, lastFMKey: Secret(""), options: .init(now: { date.now })
        )
        #expect(try await check.weeklyPrefetchCoverage(store: store) == WeeklyPrefetchCoverage(fetched: 0, due: 301))
        let registry = PrometheusCollectorRegistry()
        let services = try await harness.services(
            clock: clock, now: { date.now }, metrics: BotMetrics(prometheus: registry), lastFMRequestsPerSecond: 5, prefetchClock: prefetchClock
        )
        let running = RunningBot(services: services.all)
        var target = start
        /// Moves both clocks on by a second, to `target`, once the prefetcher pauses between
        /// users; a rate limit holding it up passes with the bot's clock, never beyond `target`.
        func step() async throws {
            try Task.checkCancellation()
            target += 1
            // Bounded, so that a prefetcher that never pauses fails the test instead of hanging it.
            for _ in 0..<10 {
                if await prefetchClock.waitForSleeper(limit: .milliseconds(20)) { break }
                let left = TimeInterval(target) - date.now.timeIntervalSince1970
                guard left > 0 else { break }
                await clock.advance(by: .seconds(min(0.5, left)))
            }
            await clock.waitForSleeper()
            let left = TimeInterval(target) - date.now.timeIntervalSince1970
            if left > 0 { await clock.advance(by: .seconds(left)) }
            await prefetchClock.advance(by: .seconds(1))
        }
        while target < Self.due - 1800 { try await step() }

        // Half an hour before, prefetching runs; a throwback is answered without the clock moving.
        let requestsBefore = await harness.lastFM.count()
        await harness.telegram.pushMessage("/tb alice 3", chatID: 42, userID: 42)
        try await harness.telegram.waitForDeliveries(1)
        #expect(await harness.telegram.delivered.first?.text?.contains("Double Negative") == true)
        #expect(await harness.lastFM.count() > requestsBefore)

        while target < Self.due - 1 { try await step() }
        let coverage = try await check.weeklyPrefetchCoverage(store: store)
        // The renamed account has no week to keep: its post asks for it again.
        #expect(coverage == WeeklyPrefetchCoverage(fetched: 300, due: 301), "\(coverage)")
        // And what `/metrics` says of them: the prefetcher counts the users it is done with,
        // the renamed account among them.
        let metrics = String(decoding: registry.emitToBuffer(), as: UTF8.self)
        #expect(metrics.contains("vinylogue_weekly_prefetch_due_users 301") && metrics.contains("vinylogue_weekly_prefetch_fetched_users 301"), "\(metrics)")
        let requestsBeforeDue = await harness.lastFM.count()
        try await step()
        // The first thirty posts go at the due minute, the other thirty one flood window later.
        try await harness.telegram.waitForDeliveries(31)
        await clock.waitForSleeper()
        await clock.advance(by: .milliseconds(1100))
        try await harness.telegram.waitForDeliveries(61)

        let posts = await harness.telegram.delivered.dropFirst()
        #expect(Set(posts.map(\.chatID)) == Set(chats))
        #expect(posts.allSatisfy { $0.text?.contains("Album of u") == true })
        #expect(posts.first { $0.chatID == chats[0] }?.text?.contains("<b>ghost</b>: Last.fm no longer knows this account") == true)
        // Only the renamed account is asked again (its answer is not cached): one request.
        let late = await harness.lastFM.calls.dropFirst(requestsBeforeDue).filter { $0.user != "ghost" }
            .map { "\($0.method) \($0.user ?? $0.query["album"] ?? "")" }
        #expect(late.isEmpty, "\(late)")
        #expect(await harness.lastFM.rateLimitRefusals == 0)
        #expect(await harness.telegram.tooManyRequests == 0)
        try await running.shutDown(advancing: clock)
        await harness.stop()
    }

    /// Last.fm down from an hour before a post: the prefetcher asks about one user, then waits
    /// five minutes, then longer, asking nothing meanwhile; once Last.fm is back, the next
    /// attempt fetches every user.
    @Test func whileLastFMIsDownPrefetchingBacksOffAndResumesWhenItIsBack() async throws {
        let harness = try await BotHarness.start()
        let prefetchClock = TestClock()
        let end = Int(LastFMWeek.start(of: BotHarness.now).timeIntervalSince1970)
        let ranges = (1...(52 * 2)).reversed().map { (from: end - $0 * 604_800, to: end - ($0 - 1) * 604_800) }
        let week = Int(LastFMWeek.start(of: WeekFinder.date(yearsBefore: Date(timeIntervalSince1970: TimeInterval(Self.due)), years: 1)).timeIntervalSince1970)
        let users = ["ana", "ben", "cy"]
        for user in users {
            await harness.lastFM.addUser(user, ranges: ranges)
            await harness.lastFM.setAlbumChart(user: user, from: week, to: week + 604_800, albums: [("Artist", "Album of \(user)", 7)])
        }
        let store = try BotStore(path: harness.databasePath)
        try await store.updateSettings(for: -71_001) { $0.weeklyPost = true }
        _ = try await store.addToRoster(users, chat: -71_001, limit: 50)
        await harness.lastFM.beginOutage(.raw(status: 503, body: "<html>Service Unavailable</html>"))
        let services = try await harness.services(
            clock: ImmediateClock(), breakerClock: prefetchClock, now: { Date(timeIntervalSince1970: TimeInterval(Self.due - 3600)) },
            prefetchClock: prefetchClock
        )
        let running = RunningBot(services: [services.prefetcher])

        // The first user's attempt (with the client's retries) fails; then a wait of five
        // minutes or more (jittered by a fifth) with no request.
        #expect(await prefetchClock.waitForSleeper())
        let afterFirst = await harness.lastFM.count()
        #expect(afterFirst > 0)
        await prefetchClock.advance(by: .seconds(235))
        #expect(await prefetchClock.waitForSleeper())
        #expect(await harness.lastFM.count() == afterFirst)
        // The second attempt (the breaker's trial request, its minute of cooling down being
        // over) fails too; the wait after it is longer.
        await prefetchClock.advance(by: .seconds(130))
        #expect(await prefetchClock.waitForSleeper())
        let afterSecond = await harness.lastFM.count()
        #expect(afterSecond > afterFirst)
        await prefetchClock.advance(by: .seconds(365))
        #expect(await prefetchClock.waitForSleeper())
        #expect(await harness.lastFM.count() == afterSecond)

        await harness.lastFM.endOutage()
        let check = BotAssembly(
            configuration: harness.configuration(), lastFMTransport: harness.transport, lastFMKey: Secret(""),
            options: .init(now: { Date(timeIntervalSince1970: TimeInterval(Self.due - 3600)) })
        )
        for _ in 0..<40 where try await check.weeklyPrefetchCoverage(store: store).fetched < 3 {
            await prefetchClock.advance(by: .seconds(60))
            #expect(await prefetchClock.waitForSleeper())
        }
        #expect(try await check.weeklyPrefetchCoverage(store: store) == WeeklyPrefetchCoverage(fetched: 3, due: 3))
        try await running.shutDown(advancing: prefetchClock)
        await harness.stop()
    }
}
