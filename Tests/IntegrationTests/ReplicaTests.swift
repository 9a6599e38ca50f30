import Foundation
import Networking
import Testing
import TestLogging
import TestSupport
import Throwback

#if PostgreSQL
/// Replicas on one PostgreSQL, as real processes against the fakes: each update handled once
/// whichever replica receives it, each chat's replies in order, Telegram's flood limits kept
/// by the bot as a whole, and the work of a replica killed with SIGKILL taken up by the others.
@Suite(
    .capturingLogs, .timeLimit(.minutes(5)), .serialized,
    .enabled(if: TestDatabases.hasPostgres, "needs PostgreSQL: run the tests with scripts/test")
)
struct ReplicaTests {
    /// A replica's environment: the shared database, no command rate limits (the test sends
    /// twenty commands a chat), and a short lease, so that a killed replica's chats are free soon.
    private func environment(_ harness: BotHarness, database: String, _ extra: [String: String] = [:]) -> [String: String] {
        Executable.botEnvironment(harness.telegramURL, harness.lastFMURL, token: harness.telegram.token, key: BotHarness.lastFMKey, level: "notice")
            .merging([
                "DATABASE_URL": database, "RATE_LIMIT_USER": "1000", "RATE_LIMIT_CHAT": "1000", "OUTBOX_LEASE": "3s", "POLL_TIMEOUT": "5",
            ].merging(extra) { _, new in new }) { _, new in new }
    }

    /// Each chat's replies, as the message ids they answer, in the order the fake took them.
    private func replies(_ harness: BotHarness) async -> [Int64: [Int64]] {
        await harness.telegram.delivered.reduce(into: [:]) { replies, call in
            if let chat = call.chatID, let message = call.replyToMessageID { replies[chat, default: []].append(message) }
        }
    }

    /// `count` commands in each of `chats` groups, numbered 1… in each.
    private func pushCommands(_ harness: BotHarness, chats: Int, count: Int) async -> [Int64: [Int64]] {
        var sent: [Int64: [Int64]] = [:]
        for number in 1...Int64(count) {
            for chat in 0..<Int64(chats) {
                let id = -5_000 - chat
                await harness.telegram.pushMessage("/id", chatID: id, messageID: number)
                sent[id, default: []].append(number)
            }
        }
        return sent
    }

    @Test func threeWebhookReplicasAnswerEveryCommandOnceAndInOrderWhileOneIsKilled() async throws {
        let harness = try await BotHarness.start()
        let database = try await TestDatabases.freshPostgresDatabase().text
        let sent = await pushCommands(harness, chats: 50, count: 20)
        let ports = try (0..<3).map { _ in try FreePort.next() }
        let start = { (port: Int) in
            try Executable.start(["run"], in: try Executable.temporaryDirectory(), environment: environment(harness, database: database, [
                "TELEGRAM_WEBHOOK_URL": "https://bot.example/telegram", "HTTP_PORT": "\(port)",
            ]))
        }
        var replicas = try ports.map(start)
        await harness.telegram.routeWebhook(to: ports.map { URL(string: "http://127.0.0.1:\($0)")! })
        try await harness.telegram.waitForCalls("setWebhook", count: 3)

        // Telegram posts while one replica dies and comes back: what it held goes to the others.
        var killed = false
        var restarted = false
        while await harness.telegram.undeliveredUpdates > 0 || !restarted {
            await harness.telegram.deliverWebhookUpdates()
            let answered = await harness.telegram.delivered.count
            let undelivered = await harness.telegram.undeliveredUpdates
            if !killed, answered >= 300 {
                replicas[1].kill()
                _ = await replicas[1].result()
                killed = true
            } else if killed, !restarted, answered >= 600 || undelivered == 0 {
                replicas[1] = try start(ports[1])
                restarted = true
            }
        }
        try await harness.telegram.waitForDeliveries(1_000)
        for replica in replicas { replica.terminate() }
        for replica in replicas { _ = await replica.result() }

        let replies = await replies(harness)
        #expect(replies.count == 50)
        for (chat, commands) in sent {
            #expect(replies[chat] == commands, "chat \(chat): each command answered once, in order")
        }
        let refusals = await harness.telegram.refusals
        #expect(await harness.telegram.tooManyRequests == 0, "no flood limit broken: \(refusals)")
        await harness.stop()
    }

