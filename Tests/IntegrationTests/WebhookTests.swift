import Clocks
import Foundation
import GRDB
import Logging
import Networking
import Operations
import Prometheus
import Telegram
import Testing
import TestSupport
import Throwback
import TestLogging

/// Webhook mode, wired as `vinylogue-bot run` wires it: the bot's services and its HTTP
/// server, with the fake Telegram posting to it as the reverse proxy in front of it would.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct WebhookTests {
    static let publicURL = URL(string: "https://bot.example.org/telegram/hook")!
    let group: Int64 = -7001
    let transport = CurlTransport()

    /// A bot on a webhook with its HTTP server on a free loopback port, running.
    struct WebhookBot {
        let services: BotAssembly.Services
        let running: RunningBot
        /// The bot's own server, where the proxy forwards to.
        let base: URL
        let secret: String

        func post(_ body: Data, secret: String?, transport: any HTTPTransport) async throws -> Networking.HTTPResponse {
            var headers = ["Content-Type": "application/json"]
            if let secret { headers[WebhookRegistration.secretHeader] = secret }
            return try await transport.send(Networking.HTTPRequest(
                method: "POST", url: base.appendingPathComponent("telegram/hook"), headers: headers, body: body, timeout: .seconds(10)
            ))
        }
    }

    func startWebhookBot(_ harness: BotHarness) async throws -> WebhookBot {
        let services = try await harness.services(clock: ImmediateClock(), webhook: Self.publicURL)
        let (ports, sink) = AsyncStream<Int>.makeStream()
        let server = OperationsServer(
            host: "127.0.0.1", port: 0, health: services.health, registry: PrometheusCollectorRegistry(), logger: harness.logs.logger("http"),
            webhook: services.webhook
        ) { port in
            sink.yield(port)
            sink.finish()
        }
        let running = RunningBot(services: services.all + [server])
        var iterator = ports.makeAsyncIterator()
        let base = URL(string: "http://127.0.0.1:\(await iterator.next() ?? 0)")!
        await harness.telegram.routeWebhook(to: base)
        try await harness.telegram.waitForCalls("setWebhook")
        let secret = harness.configuration().webhookSecret(token: Secret(harness.telegram.token)).reveal()
        return WebhookBot(services: services, running: running, base: base, secret: secret)
    }

    func update(_ id: Int64, text: String, messageID: Int64) -> Data {
        Data(#"""
            {"update_id":\#(id),"message":{"message_id":\#(messageID),"date":1700000000,"text":"\#(text)",
            "chat":{"id":\#(group),"type":"group","title":"Test chat"},"from":{"id":7,"is_bot":false,"first_name":"User 7"}}}
            """#.utf8)
    }

    func journalRows(_ harness: BotHarness) throws -> Int {
        try DatabaseQueue(path: harness.databasePath).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM journalEntry") ?? 0 }
    }

    @Test func setsTheWebhookWithItsSecretAndTheKindsOfUpdatePollingAsksFor() async throws {
        let harness = try await BotHarness.start()
        let bot = try await startWebhookBot(harness)
        let set = try #require(await harness.telegram.calls("setWebhook").first).parameters
        #expect(set["url"] as? String == Self.publicURL.absoluteString)
        #expect(set["secret_token"] as? String == bot.secret)
        #expect(set["allowed_updates"] as? [String] == LongPoller.Configuration().allowedUpdates)
        #expect(set["max_connections"] as? Int == 40)
        #expect(await harness.telegram.calls("getUpdates").isEmpty)
        #expect(await harness.telegram.calls("deleteWebhook").isEmpty)
        // Healthy without ever polling: Telegram took the webhook, and the server answers.
        let health = try await transport.send(Networking.HTTPRequest(url: bot.base.appendingPathComponent("healthz")))
        #expect(health.status == 200)
        // The derived secret never reaches the log.
        #expect(!harness.logs.text.contains(bot.secret))
        try await bot.running.shutDown()
        await harness.stop()
    }

    @Test func aMissingOrWrongSecretIsRefusedAndNothingIsRecorded() async throws {
        let harness = try await BotHarness.start()
        let bot = try await startWebhookBot(harness)
        let missing = try await bot.post(update(1, text: "/tracked", messageID: 10), secret: nil, transport: transport)
        let wrong = try await bot.post(update(1, text: "/tracked", messageID: 10), secret: String(bot.secret.dropLast()) + "x", transport: transport)
        #expect(missing.status == 401)
        #expect(wrong.status == 401)
        #expect(try journalRows(harness) == 0)
        // The right one is taken, and answered through the outbox, not in the response.
        let right = try await bot.post(update(1, text: "/tracked", messageID: 10), secret: bot.secret, transport: transport)
        #expect(right.status == 200)
        #expect(right.body.isEmpty)
        try await harness.telegram.waitForDeliveries(1)
        try await bot.running.shutDown()
        let replies = await harness.telegram.delivered.map { $0.text ?? "" }
        #expect(replies.count == 1 && replies[0].hasPrefix("Nobody is tracked here yet."), "\(replies)")
        await harness.stop()
    }

    @Test func aReplayedUpdateIsAnswered200AndHandledOnce() async throws {
        let harness = try await BotHarness.start()
        let bot = try await startWebhookBot(harness)
        let first = try await bot.post(update(5, text: "/tracked", messageID: 20), secret: bot.secret, transport: transport)
        try await harness.telegram.waitForDeliveries(1)
        let replay = try await bot.post(update(5, text: "/tracked", messageID: 20), secret: bot.secret, transport: transport)
        // The chat's next command: a handled replay would have been answered before it.
        let next = try await bot.post(update(6, text: "/tracked", messageID: 21), secret: bot.secret, transport: transport)
        try await harness.telegram.waitForDeliveries(2)
        try await bot.running.shutDown()
        #expect(first.status == 200 && replay.status == 200 && next.status == 200)
        #expect(await harness.telegram.delivered.count == 2, "each update answered once (a send the fake answered 429 and the outbox sent again counts once)")
        await harness.stop()
    }

    @Test func anUpdateIsAcknowledgedOnlyOnceRecordedAndTelegramDeliversItAgain() async throws {
        let harness = try await BotHarness.start()
        let bot = try await startWebhookBot(harness)
        // A database that refuses the journal's write.
        var waiting = Configuration()
        waiting.busyMode = .timeout(10)
        let database = try DatabaseQueue(path: harness.databasePath, configuration: waiting)
        try await database.write {
            try $0.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON journalEntry BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
        }
        await harness.telegram.pushMessage("/tracked", chatID: group)
        let refused = await harness.telegram.deliverWebhookUpdates()
        #expect(refused.map(\.status) == [503])
        let info = try await HTTPTelegramClient(transport: transport, baseURL: harness.telegramURL, token: Secret(harness.telegram.token))
            .getWebhookInfo()
        #expect(info.pendingUpdateCount == 1)
        #expect(info.lastErrorMessage == "Wrong response from the webhook: 503 Service Unavailable")
        #expect(try journalRows(harness) == 0)

        try await database.write { try $0.execute(sql: "DROP TRIGGER refuse") }
        let again = await harness.telegram.deliverWebhookUpdates()
        #expect(again.map(\.status) == [200])
        await harness.telegram.pushMessage("/tracked", chatID: group)
        #expect(await harness.telegram.deliverWebhookUpdates().map(\.status) == [200])
        try await harness.telegram.waitForDeliveries(2)
        try await bot.running.shutDown()
        #expect(await harness.telegram.delivered.count == 2, "each update answered once (a send the fake answered 429 and the outbox sent again counts once)")
        #expect(harness.logs.text.contains("could not store an update from the webhook"))
        await harness.stop()
    }

    /// Telegram gives a post a while and then calls it a failure and posts it again, though the
    /// bot may have recorded it meanwhile: the second post is a replay, answered and not
    /// handled again.
    @Test func anUpdatePostedAgainAfterATimeoutIsHandledOnce() async throws {
        let harness = try await BotHarness.start()
        let bot = try await startWebhookBot(harness)
        // Another process holds the write lock: the bot cannot record the update in time.
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: harness.databasePath, configuration: holding)
        try other.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        await harness.telegram.setWebhookTimeout(.milliseconds(300))
        await harness.telegram.pushMessage("/tracked", chatID: group)
        #expect(await harness.telegram.deliverWebhookUpdates().map(\.status) == [nil])
        let info = try await HTTPTelegramClient(transport: transport, baseURL: harness.telegramURL, token: Secret(harness.telegram.token))
            .getWebhookInfo()
        #expect(info.pendingUpdateCount == 1)
        #expect(info.lastErrorMessage == "Read timeout expired")

        // The lock is freed: the bot records the update it was posted, and answers it.
        try other.inDatabase { db in try db.execute(sql: "COMMIT") }
        try await harness.telegram.waitForDeliveries(1)
        await harness.telegram.setWebhookTimeout(.seconds(10))
        #expect(await harness.telegram.deliverWebhookUpdates().map(\.status) == [200])
        // The chat's next command: a handled replay would have been answered before it.
        await harness.telegram.pushMessage("/tracked", chatID: group)
        #expect(await harness.telegram.deliverWebhookUpdates().map(\.status) == [200])
        try await harness.telegram.waitForDeliveries(2)
        try await bot.running.shutDown()
        #expect(await harness.telegram.delivered.count == 2, "each update answered once")
        #expect(try journalRows(harness) == 2)
        await harness.stop()
    }

    @Test func anOversizeOrMalformedBodyIsRefused() async throws {
        let harness = try await BotHarness.start()
        let bot = try await startWebhookBot(harness)
        let huge = Data(repeating: UInt8(ascii: " "), count: WebhookInbox.maxBodyBytes + 1)
        let oversize = try await bot.post(huge, secret: bot.secret, transport: transport)
        let malformed = try await bot.post(Data("{not json".utf8), secret: bot.secret, transport: transport)
        let noUpdate = try await bot.post(Data(#"{"message":{}}"#.utf8), secret: bot.secret, transport: transport)
        #expect(oversize.status == 413)
        #expect(malformed.status == 400)
        #expect(noUpdate.status == 400)
        #expect(try journalRows(harness) == 0)
        // Still serving.
        #expect(try await bot.post(update(9, text: "/tracked", messageID: 30), secret: bot.secret, transport: transport).status == 200)
        try await harness.telegram.waitForDeliveries(1)
        try await bot.running.shutDown()
        #expect(harness.logs.text.contains("refused a webhook request whose body is not an update (400)"))
        #expect(harness.logs.text.contains("refused a webhook request over"))
        await harness.stop()
    }

    @Test func pollingAgainDeletesTheWebhookBeforeItsFirstPollAndKeepsPendingUpdates() async throws {
        let harness = try await BotHarness.start()
        let webhookBot = try await startWebhookBot(harness)
        try await webhookBot.running.shutDown()
        // Waits at Telegram while the webhook is set.
        await harness.telegram.pushMessage("/tracked", chatID: group)
        #expect(await harness.telegram.webhookURL == Self.publicURL)

        let polling = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForDeliveries(1)
        try await polling.shutDown()
        let methods = await harness.telegram.calls.map(\.method)
        let deleted = try #require(methods.lastIndex(of: "deleteWebhook"))
        let firstPoll = try #require(methods.firstIndex(of: "getUpdates"))
        #expect(deleted < firstPoll)
        #expect(await harness.telegram.webhookURL == nil)
        #expect(await harness.telegram.refusals.filter { $0.code == 409 }.isEmpty)
        await harness.stop()
    }
}
