import Foundation
import Networking
import Telegram
import Testing
import TestSupport
import Throwback
import TestLogging

/// The commands an operator runs while setting the bot up, run as the built executable:
/// `check` against every service, `run` without its keys, and `healthcheck`.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct SetupCommandTests {
    /// A bot token of @BotFather's shape.
    static let token = "123456:TEST-token_for-the-check-0123456789"
    /// Fakes of the four services `check` asks.
    struct Services {
        let telegram = FakeTelegram(token: SetupCommandTests.token)
        let lastFM = FakeLastFM()
        let listenBrainz = FakeListenBrainz()
        let libreFM = FakeLibreFM()
        var environment: [String: String] = [:]

        static func start() async throws -> Services {
            var services = Services()
            services.environment = [
                "TELEGRAM_BOT_TOKEN": SetupCommandTests.token, "TELEGRAM_API_URL": try await services.telegram.start().absoluteString,
                "LASTFM_API_KEY": BotHarness.lastFMKey, "LASTFM_API_URL": try await services.lastFM.start().absoluteString,
                "LISTENBRAINZ_API_URL": try await services.listenBrainz.start().absoluteString,
                "LIBREFM_API_URL": try await services.libreFM.start().absoluteString,
            ]
            return services
        }

        func stop() async {
            await telegram.stop()
            await lastFM.stop()
            await listenBrainz.stop()
            await libreFM.stop()
        }
    }

    @Test func checkSaysInOneLineForEachServiceWhetherItAnswersAndTakesTheToken() async throws {
        let services = try await Services.start()
        let listenBrainzToken = "6f0b2c44-6f31-4a4e-9a4c-2f6f0c4b8e11"
        await services.listenBrainz.addToken(listenBrainzToken, user: "Bob")
        var environment = services.environment
        environment["LISTENBRAINZ_TOKEN"] = listenBrainzToken
        let valid = try await Executable.run(["check"], environment: environment)
        environment["LISTENBRAINZ_TOKEN"] = "00000000-0000-0000-0000-000000000000"
        let invalid = try await Executable.run(["check"], environment: environment)
        environment["LISTENBRAINZ_TOKEN"] = nil
        let none = try await Executable.run(["check"], environment: environment)
        let asked = await services.listenBrainz.tokenValidations
        await services.stop()

        #expect(valid.status == 0, "\(valid.stdout)")
        #expect(valid.stderr.isEmpty, "\(valid.stderr)")
        #expect(valid.stdout == """
            Telegram: OK, the token belongs to @TheBot.
            Webhook: none set, the bot polls.
            Last.fm: OK, the key works.
            ListenBrainz: OK, the token belongs to Bob.
            Libre.fm: OK, the server answers.

            """)
        #expect(invalid.status == 1)
        let invalidLines = invalid.stdout.split(separator: "\n")
        #expect(invalidLines.count == 5, "\(invalid.stdout)")
        #expect(invalidLines.dropFirst(3).first == "ListenBrainz: LISTENBRAINZ_TOKEN was refused: copy it again from https://listenbrainz.org/settings/, or leave it empty.")
        #expect(none.status == 0, "\(none.stdout)")
        #expect(none.stdout.split(separator: "\n").dropFirst(3).first == "ListenBrainz: OK (no token set; LISTENBRAINZ_TOKEN only raises the rate limit).")
        #expect(asked == 3)
        for result in [valid, invalid, none] {
            #expect(!result.stdout.contains(listenBrainzToken) && !result.stdout.contains(BotHarness.lastFMKey))
        }
    }

    /// `check` shows what `getWebhookInfo` says: the URL, the updates waiting, the last
    /// delivery error, and what `run` will do about it; and `run` refuses a webhook without
    /// `HTTP_PORT`, naming it with the other missing keys.
    @Test func checkShowsTheWebhookTelegramHoldsAndRunNeedsAPortForOne() async throws {
        let services = try await Services.start()
        let telegramURL = try #require(URL(string: services.environment["TELEGRAM_API_URL"] ?? ""))
        let client = HTTPTelegramClient(transport: CurlTransport(), baseURL: telegramURL, token: Secret(Self.token))
        let hook = try #require(URL(string: "https://bot.example.org/hook"))
        try await client.setWebhook(WebhookRegistration(url: hook, secret: Secret("s3cret"), allowedUpdates: ["message"], maxConnections: 10))
        // Nobody listens where the proxy forwards: the update waits, and the error is kept.
        let refusing = try RefusingPort()
        await services.telegram.routeWebhook(to: refusing.baseURL)
        await services.telegram.pushMessage("/tracked", chatID: -1)
        #expect(await services.telegram.deliverWebhookUpdates().map(\.status) == [nil])
        let polling = try await Executable.run(["check"], environment: services.environment)
        var webhookEnvironment = services.environment
        webhookEnvironment["TELEGRAM_WEBHOOK_URL"] = hook.absoluteString
        let same = try await Executable.run(["check"], environment: webhookEnvironment)
        try await client.deleteWebhook()
        let none = try await Executable.run(["check"], environment: webhookEnvironment)
        let run = try await Executable.run(["run"], environment: ["TELEGRAM_WEBHOOK_URL": hook.absoluteString])
        await services.stop()

        let line = { (result: Executable.Result) in result.stdout.split(separator: "\n").first { $0.hasPrefix("Webhook: ") } ?? "" }
        #expect(line(polling).hasPrefix("Webhook: https://bot.example.org/hook, 1 update pending, last error at "), "\(polling.stdout)")
        #expect(line(polling).hasSuffix(": Connection refused; `run` deletes it and polls, keeping pending updates."), "\(polling.stdout)")
        #expect(line(same).hasSuffix(": Connection refused."), "\(same.stdout)")
        #expect(line(none) == "Webhook: none set; `run` sets TELEGRAM_WEBHOOK_URL (https://bot.example.org/hook) at start.")
        #expect(polling.status == 0 && same.status == 0 && none.status == 0)
        #expect(run.status == 78)
        #expect(run.stderr.contains("HTTP_PORT is not set") && run.stderr.contains("TELEGRAM_BOT_TOKEN is not set"), "\(run.stderr)")
    }

    /// A token or key that cannot be one is named as such, and nobody is asked with it.
    @Test(arguments: [
        (
            "https://api.telegram.org/bot\(SetupCommandTests.token)/getMe", "abcde",
            "Telegram: TELEGRAM_BOT_TOKEN is a URL, not a token: keep only the part between “/bot” and the next “/”.",
            "Last.fm: LASTFM_API_KEY is too short (5 characters; Last.fm keys have 32)."
        ),
        (
            "bot\(SetupCommandTests.token)", BotHarness.lastFMKey + "0",
            "Telegram: TELEGRAM_BOT_TOKEN starts with “bot”, which belongs to the URL, not to the token: remove those three letters.",
            "Last.fm: LASTFM_API_KEY is too long (33 characters; Last.fm keys have 32)."
        ),
        (
            SetupCommandTests.token.replacingOccurrences(of: ":", with: ": "), "“\(BotHarness.lastFMKey)”",
            "Telegram: TELEGRAM_BOT_TOKEN has a space in it: a token has none; paste it again in one piece.",
            "Last.fm: LASTFM_API_KEY has a quotation mark in it: a key has none; remove it."
        ),
        (
            String(SetupCommandTests.token.dropLast(3)), "api_key=\(BotHarness.lastFMKey)",
            "Telegram: TELEGRAM_BOT_TOKEN has 32 characters after the colon, where a bot token has 35: copy it again from @BotFather.",
            "Last.fm: LASTFM_API_KEY is a URL, not a key: the key is the 32 characters shown as “API key” at https://www.last.fm/api/accounts."
        ),
    ])
    func checkNamesAMalformedTokenOrKeyWithoutAskingAnyone(token pasted: String, key: String, telegramLine: String, lastFMLine: String) async throws {
        let services = try await Services.start()
        var environment = services.environment
        environment["TELEGRAM_BOT_TOKEN"] = pasted
        environment["LASTFM_API_KEY"] = key
        let result = try await Executable.run(["check"], environment: environment)
        let telegramCalls = await services.telegram.calls("getMe").count
        let lastFMCalls = await services.lastFM.count()
        await services.stop()

        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(result.stdout)")
        #expect(lines.first == telegramLine)
        #expect(lines.dropFirst().first == lastFMLine)
        #expect(telegramCalls == 0 && lastFMCalls == 0)
        #expect(!result.stdout.contains("for-the-check") && !result.stdout.contains(BotHarness.lastFMKey))
    }

    @Test func runNamesEveryMissingOrMalformedKeyAtOnceBeforeStarting() async throws {
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = try await Executable.start(["run"], in: directory).result()
        #expect(missing.status == 78)
        let lines = missing.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(missing.stderr)")
        #expect(lines.first?.hasPrefix("TELEGRAM_BOT_TOKEN is not set: ") == true)
        #expect(lines.last?.hasPrefix("LASTFM_API_KEY is not set: ") == true)

        let token = "123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0"
        let malformed = try await Executable.start(["run"], in: directory, environment: [
            "TELEGRAM_BOT_TOKEN": "https://api.telegram.org/bot\(token)/getMe", "LASTFM_API_KEY": "abcde",
        ]).result()
        #expect(malformed.status == 78)
        #expect(malformed.stderr == """
            TELEGRAM_BOT_TOKEN is a URL, not a token: keep only the part between “/bot” and the next “/”.
            LASTFM_API_KEY is too short (5 characters; Last.fm keys have 32).

            """)
        #expect(!malformed.stderr.contains(token))
        // Nothing started: not even the database was created.
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("vinylogue.sqlite").path))
    }

    /// Without `HTTP_PORT` (a `.env` that empties it under `docker run --env-file`, say), the
    /// health check reads when the bot last polled from the database: a bot that cannot
    /// reach Telegram is unhealthy, as `/healthz` would say.
    @Test func healthcheckFailsWhileTheBotCannotPollAndPassesOnceItPolls() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.beginOutage(of: "getUpdates", .raw(status: 502, body: "Bad Gateway"))
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var environment = Executable.botEnvironment(
            harness.telegramURL, harness.lastFMURL, token: harness.telegram.token, key: BotHarness.lastFMKey, level: "notice"
        )
        environment["HTTP_PORT"] = ""
        let bot = try Executable.start(["run"], in: directory, environment: environment)
        #expect(await bot.waitForLog("Telegram polling failed"))
        let failing = try await Executable.start(["healthcheck"], in: directory, environment: environment).result()
        await harness.telegram.endOutage(of: "getUpdates")
        // An update ends the next long poll at once.
        await harness.telegram.pushMessage("/help", chatID: -1)
        #expect(await bot.waitForLog("Telegram polling recovered"))
        let healthy = try await Executable.start(["healthcheck"], in: directory, environment: environment).result()
        bot.terminate()
        let stopped = await bot.result()
        await harness.stop()

        #expect(failing.status == 1)
        #expect(failing.stdout == "unhealthy: Telegram has not been polled successfully yet\n")
        #expect(healthy.status == 0, "\(healthy.stdout)")
        #expect(healthy.stdout.hasPrefix("healthy: Telegram answered a poll "), "\(healthy.stdout)")
        #expect(stopped.status == 0)
        #expect(stopped.stderr.contains("HTTP_PORT is set but empty in the environment"), "\(stopped.stderr)")
    }

    @Test func healthcheckWithoutHTTPFailsOnceTheLastPollIsOld() async throws {
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = try await Executable.start(["healthcheck"], in: directory).result()
        #expect(missing.status == 1)
        #expect(missing.stdout == "unhealthy: no database at vinylogue.sqlite\n")

        let store = try BotStore(path: directory.appendingPathComponent("vinylogue.sqlite").path)
        // POLL_TIMEOUT 50: a poll at least every 50 s, so 2 × 50 + 30 s of silence, and 15 s for the stamp's pace.
        try await store.recordPoll(at: Date().addingTimeInterval(-146))
        let old = try await Executable.start(["healthcheck"], in: directory).result()
        #expect(old.status == 1)
        #expect(old.stdout.hasPrefix("unhealthy: no successful poll of Telegram for 14"), "\(old.stdout)")

        try await store.recordPoll(at: Date().addingTimeInterval(-100))
        let recent = try await Executable.start(["healthcheck"], in: directory).result()
        #expect(recent.status == 0, "\(recent.stdout)")
        #expect(recent.stdout.hasPrefix("healthy: Telegram answered a poll 10"), "\(recent.stdout)")
    }
}
