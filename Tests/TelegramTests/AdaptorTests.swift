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
        let retrying = client.retrying(clock: clock)
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
        await #expect(throws: TelegramError.self) { try await client.retrying(clock: ImmediateClock()).sendMessage(chatID: 1, html: "x") }
        #expect(transport.requests.count == 1)
    }

    @Test func retriesServerErrorsWithBackoff() async throws {
        let (client, transport) = telegram([
            .respond(status: 502, body: "<html/>"), .respond(status: 500, body: "{}"), .respond(status: 200, body: sent),
        ])
        _ = try await client.retrying(clock: ImmediateClock()).sendMessage(chatID: 1, html: "x")
        #expect(transport.requests.count == 3)
    }

    @Test func aMessageThatMayHaveArrivedIsNotSentTwice() async {
        let (client, transport) = telegram([.fail("request timed out"), .respond(status: 200, body: sent)])
        await #expect(throws: TelegramError.self) { try await client.retrying(clock: ImmediateClock()).sendMessage(chatID: 1, html: "x") }
        #expect(transport.requests.count == 1)
    }

    @Test func readOnlyCallsAreRetriedAfterTimeouts() async throws {
        let (client, transport) = telegram([
            .fail("request timed out"),
            .respond(status: 200, body: #"{"ok":true,"result":{"id":1,"is_bot":true,"first_name":"B","username":"B"}}"#),
        ])
        #expect(try await client.retrying(clock: ImmediateClock()).getMe().username == "B")
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

@Suite(.capturingLogs) struct ThrottleTests {
    private func throttled(_ clock: TestClock<Duration>) -> (ThrottledTelegramClient, ScriptedTransport) {
        let always = ScriptedTransport([], fallback: .respond(status: 200, body: sent))
        let http = HTTPTelegramClient(transport: always, baseURL: URL(string: "http://fake")!, token: tokenSecret)
        return (http.throttled(clock: clock), always)
    }

    @Test func oneMessagePerSecondPerChat() async throws {
        let clock = TestClock()
        let (client, transport) = throttled(clock)
        try await client.sendMessage(chatID: 1, html: "a")
        let second = Task { try await client.sendMessage(chatID: 1, html: "b") }
        #expect(await clock.waitForSleeper())
        try await client.sendMessage(chatID: 2, html: "other chat is not held")
        #expect(transport.requests.count == 2)
        await clock.advance(by: .seconds(1))
        _ = try await second.value
        #expect(transport.requests.count == 3)
    }

    @Test func supergroupsGetTenAMinute() async throws {
        let clock = TestClock()
        let (client, transport) = throttled(clock)
        for n in 0..<10 {
            try await client.sendMessage(chatID: -1_001_234_567_890, html: "\(n)")
            await clock.advance(by: .seconds(1))
        }
        let eleventh = Task { try await client.sendMessage(chatID: -1_001_234_567_890, html: "11") }
        #expect(await clock.waitForSleeper())
        try await client.sendMessage(chatID: -5, html: "a basic group has its own, larger allowance")
        #expect(transport.requests.count == 11)
        // The first of the ten went at 0 s and it is 10 s now: the eleventh may go at 60 s,
        // plus the margin for arrival jitter.
        await clock.advance(by: .seconds(50))
        #expect(transport.requests.count == 11)
        await clock.advance(by: FloodLimits().margin)
        _ = try await eleventh.value
        #expect(transport.requests.count == 12)
    }

    @Test func pollingIsNotThrottled() async throws {
        let clock = TestClock()
        let (client, transport) = throttled(clock)
        for _ in 0..<5 { _ = try? await client.answerCallbackQuery(id: "q") }
        #expect(transport.requests.count == 5)
    }
}
