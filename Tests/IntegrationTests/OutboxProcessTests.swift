import Foundation
import Testing
import TestSupport
import Throwback
import TestLogging

/// The outbox across real processes: `vinylogue-bot run` and `post-weekly` on one database.
@Suite(.capturingLogs, .timeLimit(.minutes(2)), .serialized) struct OutboxProcessTests {
    let group: Int64 = -9800

    /// A folder for the bot's database, with `users` tracked in the group.
    private func folder(tracking users: [String]) async throws -> URL {
        let directory = try Executable.temporaryDirectory()
        _ = try await BotStore(path: directory.appendingPathComponent("vinylogue.sqlite").path).addToRoster(users, chat: group, limit: 50)
        return directory
    }

    /// The group's weekly post is due whenever this runs: every week from Sunday 12:01 UTC,
    /// just after the Last.fm week starts.
    private func environment(telegram: URL, _ harness: BotHarness) -> [String: String] {
        Executable.botEnvironment(telegram, harness.lastFMURL, token: harness.telegram.token, key: BotHarness.lastFMKey, level: "notice")
            .merging(["THROWBACK_CHAT_ID": "\(group)", "THROWBACK_SCHEDULE": "sun 12:01"]) { _, new in new }
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
