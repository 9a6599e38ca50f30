import Clocks
import Foundation
import Networking
import Telegram
import Testing
import TestSupport
import Throwback
import WeeklyCharts
import TestLogging

/// The chat's language, end to end through the fake Telegram: a group's admins choose it,
/// a private chat follows its person's Telegram, and every menu has its language.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct LanguageTests {
    @Test func aGroupThatChoosesSpanishGetsItsRepliesAndItsWeeklyPostInSpanish() async throws {
        let harness = try await BotHarness.start()
        let chat: Int64 = -9300
        for text in ["/language", "/language es", "/track alice", "/weekly on", "/tb alice 3", "/filter 1000", "/language", "/postnow"] {
            await harness.telegram.pushMessage(text, chatID: chat, userID: 1)
        }
        let services = try await harness.services(clock: ImmediateClock(), admins: [1])
        let running = RunningBot(services: [services.bot])
        try await harness.telegram.waitForCalls("sendMessage", count: 8)
        try await running.shutDown()

        let texts = await harness.telegram.delivered.filter { $0.chatID == chat }.map { $0.text ?? "" }
        #expect(texts.count == 8)
        // Until an admin chooses, a group speaks English.
        #expect(texts[0].hasPrefix("This chat’s language: English (en)."), "\(texts[0])")
        #expect(texts[1] == "A partir de ahora hablo español en este chat.")
        #expect(texts[2] == "Ahora sigo a alice. El resumen semanal está desactivado aquí; actívalo con: weekly on")
        #expect(texts[3].hasPrefix("El resumen semanal está activado: el próximo toca el "), "\(texts[3])")
        #expect(texts[4].contains("semana del") && texts[4].contains("hace 3 años"), "\(texts[4])")
        #expect(texts[5] == "Oculto los álbumes con menos de 1000 reproducciones.")
        #expect(texts[6].hasPrefix("Idioma de este chat: Español (es)."), "\(texts[6])")
        #expect(texts[7].hasPrefix("<b>Esta semana hace un año: "), "\(texts[7])")
        #expect(texts[7].contains("<b>alice</b>"))
        #expect(!texts.dropFirst().contains { $0.contains("plays") || $0.contains("years ago") })
        #expect(await harness.telegram.refusals.isEmpty)
        await harness.stop()
    }

    @Test func theScheduledWeeklyPostIsInTheChatsLanguage() async throws {
        let harness = try await BotHarness.start()
        let store = try BotStore(path: harness.databasePath)
        try await store.updateSettings(for: -9301) {
            $0.weeklyPost = true
            $0.language = "es"
        }
        _ = try await store.addToRoster(["alice"], chat: -9301, limit: 50)
        let date = TestDate(Date(timeIntervalSince1970: 1_794_996_000)) // Wed 18 Nov, 10:00 UTC: Monday's post is due
        let services = try await harness.services(clock: ImmediateClock(), now: { date.now })
        await services.scheduler.tick()
        await services.outbox.idle()
        let post = await harness.telegram.delivered.filter { $0.chatID == -9301 }.compactMap(\.text).joined(separator: "\n\n")
        #expect(post.hasPrefix("<b>Esta semana hace un año: "), "\(post)")
        #expect(post.contains("<b>alice</b>"), "\(post)")
        #expect(!post.contains("that week") && !post.contains("plays") && !post.contains("years ago"), "\(post)")
        await harness.stop()
    }

    /// The whole weekly post, with long names, anniversaries and a full roster, in every
    /// language and in the pseudo-locale (every string a third longer, accented): Telegram
    /// takes every message, and none of it is English.
    @Test(arguments: Language.allCases.filter { $0 != .english })
    func aWholeWeeklyPostFitsTelegramInEveryLanguage(language: Language) async throws {
        let harness = try await BotHarness.start()
        let end = Int(LastFMWeek.start(of: BotHarness.now).timeIntervalSince1970)
        let elevenYears = (1...(52 * 11 + 2)).reversed().map { (from: end - $0 * 604_800, to: end - ($0 - 1) * 604_800) }
        let users = (1...12).map { "user\($0)" }
        let long = String(repeating: "Ж&<ß>", count: 60)
        for user in users { await harness.lastFM.addUser(user, ranges: elevenYears) }
        for years in [1, 5, 10] {
            let due = Date(timeIntervalSince1970: 1_794_819_600)
            let from = Int(LastFMWeek.start(of: WeekFinder.date(yearsBefore: due, years: years)).timeIntervalSince1970)
            for user in users {
                let albums = (1...8).map { ("\(long) \($0)", "\(long) \(user)", 2_000_000 - $0) }
                await harness.lastFM.setAlbumChart(user: user, from: from, to: from + 604_800, albums: albums)
            }
        }
        let store = try BotStore(path: harness.databasePath)
        try await store.updateSettings(for: -9302) {
            $0.weeklyPost = true
            $0.language = language.rawValue
            $0.covers = false
        }
        _ = try await store.addToRoster(users + ["ghost"], chat: -9302, limit: 50)
        let date = TestDate(Date(timeIntervalSince1970: 1_794_996_000))
        let services = try await harness.services(clock: ImmediateClock(), now: { date.now })
        await services.scheduler.tick()
        await services.outbox.idle()

        let texts = await harness.telegram.delivered.filter { $0.chatID == -9302 }.compactMap(\.text)
        #expect(texts.count > 1)
        #expect(await harness.telegram.refusals.isEmpty)
        let post = texts.joined(separator: "\n")
        for user in users { #expect(post.contains("<b>\(user)</b>"), "\(user)") }
        for english in ["This week one year ago", "years ago this week", "plays)", "more albums", "no longer knows"] {
            #expect(!post.contains(english), "\(language): \(english)")
        }
        await harness.stop()
    }

    @Test func aPrivateChatFromAFrenchUserIsAnsweredInFrenchWithoutSettingAnything() async throws {
        let harness = try await BotHarness.start()
        let person: Int64 = 501
        for text in ["help", "tb alice 3", "tb alice 99", "/nonsense"] {
            await harness.telegram.pushMessage(text, chatID: person, chatType: "private", userID: person, languageCode: "fr")
        }
        // A Portuguese Telegram falls back from pt-PT to pt, which the bot speaks as pt-BR.
        await harness.telegram.pushMessage("help", chatID: 502, chatType: "private", userID: 502, languageCode: "pt-PT")
        let services = try await harness.services(clock: ImmediateClock())
        let running = RunningBot(services: [services.bot])
        try await harness.telegram.waitForCalls("sendMessage", count: 5)
        try await running.shutDown()

        let delivered = await harness.telegram.delivered
        let texts = delivered.filter { $0.chatID == person }.map { $0.text ?? "" }
        #expect(texts.count == 4)
        #expect(texts[0].hasPrefix("Je fais revivre votre historique musical"), "\(texts[0])")
        #expect(texts[1].contains("semaine du") && texts[1].contains("il y a 3 ans") && texts[1].contains("écoute"), "\(texts[1])")
        #expect(texts[2].contains("hors limites"), "\(texts[2])")
        #expect(texts[3].contains("Je ne connais pas"), "\(texts[3])")
        let portuguese = try #require(delivered.first { $0.chatID == 502 }?.text)
        #expect(portuguese.hasPrefix("Eu trago de volta sua história musical"), "\(portuguese)")
        #expect(await harness.telegram.refusals.isEmpty)
        await harness.stop()
    }

    @Test func everyLanguageHasItsOwnCommandMenuAndDescriptions() async throws {
        let harness = try await BotHarness.start()
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("getUpdates")
        try await bot.shutDown()

        let menus = await harness.telegram.localizedMenus
        #expect(Set(menus.keys) == ["", "de", "es", "fr", "pt", "ru"])
        // One call per language and scope, each accepted.
        #expect(await harness.telegram.calls("setMyCommands").count == 2 * Language.supported.count)
        #expect(await harness.telegram.refusals.isEmpty)
        let english = try #require(menus[""]?["all_chat_administrators"])
        for (code, scopes) in menus {
            // The command words are the same everywhere; only their descriptions differ.
            #expect(Set(scopes["all_chat_administrators"]?.keys ?? [:].keys) == Set(english.keys), "\(code)")
            #expect(Set(scopes["default"]?.keys ?? [:].keys) == ["throwback", "link", "unlink", "id", "tracked", "help"], "\(code)")
            if !code.isEmpty { #expect(scopes["default"]?["help"] != english["help"], "\(code)") }
        }
        #expect(menus["ru"]?["default"]?["help"] == "что я умею")
        let descriptions = await harness.telegram.botDescriptions
        #expect(descriptions["de"]?.hasPrefix("Ich hole deine Musikgeschichte") == true)
        #expect(Set(descriptions.keys) == ["", "de", "es", "fr", "pt", "ru"])
        #expect(Set(await harness.telegram.botShortDescriptions.keys) == ["", "de", "es", "fr", "pt", "ru"])
        await harness.stop()
    }

    @Test func theFakeRefusesMenusItsRealCounterpartWould() async throws {
        let harness = try await BotHarness.start()
        let client = HTTPTelegramClient(transport: CurlTransport(), baseURL: harness.telegramURL, token: Secret(harness.telegram.token))
        await #expect(throws: TelegramError.self) {
            try await client.setMyCommands([BotCommand(command: "help", description: "x")], languageCode: "deu")
        }
        await #expect(throws: TelegramError.self) {
            try await client.setMyCommands([BotCommand(command: "help", description: "")], languageCode: "de")
        }
        await #expect(throws: TelegramError.self) {
            _ = try await client.send(.setMyShortDescription(String(repeating: "é", count: 121), languageCode: "fr"))
        }
        await harness.stop()
    }
}