    @Test func whenThePollingReplicaIsKilledTheOtherPollsAndNothingIsLostOrDoubled() async throws {
        let harness = try await BotHarness.start()
        let database = try await TestDatabases.freshPostgresDatabase().text
        let sent = await pushCommands(harness, chats: 10, count: 10)
        let first = try Executable.start(["run"], in: try Executable.temporaryDirectory(), environment: environment(harness, database: database))
        #expect(await first.waitForLog("this replica polls Telegram"))
        let port = try FreePort.next()
        let second = try Executable.start(["run"], in: try Executable.temporaryDirectory(), environment: environment(harness, database: database, [
            "HTTP_PORT": "\(port)",
        ]))
        // Started: it has set itself up with Telegram, and waits for its turn to poll.
        try await harness.telegram.waitForCalls("deleteWebhook", count: 2)
        try await harness.telegram.waitForDeliveries(30)
        // It does not poll, and is healthy while the other does.
        let health = try await CurlTransport().send(HTTPRequest(url: URL(string: "http://127.0.0.1:\(port)/healthz")!))
        #expect(health.status == 200, "\(String(decoding: health.body, as: UTF8.self))")
        first.kill()
        _ = await first.result()
        // More commands, which only a poller can fetch.
        var more: [Int64: [Int64]] = [:]
        for chat in 0..<Int64(10) {
            await harness.telegram.pushMessage("/id", chatID: -5_000 - chat, messageID: 11)
            more[-5_000 - chat] = [11]
        }
        #expect(await second.waitForLog("this replica polls Telegram"))
        try await harness.telegram.waitForDeliveries(110)
        second.terminate()
        _ = await second.result()

        let replies = await replies(harness)
        for (chat, commands) in sent {
            #expect(replies[chat] == commands + [11], "chat \(chat): each command answered once, in order")
        }
        #expect(await harness.telegram.delivered.count == 110)
        #expect(await harness.telegram.tooManyRequests == 0)
        await harness.stop()
    }

    @Test func twentyWeeklyPostsDueAtOnceGoOutOnceEachFromThreeReplicas() async throws {
        let harness = try await BotHarness.start()
        let (url, database) = try await TestDatabases.freshPostgresDatabase()
        let due = PostingTime(schedule: WeeklySchedule("sun 12:01")!, zone: .gmt).previous(atOrBefore: Date())
        let week = WeeklyPostComposer.week(at: due).fromUnix
        let store = try await BotStore.postgres(url: url, logger: .init(label: "test"))
        let chats = (0..<Int64(20)).map { -6_000 - $0 }
        for (index, chat) in chats.enumerated() {
            let users = ["alice\(index)", "bob\(index)"]
            for user in users {
                await harness.lastFM.setAlbumChart(user: user, from: week, to: week + 604_800, albums: [("Low", "Trust (\(user))", 9)])
            }
            _ = try await store.addToRoster(users, chat: chat, limit: 50)
            try await store.updateSettings(for: chat) { settings in
                settings.weeklyPost = true
                settings.covers = false
            }
        }
        let replicas = try (0..<3).map { _ in
            try Executable.start(["run"], in: try Executable.temporaryDirectory(), environment: environment(harness, database: database, [
                "THROWBACK_SCHEDULE": "sun 12:01",
            ]))
        }
        try await harness.telegram.waitForDeliveries(20)
        // Any post sent twice would follow the first at once: the replicas finish what they claimed.
        for replica in replicas { replica.terminate() }
        for replica in replicas { _ = await replica.result() }

        let posts = await harness.telegram.delivered.filter { $0.method == "sendMessage" }
        #expect(posts.count == 20)
        #expect(Set(posts.compactMap(\.chatID)) == Set(chats), "each chat posted once")
        for (index, chat) in chats.enumerated() {
            let text = posts.first { $0.chatID == chat }?.text ?? ""
            #expect(text.contains("alice\(index)") && text.contains("bob\(index)"), "chat \(chat)'s own roster, in one post")
        }
        #expect(await harness.telegram.tooManyRequests == 0)
        await harness.stop()
    }
}
#endif
