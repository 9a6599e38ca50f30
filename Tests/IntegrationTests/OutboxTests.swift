import Clocks
import Foundation
import Networking
import Telegram
import Testing
import TestSupport
import Throwback
import TestLogging

/// The outbox against the fakes: when guards judge, when messages wait, and when they are dropped.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct OutboxTests {
    let group: Int64 = -6001
    let other: Int64 = -6002
    let admin: Int64 = 100

    /// Moves `clock` on a second at a time until the fake has accepted `count` messages.
    private func deliver(_ count: Int, _ harness: BotHarness, advancing clock: TestClock<Duration>) async {
        while await harness.telegram.delivered.count < count {
            await clock.waitForSleeper(limit: .milliseconds(100))
            await clock.advance(by: .seconds(1))
        }
    }

    /// 25 throwbacks in a second from one person: the rate limit judges them as they arrive,
    /// not as the chat's queue reaches them a second apart, so the burst gets its answers and
    /// one notice, and nothing more however long the replies take to go out.
    @Test func aFloodIsJudgedWhenItArrives() async throws {
        let harness = try await BotHarness.start()
        for _ in 0..<25 { await harness.telegram.pushMessage("/tb alice 3", chatID: group, userID: 7) }
        let clock = TestClock()
        let services = try await harness.services(clock: clock)
        let bot = RunningBot(services.bot)
        // The poller asks again only once intake has judged the whole first batch: until
        // then the clock stands still, as it would within the real second of the burst.
        try await harness.telegram.waitForCalls("getUpdates", count: 2)
        await deliver(16, harness, advancing: clock)
        // A minute more: nothing else was admitted.
        for _ in 0..<60 {
            await clock.waitForSleeper(limit: .milliseconds(10))
            await clock.advance(by: .seconds(1))
        }
        await services.outbox.idle()
        try await bot.shutDown(advancing: clock)

        let texts = await harness.telegram.delivered.map { $0.text ?? "" }
        #expect(texts.count == 16)
        #expect(texts.filter { $0.hasPrefix("<b>alice</b>") }.count == 15)
        #expect(texts.filter { $0.hasPrefix("Slow down") }.count == 1)
        #expect(await harness.telegram.tooManyRequests == 0)
        await harness.stop()
    }

    /// A 429 holds back that chat for its `retry_after`; another chat's reply goes at once.
    @Test func aFloodWaitHoldsBackOneChatOnly() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.inject(.error(code: 429, description: "Too Many Requests: retry after 30", retryAfter: 30), method: "sendMessage", chat: group)
        await harness.telegram.pushMessage("/help", chatID: group, messageID: 1)
        await harness.telegram.pushMessage("/help", chatID: group, messageID: 2)
        await harness.telegram.pushMessage("/help", chatID: other, messageID: 3)
        let clock = TestClock()
        let bot = RunningBot(try await harness.bot(clock: clock))
        try await harness.telegram.waitForDeliveries(1)
        #expect(await harness.telegram.delivered.map(\.replyToMessageID) == [3])
        await clock.waitForSleeper()
        await clock.advance(by: .seconds(29))
        #expect(await harness.telegram.delivered.count == 1)
        await deliver(3, harness, advancing: clock)
        try await bot.shutDown(advancing: clock)
        // The held chat's replies went in order once the wait was over.
        #expect(await harness.telegram.delivered.map(\.replyToMessageID) == [3, 1, 2])
        await harness.stop()
    }

    /// A group became a supergroup while its replies waited: the first reply finds out (Telegram
    /// refuses the old id and names the new one) and goes there, and the rest follow it, in
    /// order, without asking the old id again.
    @Test func repliesWaitingForAGroupFollowItToItsSupergroup() async throws {
        let harness = try await BotHarness.start()
        let supergroup: Int64 = -1_006_001
        await harness.telegram.upgradeGroup(group, to: supergroup, announce: false)
        for id: Int64 in 1...3 { await harness.telegram.pushMessage("/help", chatID: group, messageID: id) }
        let clock = TestClock()
        let bot = RunningBot(try await harness.bot(clock: clock))
        await deliver(3, harness, advancing: clock)
        try await bot.shutDown(advancing: clock)

        #expect(await harness.telegram.delivered.map(\.chatID) == [supergroup, supergroup, supergroup])
        #expect(await harness.telegram.delivered.map(\.replyToMessageID) == [1, 2, 3])
        #expect(await harness.telegram.refusals.map(\.code) == [400])
        await harness.stop()
    }

    /// A reply that could not be sent for longer than `REPLY_TTL` is dropped: an answer that
    /// late only confuses a group.
    @Test func aReplyOlderThanItsLifetimeIsDropped() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.beginOutage(of: "sendMessage", .raw(status: 502, body: "<html>Bad Gateway</html>"))
        await harness.telegram.pushMessage("/help", chatID: group, messageID: 1)
        let clock = TestClock()
        let date = TestDate(BotHarness.now, following: clock)
        let services = try await harness.services(clock: clock, now: { date.now })
        let bot = RunningBot(services.bot)
        try await harness.telegram.waitForCalls("sendMessage")
        // An hour of failures, a try a minute at most.
        for _ in 0..<62 {
            await clock.waitForSleeper(limit: .seconds(1))
            await clock.advance(by: .seconds(60))
        }
        await harness.telegram.endOutage(of: "sendMessage")
        await services.outbox.idle()
        let tries = await harness.telegram.calls("sendMessage").count
        await harness.telegram.pushMessage("/help", chatID: group, messageID: 2)
        try await harness.telegram.waitForDeliveries(1)
        try await bot.shutDown(advancing: clock)

        #expect(await harness.telegram.delivered.map(\.replyToMessageID) == [2])
        #expect(await harness.telegram.calls("sendMessage").count == tries + 1)
        #expect(harness.logs.text.contains("a message waited too long and is dropped unsent"))
        await harness.stop()
    }

    /// Turning the weekly post on after this week's time has passed is no missed post: the
    /// first comes at the next scheduled time, here one set for two minutes later.
    @Test func turningTheWeeklyPostOnMidWeekWaitsForItsTime() async throws {
        let harness = try await BotHarness.start()
        let clock = TestClock()
        // Wednesday 18 Nov 2026, 10:00 UTC: this week's default time, Monday 09:00, has passed.
        let date = TestDate(Date(timeIntervalSince1970: 1_794_996_000), following: clock)
        await harness.telegram.pushMessage("/track alice", chatID: group, userID: admin)
        await harness.telegram.pushMessage("/weekly on", chatID: group, userID: admin)
        let services = try await harness.services(clock: clock, admins: [admin], now: { date.now })
        let running = RunningBot(services: [services.bot, services.scheduler])
        await deliver(2, harness, advancing: clock)
        await harness.telegram.pushMessage("/weekly wed 10:05", chatID: group, userID: admin)
        await deliver(3, harness, advancing: clock)
        let beforeItsTime = await harness.telegram.delivered.map { $0.text ?? "" }
        while date.now < Date(timeIntervalSince1970: 1_794_996_300) {
            await clock.waitForSleeper(limit: .milliseconds(100))
            await clock.advance(by: .seconds(10))
        }
        await deliver(4, harness, advancing: clock)
        try await running.shutDown(advancing: clock)

        #expect(!beforeItsTime.contains { $0.contains("This week one year ago") })
        #expect(beforeItsTime[2].contains("the next one is due Wed 18 Nov, 10:05 (UTC)"))
        let post = try #require(await harness.telegram.delivered.last?.text)
        #expect(post.contains("This week one year ago") && post.contains("<b>alice</b>"))
        await harness.stop()
    }

    /// Messages to three chats, enqueued and handed to `outbox`; returns their ids.
    private func enqueue(_ texts: [(chat: Int64, text: String)], to services: BotAssembly.Services, _ harness: BotHarness) async throws -> [Int64] {
        let store = try BotStore(path: harness.databasePath)
        let messages = try await store.write { transaction in
            try transaction.enqueue(texts.map { chat, text in
                OutboxMessage(
                    chatID: chat, kind: .reply, request: TelegramRequest<SentMessage>.sendMessage(chatID: chat, html: text),
                    expiresAt: BotHarness.now.addingTimeInterval(3600)
                )
            }, at: BotHarness.now)
        }
        services.outbox.accept(messages)
        return messages.map(\.id)
    }

    /// Stopped with no grace while its transport held every message back (as libcurl holds
    /// a request that waits for a connection): none of them left, so none is lost; after the
    /// restart, each is sent once.
    @Test func messagesHeldBackByTheTransportAtAStopAreSentOnceAfterTheRestart() async throws {
        let harness = try await BotHarness.start()
        let holding = HoldingTransport(harness.transport)
        let first = try await harness.services(clock: ContinuousClock(), delivery: .init(shutdownGrace: .zero), telegramTransport: holding)
        let ids = try await enqueue([(group, "one"), (other, "two"), (-6003, "three")], to: first, harness)
        try await holding.waitForHeld(3)
        await first.outbox.stop()
        let store = try BotStore(path: harness.databasePath)
        #expect(try await store.outboxStates(of: ids).values.allSatisfy { $0 == .pending })

        let second = try await harness.services(clock: ContinuousClock())
        await second.outbox.scan()
        await second.outbox.idle()
        #expect(await harness.telegram.delivered.compactMap(\.text).sorted() == ["one", "three", "two"])
        #expect(await harness.telegram.calls("sendMessage").count == 3)
        await harness.stop()
    }

    /// An edit whose answer was lost goes again: made twice, it changes nothing more.
    @Test func anEditWhoseOutcomeIsUnknownGoesAgain() async throws {
        let harness = try await BotHarness.start()
        let services = try await harness.services(
            clock: ContinuousClock(), delivery: .init(backoff: RetryPolicy(maxAttempts: .max, initialDelay: .milliseconds(10), maxDelay: .milliseconds(10)))
        )
        _ = try await enqueue([(group, "before")], to: services, harness)
        await services.outbox.idle()
        let sent = try #require(await harness.telegram.sentMessageIDs.first)
        // Telegram's answer to the edit is unreadable: it may or may not have been made.
        await harness.telegram.inject(.raw(status: 200, body: "{\"ok\":tr"), method: "editMessageText")
        let store = try BotStore(path: harness.databasePath)
        let edit = try await store.write { transaction in
            try transaction.enqueue([OutboxMessage(
                chatID: group, kind: .reply, request: TelegramRequest<IgnoredResult>.editMessageText(chatID: group, messageID: sent, html: "after"),
                expiresAt: BotHarness.now.addingTimeInterval(3600)
            )], at: BotHarness.now)
        }
        services.outbox.accept(edit)
        await services.outbox.idle()
        #expect(await harness.telegram.textMessage(chat: group, messageID: sent) == "after")
        #expect(await harness.telegram.calls("editMessageText").count == 2)
        #expect(try await store.outboxStates(of: edit.map(\.id)).values.first == .sent)
        await harness.stop()
    }
}

/// Holds every `sendMessage` back, before it starts, until its task is cancelled: as libcurl
/// holds a request that waits for a free connection. Like `CurlTransport`, it says so in the
/// caller's `SendProgress`.
actor HoldingTransport: HTTPTransport {
    private let inner: any HTTPTransport
    private var held = 0
    private let waiters = Waitlist<Int>()

    init(_ inner: any HTTPTransport) {
        self.inner = inner
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard request.url.lastPathComponent == "sendMessage" else { return try await inner.send(request) }
        SendProgress.current?.waiting()
        held += 1
        waiters.resume { $0 <= held }
        // Never let through: only a cancellation ends the hold.
        try await Task.sleep(for: .seconds(86_400))
        return try await inner.send(request)
    }

    /// Returns once `count` requests are held.
    func waitForHeld(_ count: Int) async throws {
        if held >= count { return }
        try await waiters.wait(for: count)
    }
}
