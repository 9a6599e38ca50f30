import Clocks
import Foundation
import Networking
import Telegram
import Testing
import TestSupport
import Throwback
import TestLogging

/// Commands, guards and persistence against the Telegram and Last.fm fakes.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct CommandIntegrationTests {
    let group: Int64 = -5001
    let admin: Int64 = 100
    let member: Int64 = 200

    @Test func trackIsForAdminsAndStoresLastFMsSpelling() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.setAdministrators([admin], of: group)
        await harness.telegram.pushMessage("/track bob", chatID: group, userID: member)
        await harness.telegram.pushMessage("/track BOB", chatID: group, userID: admin)
        await harness.telegram.pushMessage("/track nobody_here", chatID: group, userID: admin)
        await harness.telegram.pushMessage("/tracked", chatID: group, userID: admin)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: 4)
        try await bot.shutDown()

        let replies = await harness.telegram.delivered.map { $0.text ?? "" }
        #expect(replies == [
            "Only admins of this chat can do that.",
            "Now tracking bob. The weekly post is off here; turn it on with: weekly on",
            "No Last.fm user is called “nobody_here”.",
            "Tracked (1): bob",
        ])
        #expect(try await BotStore(path: harness.databasePath).roster(of: group).map(\.lastFMName) == ["bob"])
        await harness.stop()
    }

    @Test func importAddsOnlyFriendsNotAlreadyTracked() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushMessage("/track bob", chatID: group, userID: admin)
        await harness.telegram.pushMessage("/import alice", chatID: group, userID: admin)
        await harness.telegram.pushMessage("/tracked", chatID: group, userID: admin)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock(), admins: [admin]))
        try await harness.telegram.waitForCalls("sendMessage", count: 3)
        try await bot.shutDown()

        let replies = await harness.telegram.delivered.map { $0.text ?? "" }
        #expect(replies[1] == "Imported 2 friends of alice; skipped 1 (already tracked, or the roster is full at 50).")
        #expect(replies[2] == "Tracked (3): bob, carol, Dave")
        await harness.stop()
    }

    @Test func adminCommandsCanManageAnotherChatFromAPrivateChat() async throws {
        let harness = try await BotHarness.start()
        let channel: Int64 = -1_009_999
        await harness.telegram.setAdministrators([admin], of: channel)
        await harness.telegram.pushMessage("/filter 3 \(channel)", chatID: admin, chatType: "private", userID: admin)
        await harness.telegram.pushMessage("/weekly off \(channel)", chatID: member, chatType: "private", userID: member)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: 2)
        try await bot.shutDown()

        let replies = await harness.telegram.delivered.sorted { ($0.chatID ?? 0) < ($1.chatID ?? 0) }.map { $0.text ?? "" }
        #expect(replies == ["Hiding albums with fewer than 3 plays.", "Only admins of this chat can do that."])
        let settings = try await BotStore(path: harness.databasePath).settings(for: channel)
        #expect(settings.minimumPlayCount == 3)
        #expect(settings.weeklyPost == nil)
        await harness.stop()
    }

    @Test func tenThrowbacksInARowAreAllAnswered() async throws {
        let harness = try await BotHarness.start()
        for years in [3, 3, 2, 3, 1, 2, 3, 3, 2, 1] { await harness.telegram.pushMessage("/tb alice \(years)", chatID: group, userID: member) }
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: 10)
        try await bot.shutDown()

        let replies = await harness.telegram.delivered.map { $0.text ?? "" }
        #expect(replies.count == 10)
        #expect(replies.allSatisfy { $0.hasPrefix("<b>alice</b> · week of") })
        await harness.stop()
    }

    @Test func aFloodGetsExactlyOneNoticeAndOthersAreServed() async throws {
        let harness = try await BotHarness.start()
        // One person, in 25 groups at once, so that no chat's own limits come into it; the
        // clock stands still, so no token comes back during the burst.
        for chat in 1...25 { await harness.telegram.pushMessage("/help", chatID: -Int64(chat), userID: member) }
        await harness.telegram.pushMessage("/help", chatID: admin, chatType: "private", userID: admin)
        let bot = RunningBot(try await harness.bot(clock: TestClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: 17)
        try await bot.shutDown()

        let replies = await harness.telegram.delivered.filter { $0.chatID != admin }.map { $0.text ?? "" }
        #expect(replies.count == 16)
        #expect(replies.filter { $0.hasPrefix("Slow down") }.count == 1)
        #expect(replies.filter { $0.hasPrefix("I bring back") }.count == 15)
        #expect(await harness.telegram.delivered.contains { $0.chatID == admin })
        await harness.stop()
    }

    @Test func anOpenCircuitAnswersWithoutAskingLastFMAndRecovers() async throws {
        let harness = try await BotHarness.start()
        let breakerClock = TestClock()
        // Three throwbacks, four attempts each, all failing: the circuit opens.
        await harness.lastFM.inject(.lastFMError(16), times: 12)
        for _ in 0..<4 { await harness.telegram.pushMessage("/tb alice 3", chatID: group) }
        let bot = RunningBot(try await harness.bot(
            clock: ImmediateClock(), breakerClock: breakerClock
        ))
        try await harness.telegram.waitForCalls("sendMessage", count: 4)
        #expect(await harness.lastFM.count() == 12)
        let refused = await harness.telegram.delivered.map { $0.text ?? "" }
        #expect(refused == Array(repeating: "Last.fm is having trouble, try again in a minute.", count: 4))

        await breakerClock.advance(by: .seconds(60))
        await harness.telegram.pushMessage("/tb alice 3", chatID: group)
        try await harness.telegram.waitForCalls("sendMessage", count: 5)
        try await bot.shutDown()

        #expect(await harness.lastFM.count(excluding: "album.getinfo") == 14)
        #expect(await harness.telegram.delivered.last?.text == (try await harness.expectedReply("alice", years: 3)))
        await harness.stop()
    }

    @Test func pressingBackEditsTheMessageToThePreviousYear() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushMessage("/tb alice 2", chatID: group, messageID: 10)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage")
        let first = try #require(await harness.telegram.delivered.first)
        let buttons = Self.buttons(first)
        #expect(buttons.map(\.text) == ["◀ 3 years ago", "1 year ago ▶"])

        let replyID = try #require(await harness.telegram.sentMessageIDs.first)
        await harness.telegram.pushCallback(data: buttons[0].data, chatID: group, messageID: replyID)
        try await harness.telegram.waitForCalls("editMessageText")
        try await bot.shutDown()
        #expect(await harness.telegram.calls("answerCallbackQuery").count == 1)

        let edit = try #require(await harness.telegram.calls("editMessageText").first)
        #expect((edit.parameters["message_id"] as? NSNumber)?.int64Value == replyID)
        #expect(edit.text == (try await harness.expectedReply("alice", years: 3)))
        // Three years back is the earliest year with data: no ◀ any more.
        #expect(Self.buttons(edit).map(\.text) == ["2 years ago ▶"])
        #expect(await harness.telegram.calls("sendMessage").count == 1)
        await harness.stop()
    }

    @Test func forgedAndStaleButtonsGetAPoliteAnswer() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushCallback(data: "tb|99|<script>", chatID: group, messageID: 1)
        await harness.telegram.pushCallback(data: String(repeating: "x", count: 300), chatID: group, messageID: 1)
        await harness.telegram.pushCallback(data: "tb|2|alice", chatID: group, messageID: nil)
        await harness.telegram.push(["callback_query": ["id": "broken", "from": "not a user"]])
        await harness.telegram.pushMessage("/tb alice 3", chatID: group)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage")
        try await bot.shutDown()

        // The stale button has no chat, so it may be answered before or after the others.
        let answers = await harness.telegram.calls("answerCallbackQuery").map { $0.parameters["text"] as? String ?? "" }
        #expect(answers.sorted() == [
            "That button doesn’t work any more. Send a new throwback.",
            "That button doesn’t work any more. Send a new throwback.",
            "That message is too old to change. Send a new throwback.",
        ])
        #expect(await harness.telegram.calls("editMessageText").isEmpty)
        #expect(await harness.telegram.delivered.count == 1)
        await harness.stop()
    }

    @Test func aRestartAfterAReplyDoesNotAnswerAgain() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.setIgnoresConfirmations(true)
        await harness.telegram.pushMessage("/tb alice 3", chatID: group, messageID: 1)
        let first = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage")
        await first.cancel()

        // Telegram never saw the confirmation, so it delivers the update again.
        await harness.telegram.pushMessage("/tb alice 3", chatID: group, messageID: 2)
        let second = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: 2)
        try await second.shutDown()

        #expect(await harness.telegram.delivered.map(\.replyToMessageID) == [1, 2])
        await harness.stop()
    }

    @Test func anUpdateReceivedButNotHandledIsHandledAfterARestart() async throws {
        let harness = try await BotHarness.start()
        let gate = await harness.lastFM.hold(user: "slowpoke")
        await harness.telegram.pushMessage("/tb slowpoke 3", chatID: group, messageID: 1)
        let first = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.lastFM.waitForCall(user: "slowpoke")
        await first.cancel()
        await gate.open()

        let second = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage")
        try await second.shutDown()

        #expect(await harness.telegram.delivered.map(\.replyToMessageID) == [1])
        await harness.stop()
    }

    @Test func theChartCacheSurvivesARestart() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushMessage("/tb alice 3", chatID: group)
        let first = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage")
        try await first.shutDown()
        #expect(await harness.lastFM.count(excluding: "album.getinfo") == 2)
        let cold = await harness.lastFM.count()

        await harness.telegram.pushMessage("/tb ALICE 3", chatID: group)
        let second = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: 2)
        try await second.shutDown()

        #expect(await harness.lastFM.count() == cold)
        let texts = await harness.telegram.delivered.map(\.text)
        #expect(texts[0] == texts[1])
        await harness.stop()
    }

    @Test func linkedAccountsAnswerMe() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushMessage("/tb", chatID: group, userID: member)
        await harness.telegram.pushMessage("/link ALICE", chatID: group, userID: member)
        await harness.telegram.pushMessage("/tb me 3", chatID: group, userID: member)
        await harness.telegram.pushMessage("/unlink", chatID: group, userID: member)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: 4)
        try await bot.shutDown()

        let replies = await harness.telegram.delivered.map { $0.text ?? "" }
        #expect(replies[0].hasPrefix("You haven’t linked a Last.fm account."))
        #expect(replies[1].hasPrefix("Linked you to Last.fm user alice."))
        #expect(replies[2] == (try await harness.expectedReply("alice", years: 3)))
        #expect(replies[3] == "Unlinked you from Last.fm user alice.")
        await harness.stop()
    }

    @Test(arguments: [FakeTelegram.Gone.blocked, .notFound])
    func aChatThatIsGoneIsMarkedInactiveAndItsQueueDropped(how: FakeTelegram.Gone) async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.setGone(group, how)
        await harness.telegram.pushMessage("/help", chatID: group)
        let services = try await harness.services(clock: ImmediateClock())
        let bot = RunningBot(services.bot)
        try await harness.telegram.waitForCalls("sendMessage")
        await services.outbox.idle()
        try await bot.shutDown()

        let blocked = try await BotStore(path: harness.databasePath).settings(for: group)
        #expect(!blocked.active)
        #expect(!blocked.weeklyPostIsOn(defaultChat: group))
        #expect(await harness.telegram.delivered.isEmpty)
        #expect(await harness.telegram.calls("sendMessage").count == 1)
        await harness.stop()
    }

    @Test func aMigratedGroupsRosterFollowsIt() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushMessage("/track bob", chatID: group, userID: admin)
        await harness.telegram.inject(
            .error(code: 400, description: "Bad Request: group chat was upgraded to a supergroup chat", migrateTo: -1_005_001),
            method: "sendMessage"
        )
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock(), admins: [admin]))
        try await harness.telegram.waitForCalls("sendMessage", count: 2)
        try await bot.shutDown()

        #expect(await harness.telegram.delivered.map(\.chatID) == [-1_005_001])
        let store = try BotStore(path: harness.databasePath)
        #expect(try await store.roster(of: -1_005_001).map(\.lastFMName) == ["bob"])
        #expect(try await store.roster(of: group).isEmpty)
        await harness.stop()
    }

    @Test func aGroupUpgradeMessageMovesTheRoster() async throws {
        let harness = try await BotHarness.start()
        let supergroup: Int64 = -1_005_002
        await harness.telegram.pushMessage("/track bob", chatID: group, userID: admin)
        await harness.telegram.push(["message": [
            "message_id": 77, "date": 1_700_000_000, "chat": ["id": group, "type": "group"],
            "from": ["id": admin, "is_bot": false, "first_name": "A"], "migrate_to_chat_id": supergroup,
        ] as [String: Any]])
        // Asked in the old chat, so that it is handled after the upgrade message.
        await harness.telegram.pushMessage("/tracked \(supergroup)", chatID: group, userID: admin)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock(), admins: [admin]))
        try await harness.telegram.waitForCalls("sendMessage", count: 2)
        try await bot.shutDown()

        #expect(await harness.telegram.delivered.last?.text == "Tracked (1): bob")
        await harness.stop()
    }

    @Test func aReplyWaitingToBeRetriedAtShutdownIsSentAfterTheRestart() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.beginOutage(of: "sendMessage", .error(code: 429, description: "Too Many Requests", retryAfter: 1))
        await harness.telegram.pushMessage("/help", chatID: group, messageID: 3)
        let clock = TestClock()
        // The wait before the next round outlasts the shutdown grace, so that the shutdown
        // finds the reply waiting, not in flight (a reply in flight may have arrived and is
        // not sent again).
        let patient = OutboxDeliverer.Settings(backoff: RetryPolicy(maxAttempts: .max, initialDelay: .seconds(60), maxDelay: .seconds(60), jitter: 0))
        let first = RunningBot(try await harness.bot(clock: clock, delivery: patient))
        // Five tries, a second apart as Telegram asks; then the reply waits to be tried again.
        for attempt in 1...5 {
            try await harness.telegram.waitForCalls("sendMessage", count: attempt)
            #expect(await clock.waitForSleeper())
            await clock.advance(by: .seconds(1))
        }
        try await first.shutDown(advancing: clock)
        #expect(await harness.telegram.delivered.isEmpty)

        await harness.telegram.endOutage(of: "sendMessage")
        let tries = await harness.telegram.calls("sendMessage").count
        let second = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("sendMessage", count: tries + 1)
        try await second.shutDown()
        #expect(await harness.telegram.delivered.map(\.replyToMessageID) == [3])
        await harness.stop()
    }

    @Test func floodingAPrivateChatWithNonsenseIsLimitedToo() async throws {
        let harness = try await BotHarness.start()
        for _ in 0..<12 { await harness.telegram.pushMessage("hello?", chatID: member, chatType: "private", userID: member) }
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock(), rateLimits: .init(user: .init(burst: 3, perMinute: 3))))
        await harness.telegram.pushMessage("/help", chatID: admin, chatType: "private", userID: admin)
        try await harness.telegram.waitForCalls("sendMessage", count: 5)
        try await bot.shutDown()

        let replies = await harness.telegram.delivered.filter { $0.chatID == member }.map { $0.text ?? "" }
        #expect(replies.count == 4)
        #expect(replies.filter { $0.hasPrefix("Slow down") }.count == 1)
        await harness.stop()
    }

    private static func buttons(_ call: FakeTelegram.Call) -> [(text: String, data: String)] {
        let markup = call.parameters["reply_markup"] as? [String: Any]
        let rows = markup?["inline_keyboard"] as? [[[String: Any]]] ?? []
        return rows.flatMap { $0 }.map { ($0["text"] as? String ?? "", $0["callback_data"] as? String ?? "") }
    }
}
