import Clocks
import Foundation
import Networking
import Telegram
import Testing
import TestSupport
import Throwback
import TestLogging

/// What an operator reads at `LOG_LEVEL=info`: a line per command, and what start-up does.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct OperatorLogTests {
    let group: Int64 = -6001
    let admin: Int64 = 100
    let member: Int64 = 200

    /// The metadata of the info lines about handled commands, one dictionary per line.
    private func commandLines(_ logs: LogCapture) -> [[String: String]] {
        logs.allLines.filter { $0.hasPrefix("info bot: command handled ") }.map { line in
            Dictionary(line.dropFirst("info bot: command handled ".count).split(separator: " ").map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }) { first, _ in first }
        }
    }

    @Test func eachCommandIsOneInfoLineWithItsChatOutcomeAndKindButNoArguments() async throws {
        let harness = try await BotHarness.start()
        await harness.telegram.pushMessage("/throwback alice 3", chatID: group, userID: member, messageID: 11)
        await harness.telegram.pushMessage("/track bob", chatID: group, userID: member)
        await harness.telegram.pushMessage("/tb alice banana", chatID: group, userID: member)
        await harness.telegram.pushMessage("nice weather today", chatID: group, userID: member)
        await harness.telegram.pushCallback(data: "old-button", chatID: group, messageID: 11)
        let bot = RunningBot(try await harness.bot(clock: ImmediateClock(), admins: [admin]))
        try await harness.telegram.waitForCalls("sendMessage", count: 3)
        try await harness.telegram.waitForCalls("answerCallbackQuery")
        try await bot.shutDown()

        let lines = commandLines(harness.logs)
        #expect(lines.map { $0["command"] } == ["throwback", "track", "throwback", "throwback"])
        #expect(lines.map { $0["outcome"] } == ["answered", "refused", "usage", "expired"])
        #expect(lines.map { $0["kind"] } == ["message", "message", "message", "callback_query"])
        #expect(lines[1]["guard"] == "AdminGuard")
        #expect(lines.allSatisfy { $0["chat"] == "\(group)" && Int($0["ms"] ?? "") != nil && $0["update"] != nil })
        let text = harness.logs.allLines.filter { $0.hasPrefix("info bot: command handled ") }.joined(separator: "\n")
        for typed in ["alice", "bob", "banana", "old-button", "weather", harness.telegram.token, BotHarness.lastFMKey] {
            #expect(!text.contains(typed))
        }
        await harness.stop()
    }

    @Test func theLineSaysHowLongTheAnswerTookFromItsTurnToItsReplyQueued() async throws {
        let harness = try await BotHarness.start()
        let clock = TestClock()
        let gate = await harness.lastFM.hold(user: "slowpoke")
        await harness.telegram.pushMessage("/tb slowpoke 3", chatID: group)
        let bot = RunningBot(try await harness.bot(clock: clock))
        try await harness.lastFM.waitForCall(user: "slowpoke")
        await clock.advance(by: .milliseconds(2500))
        await gate.open()
        try await harness.telegram.waitForDeliveries(1)
        try await bot.shutDown()

        let lines = commandLines(harness.logs)
        #expect(lines.count == 1)
        #expect(lines.first?["ms"] == "2500")
        #expect(lines.first?["outcome"] == "answered")
        await harness.stop()
    }

    /// A SIGTERM while Telegram is unreachable ends the start-up retries at once, and says so.
    @Test func aShutdownDuringStartUpRetriesSaysItIsStoppingAndTheRunEnds() async throws {
        let harness = try await BotHarness.start()
        let refusing = try RefusingPort()
        let clock = TestClock()
        let bot = RunningBot(try await harness.services(clock: clock, telegramURL: refusing.baseURL).bot)
        // Start-up failed and waits to retry; the clock never moves, so only shutdown ends the wait.
        #expect(await clock.waitForSleeper())
        try await bot.shutDown()

        let lines = harness.logs.allLines
        #expect(lines.filter { $0.contains("Telegram start-up failed; retrying") }.count == 1)
        let stopping = lines.filter { $0.contains("stopping") }
        #expect(stopping.count == 1)
        #expect(stopping.first?.hasPrefix("notice bot: ") == true)
        await harness.stop()
    }
}
