import Clocks
import Foundation
import Telegram
import Testing
import TestSupport
import Throwback
import TestLogging

/// What real Telegram does beyond the happy path, against the strict fake.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct RealTelegramTests {
    let group: Int64 = -6001
    let admin: Int64 = 100
    let member: Int64 = 200

    @Test func renumberedUpdatesAreAnsweredOnceBeforeAndAfterARestart() async throws {
        let harness = try await BotHarness.start()
        // Ids 1–3 are answered and confirmed.
        for n in 1...3 { await harness.telegram.pushMessage("/tb alice 3", chatID: group, messageID: Int64(n)) }
        let first = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: 3)
        // A quiet week later Telegram starts again at 2: new updates reuse ids 2 and 3.
        await harness.telegram.renumberUpdates(from: 2)
        for n in 4...5 { await harness.telegram.pushMessage("/tb alice 3", chatID: group, messageID: Int64(n)) }
        try await harness.telegram.waitForCalls("sendMessage", count: 5)
        try await first.shutDown()

        // After a restart, numbering restarts once more, lower than the stored offset.
        await harness.telegram.renumberUpdates(from: 1)
        for n in 6...7 { await harness.telegram.pushMessage("/tb alice 3", chatID: group, messageID: Int64(n)) }
        let second = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: 7)
        try await second.shutDown()

        #expect(await harness.telegram.delivered.map(\.replyToMessageID) == (1...7).map { Int64($0) })
        #expect(await harness.telegram.refusals.isEmpty)
        await harness.stop()
    }

    @Test func aRedeliveredUpdateIsNotAnsweredTwiceAfterRenumbering() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.setIgnoresConfirmations(true)
        await harness.telegram.pushMessage("/tb alice 3", chatID: group, messageID: 1)
        let first = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage")
        await first.cancel()
        await harness.telegram.renumberUpdates(from: 1)
        await harness.telegram.pushMessage("/tb alice 3", chatID: group, messageID: 2)
        let second = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: 2)
        try await second.shutDown()
        #expect(await harness.telegram.delivered.map(\.replyToMessageID) == [1, 2])
        await harness.stop()
    }

    @Test func groupChatterIsNotACommandButAPrivateChatTakesSlashlessOnes() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushMessage("help me carry the couch", chatID: group, userID: member)
        await harness.telegram.pushMessage("link pls", chatID: group, userID: member)
        await harness.telegram.pushMessage("link alice", chatID: group, userID: member)
        await harness.telegram.pushMessage("/tb@OtherBot alice", chatID: group, userID: member)
        await harness.telegram.pushAutomaticForward("/track bob", chatID: group, channelID: -1_009_000)
        await harness.telegram.pushMessage("tb alice 3", chatID: member, chatType: "private", userID: member)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock(), admins: [FakeTelegram.channelForwarder]))
        try await harness.telegram.waitForCalls("sendMessage")
        try await bot.shutDown()

        let delivered = await harness.telegram.delivered
        #expect(delivered.map(\.chatID) == [member])
        #expect(delivered.first?.text == (try await harness.expectedReply("alice", years: 3)))
        let store = try BotStore(path: harness.databasePath)
        #expect(try await store.linkedName(of: member) == nil)
        #expect(try await store.roster(of: group).isEmpty)
        await harness.stop()
    }

    /// Admins need their user id for ADMIN_USER_IDS and a channel's id for THROWBACK_CHAT_ID:
    /// `id` tells each where they ask, and a group's id only to its admins.
    @Test func idTellsTheUserOrTheChatTheirID() async throws {
        let harness = try await BotHarness.start()
        let channel: Int64 = -1_009_999
        await harness.telegram.setAdministrators([1], of: group)
        await harness.telegram.pushMessage("id", chatID: 77, chatType: "private", userID: 77, messageID: 1)
        await harness.telegram.pushMessage("/id", chatID: group, userID: 2, messageID: 2)
        await harness.telegram.pushMessage("/id@TheBot", chatID: group, userID: 1, messageID: 3)
        await harness.telegram.pushChannelPost("/help", channelID: channel)
        await harness.telegram.pushChannelPost("/id", channelID: channel)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForDeliveries(4)
        try await bot.shutDown()

        let replies = await harness.telegram.delivered.map { ($0.chatID ?? 0, $0.text ?? "") }
        #expect(replies.count == 4)
        #expect(replies.contains { $0 == (77, "Your Telegram user id is 77. Put it in ADMIN_USER_IDS to be an admin of the bot in every chat.") })
        #expect(replies.contains { $0 == (group, "Only admins of this chat can do that.") })
        #expect(replies.contains { $0.0 == group && $0.1.hasPrefix("This chat’s id is \(group). Use it as THROWBACK_CHAT_ID") })
        // In a channel only `id` is answered: every subscriber would read a reply.
        #expect(replies.filter { $0.0 == channel }.map(\.1) == [
            "This chat’s id is \(channel). Use it as THROWBACK_CHAT_ID, or after an admin command to manage this chat from a private chat with me.",
        ])
        await harness.stop()
    }

    @Test func anAnonymousAdminCanTrackAndAMemberCannot() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.setAdministrators([admin], of: group)
        await harness.telegram.pushMessage("/track bob", chatID: group, anonymousAdmin: true)
        await harness.telegram.pushMessage("/track alice", chatID: group, userID: member)
        await harness.telegram.pushMessage("/tracked", chatID: group, userID: member)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: 3)
        try await bot.shutDown()

        let replies = await harness.telegram.delivered.map { $0.text ?? "" }
        #expect(replies[0].hasPrefix("Now tracking bob."))
        #expect(replies[1] == "Only admins of this chat can do that.")
        #expect(replies[2] == "Tracked (1): bob")
        await harness.stop()
    }

    @Test func aPressOnAnInaccessibleMessageGetsAToastAndNoEdit() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushCallback(data: "tb|2|alice", chatID: group, messageID: 55, inaccessible: true)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("answerCallbackQuery")
        try await bot.shutDown()

        let toast = await harness.telegram.calls("answerCallbackQuery").first?.parameters["text"] as? String
        #expect(toast?.contains("Send a new throwback") == true)
        #expect(await harness.telegram.calls("editMessageText").isEmpty)
        #expect(await harness.lastFM.count() == 0)
        await harness.stop()
    }

    @Test func aPressIsAnsweredBeforeLastFMIsAsked() async throws {
        let harness = try await BotHarness.start()
        let gate = await harness.lastFM.hold(user: "slowpoke")
        await harness.telegram.pushMessage("/tb alice 3", chatID: group, messageID: 5)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage")
        let reply = try #require(await harness.telegram.sentMessageIDs.first)
        await harness.telegram.pushCallback(data: "tb|2|slowpoke", chatID: group, messageID: reply)
        // The press is answered while Last.fm still holds the answer.
        try await harness.telegram.waitForCalls("answerCallbackQuery")
        #expect(await harness.telegram.calls("editMessageText").isEmpty)
        await gate.open()
        try await harness.telegram.waitForCalls("editMessageText")
        try await bot.shutDown()
        #expect(await harness.telegram.delivered.count == 2)
        await harness.stop()
    }

    @Test func editErrorsEndInALogLine() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushMessage("/tb alice 2", chatID: group, messageID: 5)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage")
        let reply = try #require(await harness.telegram.sentMessageIDs.first)
        // The message was deleted meanwhile: Telegram cannot find it.
        await harness.telegram.inject(.error(code: 400, description: "Bad Request: message to edit not found"), method: "editMessageText")
        await harness.telegram.pushCallback(data: "tb|3|alice", chatID: group, messageID: reply)
        try await harness.telegram.waitForCalls("editMessageText")
        try await bot.shutDown()
        #expect(harness.logs.text.contains("message to edit not found"))
        #expect(await harness.telegram.calls("answerCallbackQuery").count == 1)
        await harness.stop()
    }

    @Test func aCommandInAForumTopicIsAnsweredInThatTopic() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushMessage("/tb alice 3", chatID: group, messageID: 8, topic: 42)
        await harness.telegram.pushMessage("/help", chatID: group, messageID: 9)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: 2)
        try await bot.shutDown()

        let delivered = await harness.telegram.delivered
        #expect(delivered.map(\.threadID) == [42, nil])
        #expect(await harness.telegram.refusals.isEmpty)
        await harness.stop()
    }

    @Test func aReplyThatFailsForAMinuteArrivesOnceWithoutARestart() async throws {
        let harness = try await BotHarness.start()
        let clock = TestClock()
        await harness.telegram.beginOutage(of: "sendMessage", .raw(status: 502, body: "<html>Bad Gateway</html>"))
        await harness.telegram.pushMessage("/help", chatID: group, messageID: 4)
        let bot = RunningBot(try await harness.bot(clock: clock))
        try await harness.telegram.waitForCalls("sendMessage")
        // A minute of failures: the reply keeps waiting and trying, in this process.
        for _ in 0..<12 {
            #expect(await clock.waitForSleeper())
            await clock.advance(by: .seconds(5))
        }
        #expect(await harness.telegram.delivered.isEmpty)
        await harness.telegram.endOutage(of: "sendMessage")
        // Its next try goes through; the longest wait between tries is a minute.
        while await harness.telegram.delivered.isEmpty {
            await clock.waitForSleeper(limit: .seconds(1))
            await clock.advance(by: .seconds(5))
        }
        try await bot.shutDown(advancing: clock)

        #expect(await harness.telegram.delivered.map(\.replyToMessageID) == [4])
        #expect(await harness.telegram.calls("sendMessage").count > 5)
        await harness.stop()
    }

    @Test func shutdownIsPromptWithEverySlotBlockedAndTheCommandsAreAnsweredOnceAfterTheRestart() async throws {
        let harness = try await BotHarness.start()
        let clock = TestClock()
        let gates = await harness.slowUsers(20)
        for chat in 1...20 { await harness.telegram.pushMessage("/tb slow\(chat) 3", chatID: -Int64(chat), userID: Int64(chat), messageID: Int64(chat)) }
        let first = RunningBot(try await harness.bot(clock: clock))
        // Sixteen chats at work, each waiting on a Last.fm that does not answer.
        try await harness.lastFM.waitForCalls(count: 16)
        try await first.shutDown(advancing: clock)
        #expect(await harness.telegram.delivered.isEmpty)

        for gate in gates { await gate.open() }
        let second = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: 20)
        try await second.shutDown()
        let answered = await harness.telegram.delivered.compactMap(\.replyToMessageID)
        #expect(answered.sorted() == (1...20).map { Int64($0) })
        await harness.stop()
    }

    @Test func withTheBreakerOpenACachedThrowbackIsAnsweredAndAnUncachedOneIsRefused() async throws {
        let harness = try await BotHarness.start()
        let breakerClock = TestClock()
        let expected = try await harness.expectedReply("alice", years: 3)
        await harness.telegram.pushMessage("/tb alice 3", chatID: group)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock(), breakerClock: breakerClock))
        try await harness.telegram.waitForCalls("sendMessage")
        // Last.fm goes down; three failing calls open the breaker.
        await harness.lastFM.beginOutage(.raw(status: 503, body: "down"))
        for user in ["bob", "slowpoke", "bob"] { await harness.telegram.pushMessage("/tb \(user) 2", chatID: group) }
        try await harness.telegram.waitForCalls("sendMessage", count: 4)
        let asked = await harness.lastFM.count()
        await harness.telegram.pushMessage("/tb alice 3", chatID: group)
        await harness.telegram.pushMessage("/tb bob 1", chatID: group)
        try await harness.telegram.waitForCalls("sendMessage", count: 6)
        try await bot.shutDown()

        let replies = await harness.telegram.delivered.map { $0.text ?? "" }
        #expect(replies[4] == replies[0])
        #expect(replies[4] == expected)
        #expect(replies[5] == "Last.fm is having trouble, try again in a minute.")
        #expect(await harness.lastFM.count() == asked)
        await harness.stop()
    }

    @Test func aPrivateProfileIsNamed() async throws {
        let harness = try await BotHarness.start()
        await harness.lastFM.setPrivate("bob")
        await harness.telegram.pushMessage("/tb bob 3", chatID: group)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage")
        try await bot.shutDown()
        #expect(await harness.telegram.delivered.first?.text == "bob keeps their Last.fm listening data private.")
        await harness.stop()
    }

    @Test func neitherSecretIsLoggedAtTraceWhenBothAPIsFail() async throws {
        let harness = try await BotHarness.start()
        let token = harness.telegram.token
        await harness.telegram.inject(.raw(status: 502, body: "<html>proxy error for /bot\(token)/getUpdates</html>"), method: "getUpdates")
        await harness.telegram.inject(.error(code: 500, description: "upstream failed: /bot\(token)/sendMessage"), method: "sendMessage", times: 2)
        await harness.telegram.inject(.error(code: 400, description: "Bad Request: chat /bot\(token) not found"), method: "sendMessage")
        await harness.lastFM.inject(.raw(status: 502, body: "<html>api_key=\(BotHarness.lastFMKey)&method=x</html>"), times: 2)
        await harness.lastFM.inject(.lastFMError(8, status: 500), times: 2)
        await harness.telegram.pushMessage("/tb alice 3", chatID: group)
        await harness.telegram.pushMessage("/tb bob 3", chatID: group)
        await harness.telegram.pushMessage("/link nobody_here", chatID: group)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: 5)
        try await bot.shutDown()
        // A bot with a token Telegram rejects fails too, and says so without quoting it.
        let rejected = try await harness.bot(clock: ImmediateClock(), token: "000:WRONG-\(token)")
        await #expect(throws: TelegramError.unauthorized) { try await rejected.run() }
        // So does the description of every service, which a service group logs at debug level.
        #expect("\(rejected)" == "BotService")

        let logged = harness.logs.text
        #expect(logged.contains("trace") || logged.contains("debug"))
        #expect(logged.contains("<redacted>"))
        #expect(!logged.contains(token))
        #expect(!logged.contains("WRONG"))
        #expect(!logged.contains(BotHarness.lastFMKey))
        await harness.stop()
    }
}
