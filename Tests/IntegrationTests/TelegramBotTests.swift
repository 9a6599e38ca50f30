import Clocks
import Foundation
import Networking
import Telegram
import Testing
import TestSupport
import Throwback
import TestLogging

@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct TelegramBotTests {
    @Test func aGroupThrowbackGetsExactlyOneHTMLReplyToTheCommand() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushMessage("/throwback@TheBot alice 3", chatID: -4001, messageID: 55)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage")
        try await bot.shutDown()

        let sends = await harness.telegram.calls("sendMessage")
        #expect(sends.count == 1)
        let reply = try #require(sends.first)
        #expect(reply.chatID == -4001)
        #expect(reply.parameters["parse_mode"] as? String == "HTML")
        #expect(reply.replyToMessageID == 55)
        let expected = try await harness.expectedReply("alice", years: 3)
        #expect(reply.text == expected)
        #expect(expected.contains("<b>Simon &amp; Garfunkel</b> – Bookends (3 plays)"))
        #expect(expected.contains("&lt;Secret&gt; Name (1 play)"))
        #expect(await harness.telegram.calls("getMe").count == 1)
        #expect(await harness.telegram.calls("deleteWebhook").count == 1)
        await harness.stop()
    }

    @Test func aNewcomerSeesWhatTheBotDoesAndOnlyAdminsSeeAdminCommands() async throws {
        let harness = try await BotHarness.start()
        for _ in 1...2 {
            let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
            try await harness.telegram.waitForCalls("getUpdates")
            try await bot.shutDown()
        }
        let menus = await harness.telegram.menus
        #expect(menus["default"] == ["throwback", "link", "unlink", "id", "tracked", "help"])
        #expect(menus["all_chat_administrators"] == [
            "throwback", "link", "unlink", "id", "tracked", "help", "track", "untrack", "import", "filter", "covers", "language", "weekly",
            "postnow",
        ])
        #expect(await harness.telegram.botDescription == BotProfile.standardDescription)
        #expect(await harness.telegram.botShortDescription == BotProfile.standardShortDescription)
        // Telegram limits how often a description may change: a restart leaves them alone,
        // one per language.
        #expect(await harness.telegram.calls("setMyDescription").count == Language.supported.count)
        #expect(await harness.telegram.calls("setMyShortDescription").count == Language.supported.count)
        #expect(await harness.telegram.refusals.isEmpty)
        await harness.stop()
    }

    @Test func floodControlDelaysAReplyThenDeliversItOnce() async throws {
        let harness = try await BotHarness.start()
        let clock = TestClock()
        await harness.telegram.inject(.error(code: 429, description: "Too Many Requests: retry after 5", retryAfter: 5), method: "sendMessage")
        await harness.telegram.pushMessage("/tb alice 3", chatID: -4002)
        let bot = RunningBot(try await harness.bot(clock: clock))

        try await harness.telegram.waitForCalls("sendMessage")
        #expect(await clock.waitForSleeper())
        await clock.advance(by: .seconds(4))
        #expect(await harness.telegram.calls("sendMessage").count == 1)
        #expect(await harness.telegram.delivered.isEmpty)
        await clock.advance(by: .seconds(1))
        try await harness.telegram.waitForCalls("sendMessage", count: 2)
        try await bot.shutDown()

        #expect(await harness.telegram.calls("sendMessage").count == 2)
        let delivered = await harness.telegram.delivered
        #expect(delivered.count == 1)
        #expect(delivered.first?.text == (try await harness.expectedReply("alice", years: 3)))
        await harness.stop()
    }

    @Test func pollingRecoversFromA502GarbageAndATimeout() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.inject(.raw(status: 502, body: "<html>Bad Gateway</html>"), method: "getUpdates")
        await harness.telegram.inject(.raw(status: 200, body: "\u{1}\u{2}garbage{{{"), method: "getUpdates")
        await harness.telegram.inject(.hang, method: "getUpdates")
        await harness.telegram.pushMessage("/tb alice 3", chatID: -4003)
        // A one-second HTTP timeout, so that the held poll times out quickly.
        let poller = LongPoller.Configuration(timeout: 1, requestTimeoutMargin: .zero)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock(), poller: poller))

        try await harness.telegram.waitForCalls("sendMessage")
        #expect(await harness.telegram.calls("getUpdates").count >= 4)
        await harness.telegram.pushMessage("/tb alice 3", chatID: -4004)
        try await harness.telegram.waitForCalls("sendMessage", count: 2)
        try await bot.shutDown()

        #expect(await harness.telegram.delivered.map(\.chatID) == [-4003, -4004])
        #expect(harness.logs.text.contains("Telegram polling failed"))
        #expect(harness.logs.text.contains("Telegram polling recovered"))
        await harness.stop()
    }

    @Test func aSlowChatDoesNotHoldUpAnother() async throws {
        let harness = try await BotHarness.start()
        let gate = await harness.lastFM.hold(user: "slowpoke")
        await harness.telegram.pushMessage("/tb slowpoke 3", chatID: -1, messageID: 1)
        await harness.telegram.pushMessage("/tb alice 3", chatID: -1, messageID: 2)
        await harness.telegram.pushMessage("/tb alice 3", chatID: -2, messageID: 3)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))

        try await harness.telegram.waitForCalls("sendMessage")
        #expect(await harness.telegram.delivered.map(\.chatID) == [-2])
        await gate.open()
        try await harness.telegram.waitForCalls("sendMessage", count: 3)
        try await bot.shutDown()

        // Chat -1 is answered in order: the slow command first, then the fast one.
        let delivered = await harness.telegram.delivered
        #expect(delivered.map(\.chatID) == [-2, -1, -1])
        #expect(delivered.map(\.replyToMessageID) == [3, 1, 2])
        await harness.stop()
    }

    @Test func nonCommandsAreIgnoredInGroupsAndHintedInPrivate() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushMessage("nice weather today", chatID: -10)
        await harness.telegram.pushMessage("/unknowncmd", chatID: -10)
        await harness.telegram.pushMessage("nice weather today", chatID: 77, chatType: "private", userID: 77)
        await harness.telegram.pushMessage("/tb alice banana", chatID: -10)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: 2)
        try await bot.shutDown()

        let delivered = await harness.telegram.delivered.sorted { ($0.chatID ?? 0) < ($1.chatID ?? 0) }
        #expect(delivered.count == 2)
        #expect(delivered.first?.text?.contains("Usage: throwback [user] [years]") == true)
        #expect(delivered.last?.chatID == 77)
        #expect(delivered.last?.text?.contains("help") == true)
        await harness.stop()
    }

    /// A daemon keeps retrying an API it cannot reach, and says where and why; after a
    /// minute of that it says once, louder, what to check.
    @Test func anUnreachableAPIURLIsNamedAndAfterAMinuteTheLogSaysWhatToCheck() async throws {
        let harness = try await BotHarness.start()
        let refusing = try RefusingPort()
        let clock = TestClock()
        let bot = RunningBot(try await harness.services(clock: clock, telegramURL: refusing.baseURL).bot)
        for _ in 0..<30 {
            #expect(await clock.waitForSleeper())
            await clock.advance(by: .seconds(5))
        }
        try await bot.shutDown(advancing: clock)
        let text = harness.logs.text
        #expect(text.contains("Telegram start-up failed; retrying"))
        #expect(text.contains("url=\(refusing.baseURL)"))
        #expect(text.contains("could not connect"))
        #expect(text.components(separatedBy: "has not answered for a minute at \(refusing.baseURL)").count == 2, "\(text)")
        #expect(!text.contains(harness.telegram.token))
        await harness.stop()
    }

    @Test func gracefulShutdownCancelsTheLongPollAtOnce() async throws {
        let harness = try await BotHarness.start()
        let bot = RunningBot(try await harness.bot(clock: TestClock()))
        try await harness.telegram.waitForCalls("getUpdates")
        // The poll is held open by the fake; shutdown must not wait for it.
        try await bot.shutDown()
        #expect(await harness.telegram.calls("getUpdates").count == 1)
        #expect(harness.logs.text.contains("bot stopped"))
        await harness.stop()
    }

    @Test func shutdownLetsAReplyInProgressFinish() async throws {
        let harness = try await BotHarness.start()
        let gate = await harness.lastFM.hold(user: "slowpoke")
        await harness.telegram.pushMessage("/tb slowpoke 3", chatID: -7)
        let bot = RunningBot(try await harness.bot(clock: TestClock()))
        try await harness.lastFM.waitForCall(user: "slowpoke")
        await bot.group.triggerGracefulShutdown()
        await gate.open()
        try await bot.task.value
        #expect(await harness.telegram.delivered.map(\.chatID) == [-7])
        await harness.stop()
    }

    @Test func shutdownCancelsAReplyThatOutlastsTheGrace() async throws {
        let harness = try await BotHarness.start()
        let clock = TestClock()
        _ = await harness.lastFM.hold(user: "slowpoke")
        await harness.telegram.pushMessage("/tb slowpoke 3", chatID: -8)
        let bot = RunningBot(try await harness.bot(clock: clock))
        try await harness.lastFM.waitForCall(user: "slowpoke")
        await bot.group.triggerGracefulShutdown()
        #expect(await clock.waitForSleeper())
        await clock.advance(by: .seconds(5))
        try await bot.task.value
        #expect(await harness.telegram.delivered.isEmpty)
        await harness.stop()
    }
}
