import Clocks
import Foundation
import Telegram
import Testing
import TestSupport
import Throwback
import TestLogging

/// The bot removed from a chat and added back, as Telegram tells it with `my_chat_member`.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct MembershipTests {
    let group: Int64 = -6101
    let admin: Int64 = 100

    /// Removed, the bot stops posting in the group (a reply it still owed gets 403); added back,
    /// it answers again, and the weekly post it had there is on again, with the roster kept.
    @Test func aBotRemovedAndAddedBackPostsThereAgainWithItsSettings() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushMessage("/weekly on", chatID: group, userID: admin)
        await harness.telegram.pushMessage("/track alice", chatID: group, userID: admin)
        let services = try await harness.services(clock: ImmediateClock(), admins: [admin])
        let bot = RunningBot(services.bot)
        try await harness.telegram.waitForDeliveries(2)

        // Removed, the bot still owed a reply there, which meets a 403 before Telegram's word
        // of the removal comes in.
        await harness.telegram.setGone(group)
        await harness.telegram.pushMessage("/help", chatID: group)
        try await harness.telegram.waitForCalls("sendMessage", count: 3)
        await services.outbox.idle()
        await harness.telegram.removeBot(from: group)

        await harness.telegram.addBot(to: group)
        await harness.telegram.pushMessage("/weekly", chatID: group, userID: admin)
        await harness.telegram.pushMessage("/tracked", chatID: group)
        try await harness.telegram.waitForDeliveries(4)
        try await bot.shutDown()

        let replies = await harness.telegram.delivered.map { $0.text ?? "" }
        #expect(replies[2].hasPrefix("The weekly throwback post is on"))
        #expect(replies[3] == "Tracked (1): alice")
        let settings = try await BotStore(path: harness.databasePath).settings(for: group)
        #expect(settings.active)
        await harness.stop()
    }

    /// Telegram sends only the kinds of update the bot asks for: the bot must ask for
    /// `my_chat_member`, or it never learns it was removed.
    @Test func theBotAsksForMembershipUpdates() async throws {
        let harness = try await BotHarness.start()
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock()))
        try await harness.telegram.waitForCalls("getUpdates")
        try await bot.shutDown()
        let asked = await harness.telegram.calls("getUpdates").first?.parameters["allowed_updates"] as? [String] ?? []
        #expect(asked.contains("my_chat_member"))
        await harness.stop()
    }
}
