import Clocks
import Foundation
import Networking
import Telegram
import Testing
import TestSupport
import TestLogging

private let sent = #"{"ok":true,"result":{"message_id":9,"chat":{"id":1,"type":"private"}}}"#
private let flood = #"{"ok":false,"error_code":429,"description":"Too Many Requests","parameters":{"retry_after":3}}"#

@Suite(.capturingLogs) struct RetryAdaptorTests {
    @Test func waitsRetryAfterThenSendsOnce() async throws {
        let clock = TestClock()
        let (client, transport) = telegram([.respond(status: 429, body: flood), .respond(status: 200, body: sent)])
        let retrying = client.retrying(api: "telegram", clock: clock)
        let send = Task { try await retrying.sendMessage(chatID: 1, html: "x") }
        #expect(await clock.waitForSleeper())
        await clock.advance(by: .seconds(2))
        #expect(transport.requests.count == 1)
        await clock.advance(by: .seconds(1))
        #expect(try await send.value.messageID == 9)
        #expect(transport.requests.count == 2)
    }

    @Test(arguments: [
        #"{"ok":false,"error_code":400,"description":"Bad Request"}"#,
        #"{"ok":false,"error_code":401,"description":"Unauthorized"}"#,
        #"{"ok":false,"error_code":403,"description":"Forbidden"}"#,
    ])
    func neverRetriesClientErrors(body: String) async {
        let (client, transport) = telegram([.respond(status: 400, body: body), .respond(status: 200, body: sent)])
        await #expect(throws: TelegramError.self) { try await client.retrying(api: "telegram", clock: ImmediateClock()).sendMessage(chatID: 1, html: "x") }
        #expect(transport.requests.count == 1)
    }

    @Test func retriesServerErrorsWithBackoff() async throws {
        let (client, transport) = telegram([
            .respond(status: 502, body: "<html/>"), .respond(status: 500, body: "{}"), .respond(status: 200, body: sent),
        ])
        _ = try await client.retrying(api: "telegram", clock: ImmediateClock()).sendMessage(chatID: 1, html: "x")
        #expect(transport.requests.count == 3)
    }

    @Test func aMessageThatMayHaveArrivedIsNotSentTwice() async {
        let (client, transport) = telegram([.fail("request timed out"), .respond(status: 200, body: sent)])
        await #expect(throws: TelegramError.self) { try await client.retrying(api: "telegram", clock: ImmediateClock()).sendMessage(chatID: 1, html: "x") }
        #expect(transport.requests.count == 1)
    }

