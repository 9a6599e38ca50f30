import Clocks
import Foundation
import Networking
import Telegram
import Testing
import TestSupport
import Throwback
import TestLogging

/// Inline mode against the fakes: `@bot alice 3` typed in any chat.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct InlineTests {
    let asker: Int64 = 7

    /// Moves `clock` on by the inline pause until the fake holds `count` inline answers.
    private func answers(_ count: Int, _ harness: BotHarness, advancing clock: TestClock<Duration>) async -> [FakeTelegram.InlineAnswer] {
        while await harness.telegram.inlineAnswers.count < count {
            await clock.waitForSleeper(limit: .milliseconds(100))
            await clock.advance(by: InlineThrowbacks.pause)
        }
        return await harness.telegram.inlineAnswers
    }

    @Test func aBurstOfKeystrokesCostsOneLastFMChainForTheLastQueryWhichIsAnswered() async throws {
        let harness = try await BotHarness.start()
        var last = ""
        for text in ["a", "al", "ali", "alic", "alice", "alice ", "alice 3"] {
            last = await harness.telegram.pushInlineQuery(text, userID: asker)
        }
        let clock = TestClock()
        let bot = RunningBot(try await harness.bot(clock: clock))
        // The keystrokes arrive within one pause: the clock stands still until intake has
        // taken them all (the poller asks again only then).
        try await harness.telegram.waitForCalls("getUpdates", count: 2)
        let answered = await answers(1, harness, advancing: clock)
        // A minute more: none of the earlier keystrokes is answered late.
        for _ in 0..<10 {
            await clock.waitForSleeper(limit: .milliseconds(10))
            await clock.advance(by: .seconds(1))
        }
        try await bot.shutDown(advancing: clock)

        // One chain, for the last query: the weeks listed once, one week's chart.
        #expect(await harness.lastFM.count() == 2)
        #expect(await harness.lastFM.count("user.getweeklyalbumchart") == 1)
        #expect(await harness.telegram.inlineAnswers.count == 1)
        let answer = try #require(answered.first)
        #expect(answer.queryID == last)
        #expect(answer.summary == ["article:tb|3|alice"])
        let text = (answer.results.first?["input_message_content"] as? [String: Any])?["message_text"] as? String
        #expect(text == (try await harness.expectedReply("alice", years: 3)))
        await harness.stop()
    }

    @Test func aWeekWhoseCollageWasUploadedIsOfferedAsThatPhoto() async throws {
        let harness = try await BotHarness.start()
        await harness.lastFM.setDefaultCover(.generated)
        await harness.telegram.pushMessage("/tb alice 3", chatID: -7001, userID: 300)
        let clock = TestClock()
        let bot = RunningBot(try await harness.bot(clock: clock))
        try await harness.telegram.waitForCalls("sendPhoto")
        let uploaded = try #require(await harness.telegram.delivered.first)
        await harness.telegram.pushInlineQuery("alice 3", userID: asker)
        let answer = try #require(await answers(1, harness, advancing: clock).first)
        try await bot.shutDown(advancing: clock)

        #expect(answer.summary == ["photo:tb|3|alice"])
        let result = try #require(answer.results.first)
        #expect(result["caption"] as? String == uploaded.caption)
        #expect(await harness.telegram.uploadedPhotos.count == 1)
        await harness.stop()
    }

    @Test func anUnlinkedAskerWithAnEmptyQueryGetsTheButtonToLinkAndStartLinkExplainsIt() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushInlineQuery("", userID: asker)
        let clock = TestClock()
        let bot = RunningBot(try await harness.bot(clock: clock))
        let answer = try #require(await answers(1, harness, advancing: clock).first)
        await harness.telegram.pushMessage("/start \(HelpCommand.linkStart)", chatID: asker, chatType: "private", userID: asker)
        // Someone else's private chat: the flood limit holds a second message to one chat for a second.
        await harness.telegram.pushMessage("/help", chatID: asker + 1, chatType: "private", userID: asker + 1)
        try await harness.telegram.waitForDeliveries(2)
        try await bot.shutDown(advancing: clock)

        #expect(answer.results.isEmpty)
        #expect(answer.button?["start_parameter"] as? String == "link")
        let delivered = await harness.telegram.delivered
        #expect(delivered.first { $0.chatID == asker }?.text?.contains("send link &lt;your Last.fm name&gt; here") == true)
        #expect(delivered.first { $0.chatID == asker + 1 }?.text?.contains("In any chat, type my username") == true, "\(delivered)")
        #expect(await harness.lastFM.count() == 0)
        await harness.stop()
    }

    @Test func aLinkedAskerWithAnEmptyQueryGetsTheirOwnYearsThatHaveAlbums() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushMessage("link alice", chatID: asker, chatType: "private", userID: asker)
        let clock = TestClock()
        let bot = RunningBot(try await harness.bot(clock: clock))
        try await harness.telegram.waitForDeliveries(1)
        await harness.telegram.pushInlineQuery("", userID: asker)
        let answer = try #require(await answers(1, harness, advancing: clock).first)
        try await bot.shutDown(advancing: clock)

        // A year ago first, as asked; then of 2, 3, 5 and 10 years ago, only the week with albums.
        #expect(answer.summary == ["article:tb|1|alice", "article:tb|3|alice"])
        #expect(answer.call.parameters["is_personal"] as? Bool == true)
        await harness.stop()
    }

    /// Someone whose own filter hides albums played fewer than 5 times asks for alice: another
    /// person who types the same moments later sees every album, not the first one's filtered
    /// answer, which Telegram would show everyone had it been kept for everyone.
    @Test func anAskersOwnFilterIsNotShownToOthers() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushMessage("filter 5", chatID: asker, chatType: "private", userID: asker)
        let clock = TestClock()
        let bot = RunningBot(try await harness.bot(clock: clock))
        try await harness.telegram.waitForDeliveries(1)
        #expect(await harness.telegram.typeInline("alice 3", userID: asker) == nil)
        let filtered = try #require(await answers(1, harness, advancing: clock).first)
        let other = await harness.telegram.typeInline("alice 3", userID: 8)
        let seen = if let other { other } else { try #require(await answers(2, harness, advancing: clock).last) }
        try await bot.shutDown(advancing: clock)

        func text(_ answer: FakeTelegram.InlineAnswer) -> String {
            (answer.results.first?["input_message_content"] as? [String: Any])?["message_text"] as? String ?? ""
        }
        #expect(!text(filtered).contains("Bookends"))
        #expect(text(seen) == (try await harness.expectedReply("alice", years: 3)))
        await harness.stop()
    }

    @Test func aRateLimitedAskerGetsOneArticleSayingWhy() async throws {
        let harness = try await BotHarness.start()
        let clock = TestClock()
        let limits = RateLimitGuard.Limits(user: .init(burst: 1, perMinute: 1))
        let bot = RunningBot(try await harness.bot(clock: clock, rateLimits: limits))
        await harness.telegram.pushInlineQuery("alice 3", userID: asker)
        _ = await answers(1, harness, advancing: clock)
        await harness.telegram.pushInlineQuery("alice 2", userID: asker)
        let answer = try #require(await answers(2, harness, advancing: clock).last)
        try await bot.shutDown(advancing: clock)

        #expect(answer.summary == ["article:refusal"])
        let text = (answer.results.first?["input_message_content"] as? [String: Any])?["message_text"] as? String
        #expect(text?.hasPrefix("Slow down") == true)
        #expect(await harness.lastFM.count("user.getweeklyalbumchart") == 1)
        await harness.stop()
    }

    @Test func anInvalidNameCostsNoLastFMCall() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushInlineQuery("not/a/name 3", userID: asker)
        let clock = TestClock()
        let bot = RunningBot(try await harness.bot(clock: clock))
        let answer = try #require(await answers(1, harness, advancing: clock).first)
        try await bot.shutDown(advancing: clock)

        #expect(answer.summary == ["article:refusal"])
        #expect(await harness.lastFM.count() == 0)
        await harness.stop()
    }

    /// A result's ◀ ▶ buttons, pressed after it was sent: the inline message is edited to
    /// that year, text as text and a photo by its caption.
    @Test(arguments: [false, true]) func aPressOnAnInlineMessageEditsIt(photo: Bool) async throws {
        let harness = try await BotHarness.start()
        let clock = TestClock()
        let bot = RunningBot(try await harness.bot(clock: clock))
        if photo {
            await harness.lastFM.setDefaultCover(.generated)
            await harness.telegram.pushMessage("/tb alice 3", chatID: -7001, userID: 300)
            try await harness.telegram.waitForCalls("sendPhoto")
        }
        await harness.telegram.pushInlineQuery("alice 3", userID: asker)
        let answer = try #require(await answers(1, harness, advancing: clock).first)
        let sent = await harness.telegram.choose(answer, result: 0)
        let before = try #require(await harness.telegram.inlineMessages[sent])
        let back = try #require(before.buttons.first)
        #expect(back.hasSuffix("|alice"))
        let years = try #require(Int(back.split(separator: "|")[1]))
        await harness.telegram.pushInlineCallback(data: back, inlineMessageID: sent, userID: 8)
        try await harness.telegram.waitForCalls("answerCallbackQuery")
        while await harness.telegram.inlineEdits.isEmpty {
            await clock.waitForSleeper(limit: .milliseconds(10))
            await clock.advance(by: .seconds(1))
        }
        try await bot.shutDown(advancing: clock)

        let after = try #require(await harness.telegram.inlineMessages[sent])
        #expect(after.photo == before.photo)
        let expected = try await harness.engine().throwback(user: "alice", yearsAgo: years)
        let formatter = photo ? CollagePhotos.captionFormatter : ChartFormatter.telegram
        #expect(after.text == formatter.format(expected))
        #expect(await harness.telegram.inlineEdits.map(\.method) == [photo ? "editMessageCaption" : "editMessageText"])
        await harness.stop()
    }

    /// With inline feedback on and a collage chat set, a result sent as text becomes its
    /// week's collage: drawn, uploaded to that chat, and put into the message by file_id.
    @Test func aResultSentAsTextGetsItsCollageUploadedToTheCollageChat() async throws {
        let harness = try await BotHarness.start()
        await harness.lastFM.setDefaultCover(.generated)
        let storage: Int64 = -1_009_000
        let clock = TestClock()
        let bot = RunningBot(try await harness.services(clock: clock, inlineCollageChat: storage).bot)
        await harness.telegram.pushInlineQuery("alice 3", userID: asker)
        let answer = try #require(await answers(1, harness, advancing: clock).first)
        #expect(answer.summary == ["article:tb|3|alice"])
        let sent = await harness.telegram.choose(answer, result: 0)
        let buttons = try #require(await harness.telegram.inlineMessages[sent]?.buttons)
        try await harness.telegram.waitForCalls("editMessageMedia")
        await harness.telegram.pushInlineQuery("alice 3", userID: 8)
        let again = try #require(await answers(2, harness, advancing: clock).last)
        try await bot.shutDown(advancing: clock)

        let upload = try #require(await harness.telegram.delivered.first)
        #expect(upload.method == "sendPhoto")
        #expect(upload.chatID == storage)
        let message = try #require(await harness.telegram.inlineMessages[sent])
        #expect(message.photo != nil)
        #expect(message.text == upload.caption)
        // The ◀ ▶ buttons stay.
        #expect(!buttons.isEmpty)
        #expect(message.buttons == buttons)
        // Uploaded once: the next person gets it as a photo at once.
        #expect(again.summary == ["photo:tb|3|alice"])
        #expect(await harness.telegram.uploadedPhotos.count == 1)
        await harness.stop()
    }

    /// Telegram asks for an hour's wait before the collage upload: the bot does not wait it out
    /// while the asker's next query waits behind it; the message stays text.
    @Test func aLongFloodWaitOnTheCollageUploadDoesNotHoldTheAsker() async throws {
        let harness = try await BotHarness.start()
        await harness.lastFM.setDefaultCover(.generated)
        let storage: Int64 = -1_009_000
        await harness.telegram.inject(.error(code: 429, description: "Too Many Requests: retry after 3600", retryAfter: 3600), method: "sendPhoto", chat: storage)
        let clock = TestClock()
        let bot = RunningBot(try await harness.services(clock: clock, inlineCollageChat: storage).bot)
        await harness.telegram.pushInlineQuery("alice 3", userID: asker)
        let answer = try #require(await answers(1, harness, advancing: clock).first)
        let sent = await harness.telegram.choose(answer, result: 0)
        try await harness.telegram.waitForCalls("sendPhoto")
        await harness.telegram.pushInlineQuery("alice 2", userID: asker)
        // Ten seconds at most, where the upload's wait would take an hour.
        for _ in 0..<30 where await harness.telegram.inlineAnswers.count < 2 {
            await clock.waitForSleeper(limit: .milliseconds(100))
            await clock.advance(by: InlineThrowbacks.pause)
        }
        try await bot.shutDown(advancing: clock)

        #expect(await harness.telegram.inlineAnswers.count == 2)
        #expect(await harness.telegram.calls("sendPhoto").count == 1)
        #expect(await harness.telegram.inlineMessages[sent]?.photo == nil)
        await harness.stop()
    }

    /// The bot stops after uploading a sent result's collage, before putting it into the
    /// message: after the restart the update is handled again, and the collage goes in by the
    /// `file_id` it got, without a second upload.
    @Test func aCollageUploadedBeforeACrashIsPutInWithoutUploadingAgain() async throws {
        let harness = try await BotHarness.start()
        await harness.lastFM.setDefaultCover(.generated)
        let storage: Int64 = -1_009_000
        await harness.telegram.inject(.hang, method: "editMessageMedia")
        let clock = TestClock()
        let first = RunningBot(try await harness.services(clock: clock, inlineCollageChat: storage).bot)
        await harness.telegram.pushInlineQuery("alice 3", userID: asker)
        let answer = try #require(await answers(1, harness, advancing: clock).first)
        let sent = await harness.telegram.choose(answer, result: 0)
        try await harness.telegram.waitForCalls("editMessageMedia")
        await first.cancel()

        let second = RunningBot(try await harness.services(clock: clock, inlineCollageChat: storage).bot)
        try await harness.telegram.waitForCalls("editMessageMedia", count: 2)
        try await second.shutDown(advancing: clock)

        #expect(await harness.telegram.uploadedPhotos.count == 1)
        #expect(await harness.telegram.inlineMessages[sent]?.photo != nil)
        await harness.stop()
    }

    @Test func theFakeRefusesAnswersTelegramWouldRefuse() async throws {
        let fake = FakeTelegram()
        let client = HTTPTelegramClient(transport: CurlTransport(), baseURL: try await fake.start(), token: Secret(fake.token))
        func article(_ id: String, _ html: String = "<b>ok</b>") -> InlineQueryResult {
            .article(id: id, title: "t", description: nil, html: html)
        }
        let refused: [[InlineQueryResult]] = [
            (0...50).map { article("r\($0)") },
            [article("same"), article("same")],
            [article(String(repeating: "x", count: 65))],
            [article("bad", "<b>unclosed")],
            [.cachedPhoto(id: "p", fileID: "never-uploaded", title: "t", captionHTML: "c")],
        ]
        for results in refused {
            let id = await fake.pushInlineQuery("alice")
            await #expect(throws: TelegramError.self) {
                _ = try await client.send(.answerInlineQuery(id: id, results: results, cacheTime: 0, isPersonal: false))
            }
        }
        let id = await fake.pushInlineQuery("alice")
        let badButton = InlineQueryResultsButton(text: "Link", startParameter: "no spaces allowed")
        await #expect(throws: TelegramError.self) {
            _ = try await client.send(.answerInlineQuery(id: id, results: [], cacheTime: 0, isPersonal: true, button: badButton))
        }
        let good = await fake.pushInlineQuery("alice")
        _ = try await client.send(.answerInlineQuery(id: good, results: (0..<50).map { article("r\($0)") }, cacheTime: 0, isPersonal: false))
        // Each query takes one answer.
        await #expect(throws: TelegramError.self) {
            _ = try await client.send(.answerInlineQuery(id: good, results: [], cacheTime: 0, isPersonal: false))
        }
        #expect(await fake.inlineAnswers.count == 1)
        await fake.stop()
    }
}
