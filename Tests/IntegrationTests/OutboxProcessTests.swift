import Foundation
import Testing
import TestSupport
import Throwback
import TestLogging
import WeeklyCharts

/// The outbox across real processes: `vinylogue-bot run` and `post-weekly` on one database.
@Suite(.capturingLogs, .timeLimit(.minutes(2)), .serialized) struct OutboxProcessTests {
    let group: Int64 = -9800
    /// A supergroup: Telegram lets it take fewer messages a minute than a small group.
    let supergroup: Int64 = -1_009_800_000_001

    /// A folder for the bot's database, with `users` tracked in `chat`.
    private func folder(tracking users: [String], in chat: Int64? = nil) async throws -> URL {
        let directory = try Executable.temporaryDirectory()
        _ = try await BotStore(path: directory.appendingPathComponent("vinylogue.sqlite").path).addToRoster(users, chat: chat ?? group, limit: 50)
        return directory
    }

    /// `chat`'s weekly post is due whenever this runs: every week from Sunday 12:01 UTC, just
    /// after the Last.fm week starts.
    private func environment(
        telegram: URL, _ harness: BotHarness, chat: Int64? = nil, level: String = "notice", _ extra: [String: String] = [:]
    ) -> [String: String] {
        Executable.botEnvironment(telegram, harness.lastFMURL, token: harness.telegram.token, key: BotHarness.lastFMKey, level: level)
            .merging(["THROWBACK_CHAT_ID": "\(chat ?? group)", "THROWBACK_SCHEDULE": "sun 12:01"].merging(extra) { _, new in new }) { _, new in new }
    }

    /// Nine users, each with five albums of long names in the weeks a weekly post shows: three
    /// fill a text, so with covers, their post is a collage and three texts.
    private func nineLongWeeks(_ harness: BotHarness) async -> [String] {
        let end = Int(LastFMWeek.start(of: Date()).timeIntervalSince1970)
        let ranges = (1...(52 * 2)).reversed().map { (from: end - $0 * 604_800, to: end - ($0 - 1) * 604_800) }
        let due = PostingTime(schedule: WeeklySchedule("sun 12:01")!, zone: .gmt).previous(atOrBefore: Date())
        let users = (1...9).map { "listener\($0)" }
        await harness.lastFM.setDefaultCover(.generated)
        for user in users {
            await harness.lastFM.addUser(user, ranges: ranges)
            for week in Set([Date(), due].map { WeeklyPostComposer.week(at: $0).fromUnix }) {
                await harness.lastFM.setAlbumChart(user: user, from: week, to: week + 604_800, albums: (1...5).map { album in
                    (String(repeating: "Artist \(album) of \(user) ", count: 6), String(repeating: "Album \(album) ", count: 14), 20 - album)
                })
            }
        }
        return users
    }

    /// What came first while `post-weekly` held its first message.
    private enum First { case botLeftTheChat, anotherPost }

    /// `post-weekly` beside the running bot: the bot leaves the chat `post-weekly` is sending
    /// to alone, so the post arrives in order, once, within the flood limits; and once
    /// `post-weekly` is killed mid-post, the bot sends the rest when its lease has run out.
    @Test func theBotLeavesAChatToPostWeeklyUntilItDiesAndThenSendsTheRestOnce() async throws {
        let harness = try await BotHarness.start()
        let users = await nineLongWeeks(harness)
        let directory = try await folder(tracking: users, in: supergroup)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Telegram takes its time with the collage, the post's first message.
        let slowTelegram = Gate()
        await harness.telegram.inject(.held(slowTelegram), method: "sendPhoto", chat: supergroup)
        let lease = ["OUTBOX_LEASE": "3s"]
        let posting = try Executable.start(["post-weekly"], in: directory, environment: environment(
            telegram: harness.telegramURL, harness, chat: supergroup, lease
        ))
        try await harness.telegram.waitForCalls("sendPhoto")

        let bot = try Executable.start(["run"], in: directory, environment: environment(
            telegram: harness.telegramURL, harness, chat: supergroup, level: "debug", lease
        ))
        // The bot finds the rest of the post in the outbox, and leaves it to post-weekly.
        let first = await withTaskGroup(of: First?.self) { race in
            race.addTask { await bot.waitForLog("messages wait while another process sends to their chat") ? .botLeftTheChat : nil }
            race.addTask { (try? await harness.telegram.waitForCalls("sendMessage")) == nil ? nil : .anotherPost }
            let first = await race.next() ?? nil
            // A log line that will never come ends only with the process.
            if first != .botLeftTheChat { bot.kill() }
            race.cancelAll()
            return first
        }
        guard first == .botLeftTheChat else {
            Issue.record("the bot sent to a chat post-weekly was sending to")
            posting.kill()
            await slowTelegram.open()
            _ = (await posting.result(), await bot.result())
            await harness.stop()
            return
        }
        await slowTelegram.open()
        // Killed between two messages: the bot sends the rest once post-weekly's lease runs out.
        try await harness.telegram.waitForDeliveries(2)
        posting.kill()
        _ = await posting.result()
        try await harness.telegram.waitForDeliveries(4)
        bot.terminate()
        let stopped = await bot.result()
        #expect(stopped.status == 0, "\(stopped.stderr.suffix(2000))")

        let delivered = await harness.telegram.delivered
        #expect(delivered.map(\.method) == ["sendPhoto", "sendMessage", "sendMessage", "sendMessage"])
        #expect(await harness.telegram.calls("sendPhoto").count == 1)
        #expect(await harness.telegram.calls("sendMessage").count == 3)
        // Every user once, in roster order.
        let text = delivered.compactMap(\.text).joined(separator: "\n")
        let mentions = users.compactMap { text.range(of: "<b>\($0)</b>")?.lowerBound }
        #expect(mentions.count == users.count && mentions == mentions.sorted(), "\(text)")
        #expect(users.allSatisfy { text.components(separatedBy: "<b>\($0)</b>").count == 2 })
        #expect(await harness.telegram.tooManyRequests == 0)
        #expect(await harness.telegram.overlappingPosts == 0)
        await harness.stop()
    }

    @Test func postWeeklyWithTelegramUnreachableStopsAtItsWaitAndLeavesThePostToTheBot() async throws {
        let harness = try await BotHarness.start()
        let directory = try await folder(tracking: ["alice", "bob"])
        defer { try? FileManager.default.removeItem(at: directory) }
        // A Telegram that is gone: its port refuses connections.
        let gone = FakeTelegram(token: harness.telegram.token)
        let goneURL = try await gone.start()
        await gone.stop()

        let started = ContinuousClock.now
        let posting = try await Executable.start(["post-weekly", "--wait", "3s"], in: directory, environment: environment(telegram: goneURL, harness))
            .result()
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(posting.status == 1, "\(posting.stderr)")
        #expect(posting.stdout.contains("chat \(group): sent 0 of 1 message for 2 users within --wait 3s; 1 left in the outbox for the bot to send"),
                "\(posting.stdout)")

        // The bot sends what was left, once.
        let bot = try Executable.start(["run"], in: directory, environment: environment(telegram: harness.telegramURL, harness))
        try await harness.telegram.waitForDeliveries(1)
        bot.terminate()
        #expect(await bot.result().status == 0)
        #expect(await harness.telegram.delivered.map { $0.text?.contains("<b>alice</b>") == true } == [true])
        await harness.stop()
    }
}