    /// Made twice, an edit changes nothing more: one whose outcome is unknown goes again.
    @Test func anEditThatMayHaveArrivedGoesAgain() async throws {
        let (client, transport) = telegram([.fail("request timed out"), .respond(status: 200, body: #"{"ok":true,"result":true}"#)])
        try await client.retrying(api: "telegram", clock: ImmediateClock()).editMessageText(chatID: 1, messageID: 9, html: "x")
        #expect(transport.requests.count == 2)
    }

    @Test func readOnlyCallsAreRetriedAfterTimeouts() async throws {
        let (client, transport) = telegram([
            .fail("request timed out"),
            .respond(status: 200, body: #"{"ok":true,"result":{"id":1,"is_bot":true,"first_name":"B","username":"B"}}"#),
        ])
        #expect(try await client.retrying(api: "telegram", clock: ImmediateClock()).getMe().username == "B")
        #expect(transport.requests.count == 2)
    }
}

@Suite(.capturingLogs) struct MigrationAdaptorTests {
    @Test func resendsToTheNewChatAndReportsIt() async throws {
        let (client, transport) = telegram([
            .respond(status: 400, body: #"{"ok":false,"error_code":400,"description":"upgraded","parameters":{"migrate_to_chat_id":-100777}}"#),
            .respond(status: 200, body: sent),
        ])
        let migrations = MigrationLog()
        _ = try await client.followingMigrations { await migrations.add($0, $1) }.sendMessage(chatID: -5, html: "x")
        #expect(await migrations.entries == [Pair(from: -5, to: -100_777)])
        let second = try JSONSerialization.jsonObject(with: transport.requests[1].body ?? Data()) as? [String: Any]
        #expect(second?["chat_id"] as? Int == -100_777)
    }
}

struct Pair: Equatable, Sendable {
    var from: Int64
    var to: Int64
}

actor MigrationLog {
    var entries: [Pair] = []
    func add(_ from: Int64, _ to: Int64) { entries.append(Pair(from: from, to: to)) }
}

/// Flood limits are reserved, not polled: each message is given the first moment that keeps
/// its chat's limits and the overall one.
@Suite(.capturingLogs) struct FloodLimiterTests {
    /// Sends to `chat` at the first moment allowed from `now` on; returns that moment.
    private func send(_ limiter: FloodLimiter, _ chat: Int64, at now: Duration = .zero) -> Duration {
        let at = max(limiter.earliest(in: chat, now: now), limiter.earliestOverall(now: now))
        limiter.commit(in: chat, now: at)
        return at
    }

    @Test func oneMessagePerSecondPerChatAndOtherChatsAreNotHeld() {
        let limiter = FloodLimiter()
        #expect(send(limiter, 1) == .zero)
        #expect(send(limiter, 1) == .seconds(1))
        #expect(send(limiter, 1) == .seconds(2))
        #expect(send(limiter, 2) == .zero)
    }

    @Test func supergroupsGetTenAMinuteAndBasicGroupsTwenty() {
        let limiter = FloodLimiter()
        let margin = FloodLimits().margin
        var last = Duration.zero
        for _ in 0..<10 { last = send(limiter, -1_001_234_567_890, at: last) }
        // The first of the ten went at 0 s: the eleventh may go a minute later, plus the margin.
        #expect(send(limiter, -1_001_234_567_890, at: last) == .seconds(60) + margin)
        last = .zero
        for _ in 0..<20 { last = send(limiter, -5, at: last) }
        #expect(send(limiter, -5, at: last) == .seconds(60) + margin)
    }

    /// Telegram counts a message when it arrives: a slow upload pushes the chat's next slot.
    @Test func theNextSlotCountsFromWhenTheLastMessageArrived() {
        let limiter = FloodLimiter()
        #expect(send(limiter, 1) == .zero)
        limiter.arrived(in: 1, now: .milliseconds(700))
        #expect(limiter.earliest(in: 1, now: .milliseconds(700)) == .milliseconds(1700))
    }

    @Test func thirtyASecondOverall() {
        let limiter = FloodLimiter()
        for chat in 0..<30 { #expect(send(limiter, Int64(chat)) == .zero) }
        #expect(limiter.earliestOverall(now: .zero) == .seconds(1) + FloodLimits().margin)
    }

    /// Moments are reserved before the write that marks the messages as sending: a group held
    /// up by that write counts from when it left, so the next group cannot arrive on its heels
    /// as the 31st of a second.
    @Test func aGroupThatLeftLateCountsFromWhenItLeft() {
        let limiter = FloodLimiter()
        for chat in 0..<20 { #expect(send(limiter, Int64(chat)) == .zero) }
        for chat in 20..<30 { #expect(send(limiter, Int64(chat), at: .milliseconds(500)) == .milliseconds(500)) }
        limiter.departed(count: 10, now: .milliseconds(800))
        // The first twenty still count from 0 s; the ten from 0.8 s.
        #expect(limiter.earliestOverall(now: .zero) == .seconds(1) + FloodLimits().margin)
        #expect(limiter.earliestOverall(now: .zero, count: 21) == .milliseconds(1800) + FloodLimits().margin)
        // Never earlier than reserved.
        limiter.departed(count: 30, now: .milliseconds(100))
        #expect(limiter.earliestOverall(now: .zero, count: 30) == .milliseconds(1800) + FloodLimits().margin)
    }
}
