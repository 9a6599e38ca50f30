import Foundation
import LastFM
import Testing
import TestSupport
import Throwback
import TestLogging

/// Exactly once across a crash: each test sends SIGKILL to a running `vinylogue-bot run`
/// at a chosen moment, starts it again on the same database, and checks the exact messages
/// the fake Telegram accepted: none twice, and none lost but the one in flight at the kill.
@Suite(.capturingLogs, .timeLimit(.minutes(2)), .serialized) struct CrashTests {
    let group: Int64 = -9700
    let admin: Int64 = 11

    /// The fakes, with alice and bob each having played two albums, all with covers, in the
    /// week one year before now: a weekly post is then a collage and one text message.
    private func fakes() async throws -> BotHarness {
        let harness = try await BotHarness.start()
        await harness.lastFM.setDefaultCover(.generated)
        // A post on request shows the week a year before now; a scheduled one, the week a
        // year before it was due (`weeklyDue`, this week's Sunday).
        let due = PostingTime(schedule: WeeklySchedule("sun 12:01")!, zone: .gmt).previous(atOrBefore: Date())
        for week in Set([Date(), due].map { WeeklyPostComposer.week(at: $0).fromUnix }) {
            for user in ["alice", "bob"] {
                await harness.lastFM.setAlbumChart(user: user, from: week, to: week + 604_800, albums: [
                    ("Low", "Trust (\(user))", 9), ("Slint", "Spiderland (\(user))", 4),
                ])
            }
        }
        return harness
    }

    /// A folder for the bot's database, with `users` tracked in the group.
    private func folder(tracking users: [String] = []) async throws -> URL {
        let directory = try Executable.temporaryDirectory()
        if !users.isEmpty {
            _ = try await BotStore(path: directory.appendingPathComponent("vinylogue.sqlite").path).addToRoster(users, chat: group, limit: 50)
        }
        return directory
    }

    private func environment(_ harness: BotHarness, _ extra: [String: String] = [:]) -> [String: String] {
        Executable.botEnvironment(harness.telegramURL, harness.lastFMURL, token: harness.telegram.token, key: BotHarness.lastFMKey, level: "notice")
            // A chat the killed process was sending to is free again once its lease runs out.
            .merging(["ADMIN_USER_IDS": "\(admin)", "OUTBOX_LEASE": "2s"].merging(extra) { _, new in new }) { _, new in new }
    }

    /// The weekly post of the group is due whenever the bot runs: every week from Sunday
    /// 12:01 UTC, just after the Last.fm week starts.
    private let weeklyDue = ["THROWBACK_SCHEDULE": "sun 12:01"]

    @Test func aReplyKilledDuringItsFloodWaitIsSentOnceAfterTheRestart() async throws {
        let harness = try await fakes()
        let directory = try await folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        await harness.telegram.inject(.error(code: 429, description: "Too Many Requests: retry after 5", retryAfter: 5), method: "sendMessage")
        await harness.telegram.pushMessage("/help", chatID: group, messageID: 1)
        let first = try Executable.start(["run"], in: directory, environment: environment(harness))
        // Refused with a 429, the reply waits 5 seconds to go again: then the process dies. The
        // restarted bot keeps that wait, which the chat's lease covers.
        #expect(await first.waitForLog("message not sent; it waits and goes again"))
        first.kill()
        _ = await first.result()
        #expect(await harness.telegram.delivered.isEmpty)

        let second = try Executable.start(["run"], in: directory, environment: environment(harness))
        try await harness.telegram.waitForDeliveries(1)
        second.terminate()
        #expect(await second.result().status == 0)
        #expect(await harness.telegram.delivered.map(\.replyToMessageID) == [1])
        #expect(await harness.telegram.calls("sendMessage").count == 2)
        await harness.stop()
    }

    @Test func aWeeklyPostKilledBetweenTwoMessagesSendsTheRestOnceAfterTheRestart() async throws {
        let harness = try await fakes()
        let directory = try await folder(tracking: ["alice", "bob"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let settings = environment(harness, weeklyDue.merging(["THROWBACK_CHAT_ID": "\(group)"]) { _, new in new })
        let first = try Executable.start(["run"], in: directory, environment: settings)
        // The collage is out; the text waits a second for the chat's flood limit.
        try await harness.telegram.waitForCalls("sendPhoto")
        first.kill()
        _ = await first.result()

        let second = try Executable.start(["run"], in: directory, environment: settings)
        try await harness.telegram.waitForDeliveries(2)
        second.terminate()
        #expect(await second.result().status == 0)
        let delivered = await harness.telegram.delivered
        #expect(delivered.map(\.method) == ["sendPhoto", "sendMessage"])
        #expect(delivered.last?.text?.contains("<b>alice</b>") == true && delivered.last?.text?.contains("<b>bob</b>") == true)
        #expect(await harness.telegram.calls("sendPhoto").count == 1)
        await harness.stop()
    }

    @Test func postnowKilledBetweenTwoMessagesIsNeitherLostNorRunAgain() async throws {
        let harness = try await fakes()
        let directory = try await folder(tracking: ["alice", "bob"])
        defer { try? FileManager.default.removeItem(at: directory) }
        await harness.telegram.pushMessage("/postnow", chatID: group, userID: admin, messageID: 5)
        let first = try Executable.start(["run"], in: directory, environment: environment(harness))
        try await harness.telegram.waitForCalls("sendPhoto")
        first.kill()
        _ = await first.result()

        let second = try Executable.start(["run"], in: directory, environment: environment(harness))
        try await harness.telegram.waitForDeliveries(2)
        // Another command after the restart is answered after the rest of the post.
        await harness.telegram.pushMessage("/tracked", chatID: group, userID: admin, messageID: 6)
        try await harness.telegram.waitForDeliveries(3)
        second.terminate()
        #expect(await second.result().status == 0)
        let delivered = await harness.telegram.delivered
        try #require(delivered.map(\.method) == ["sendPhoto", "sendMessage", "sendMessage"])
        #expect(delivered[1].text?.contains("<b>alice</b>") == true)
        #expect(delivered[2].text == "Tracked (2): alice, bob")
        #expect(await harness.telegram.calls("sendPhoto").count == 1)
        await harness.stop()
    }

    @Test func aMessageInFlightAtTheKillIsNotSentAgainAndItsChatGoesOn() async throws {
        let harness = try await fakes()
        let directory = try await folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Telegram takes the reply and never answers: it may well have been posted.
        await harness.telegram.inject(.hang, method: "sendMessage")
        await harness.telegram.pushMessage("/help", chatID: group, messageID: 1)
        let first = try Executable.start(["run"], in: directory, environment: environment(harness))
        try await harness.telegram.waitForCalls("sendMessage")
        first.kill()
        _ = await first.result()

        await harness.telegram.pushMessage("/help", chatID: group, messageID: 2)
        let second = try Executable.start(["run"], in: directory, environment: environment(harness))
        try await harness.telegram.waitForDeliveries(1)
        second.terminate()
        #expect(await second.result().status == 0)
        #expect(await harness.telegram.calls("sendMessage").map(\.replyToMessageID) == [1, 2])
        #expect(await harness.telegram.delivered.map(\.replyToMessageID) == [2])
        await harness.stop()
    }

    @Test func postWeeklyInASecondProcessSkipsAChatTheBotIsPosting() async throws {
        let harness = try await fakes()
        let gate = await harness.lastFM.hold(user: "slowpoke")
        let directory = try await folder(tracking: ["alice", "slowpoke"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let settings = environment(harness, weeklyDue.merging(["THROWBACK_CHAT_ID": "\(group)"]) { _, new in new })
        let bot = try Executable.start(["run"], in: directory, environment: settings)
        // The bot holds the chat's claim while it waits for slowpoke's week.
        try await harness.lastFM.waitForCall(user: "slowpoke")
        let other = try await Executable.start(["post-weekly"], in: directory, environment: settings).result()
        #expect(other.status == 0, "\(other.stderr)")
        #expect(other.stdout.contains("chat \(group): another process is posting there right now; skipped"), "\(other.stdout)")

        await gate.open()
        try await harness.telegram.waitForDeliveries(2)
        bot.terminate()
        #expect(await bot.result().status == 0)
        let delivered = await harness.telegram.delivered
        #expect(delivered.map(\.method) == ["sendPhoto", "sendMessage"])
        #expect(await harness.telegram.calls("sendPhoto").count == 1)
        #expect(await harness.telegram.calls("sendMessage").count == 1)
        await harness.stop()
    }
}
