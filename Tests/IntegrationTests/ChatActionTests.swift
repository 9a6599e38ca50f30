import Clocks
import Foundation
import Networking
import Telegram
import Testing
import TestSupport
import Throwback
import TestLogging

/// "typing…" / "sending a photo…" while a cold throwback's first fetch is slow, against the
/// fakes: the chat-action clock is a `TestClock`, so the test says when a second has passed.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct ChatActionTests {
    let forum: Int64 = -100_900
    let group: Int64 = -9001
    let admin: Int64 = 100

    @Test func aSlowThrowbackShowsSendingAPhotoInItsTopicUntilTheReplyIsQueuedAndAWarmOneShowsNothing() async throws {
        let harness = try await BotHarness.start()
        let actions = TestClock()
        let gate = await harness.lastFM.hold(user: "slowpoke")
        await harness.telegram.pushMessage("/tb slowpoke 3", chatID: forum, messageID: 1, topic: 9)
        let bot = RunningBot(try await harness.services(clock: ImmediateClock(), chatActionClock: actions).bot)
        try await harness.lastFM.waitForCall(user: "slowpoke")

        // Nothing within the first second: a quick answer never shows it.
        #expect(await actions.waitForSleeper())
        await actions.advance(by: .milliseconds(999))
        #expect(await harness.telegram.calls("sendChatAction").isEmpty)
        await actions.advance(by: .milliseconds(1))
        try await harness.telegram.waitForCalls("sendChatAction")
        // Telegram shows an action for 5 seconds: it is renewed before that.
        #expect(await actions.waitForSleeper())
        await actions.advance(by: .seconds(4))
        try await harness.telegram.waitForCalls("sendChatAction", count: 2)
        await gate.open()
        try await harness.telegram.waitForDeliveries(1)

        // The week is cached now: its answer is there before the second is up.
        await harness.telegram.pushMessage("/tb slowpoke 3", chatID: forum, messageID: 2, topic: 9)
        try await harness.telegram.waitForDeliveries(2)
        try await bot.shutDown()

        let shown = await harness.telegram.chatActions
        #expect(shown.map { $0.parameters["action"] as? String } == ["upload_photo", "upload_photo"])
        #expect(shown.map(\.chatID) == [forum, forum])
        #expect(shown.map(\.threadID) == [9, 9])
        #expect(await harness.telegram.delivered.map(\.threadID) == [9, 9])
        #expect(await harness.telegram.refusals.isEmpty)
        await harness.stop()
    }

    @Test func aSlowThrowbackInATextOnlyChatShowsTyping() async throws {
        let harness = try await BotHarness.start()
        let actions = TestClock()
        let gate = await harness.lastFM.hold(user: "slowpoke")
        await harness.telegram.pushMessage("/covers off", chatID: group, userID: admin)
        await harness.telegram.pushMessage("/tb slowpoke 3", chatID: group, userID: admin)
        let bot = RunningBot(try await harness.services(clock: ImmediateClock(), admins: [admin], chatActionClock: actions).bot)
        try await harness.lastFM.waitForCall(user: "slowpoke")
        #expect(await actions.waitForSleeper())
        await actions.advance(by: .seconds(1))
        try await harness.telegram.waitForCalls("sendChatAction")
        await gate.open()
        try await harness.telegram.waitForDeliveries(2)
        try await bot.shutDown()

        let shown = await harness.telegram.chatActions
        #expect(shown.map { $0.parameters["action"] as? String } == ["typing"])
        #expect(shown.map(\.chatID) == [group])
        #expect(shown.first?.threadID == nil)
        await harness.stop()
    }

    /// The fake takes what the Bot API takes, and refuses the rest as it does.
    @Test func sendChatActionTakesOnlyDocumentedActionsInChatsAndTopicsThatExist() async throws {
        let fake = FakeTelegram()
        let client = HTTPTelegramClient(transport: CurlTransport(), baseURL: try await fake.start(), token: Secret(fake.token))
        await fake.pushMessage("hi", chatID: forum, topic: 3)
        _ = try await client.send(.sendChatAction(chatID: forum, action: .uploadPhoto, topic: 3))
        _ = try await client.send(.sendChatAction(chatID: group, action: .typing))
        await #expect(throws: TelegramError.badRequest("Bad Request: wrong parameter action in request")) {
            try await client.send(TelegramRequest<TelegramOK>(method: "sendChatAction", parameters: ["chat_id": .int(group), "action": .string("dancing")]))
        }
        await #expect(throws: TelegramError.badRequest("Bad Request: message thread not found")) {
            try await client.send(.sendChatAction(chatID: forum, action: .typing, topic: 4))
        }
        await fake.setGone(group)
        await #expect(throws: TelegramError.forbidden("Forbidden: bot was kicked from the group chat")) {
            try await client.send(.sendChatAction(chatID: group, action: .typing))
        }
        #expect(await fake.chatActions.map(\.chatID) == [forum, group])
        await fake.stop()
    }
}
