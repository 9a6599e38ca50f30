import Clocks
import Foundation
import Networking
import Telegram
import Testing
import TestSupport
import TestLogging

private func updates(_ ids: ClosedRange<Int>) -> String {
    let items = ids.map { #"{"update_id":\#($0),"message":{"message_id":\#($0),"chat":{"id":1,"type":"private"},"text":"hi"}}"# }
    return #"{"ok":true,"result":[\#(items.joined(separator: ","))]}"#
}

private func offsets(_ transport: ScriptedTransport) -> [Int?] {
    transport.requests.map { request in
        let body = try? JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: Any]
        return body?["offset"] as? Int
    }
}

@Suite(.capturingLogs) struct LongPollerTests {
    @Test func offsetsFollowTheLastUpdate() async throws {
        let (client, transport) = telegram([
            .respond(status: 200, body: updates(1...2)), .respond(status: 200, body: #"{"ok":true,"result":[]}"#),
            .respond(status: 200, body: updates(3...3)),
        ])
        var iterator = LongPoller(client: client, clock: ImmediateClock()).makeAsyncIterator()
        var seen: [Int64] = []
        for _ in 0..<3 { seen.append(try await iterator.next()?.updateID ?? -1) }
        #expect(seen == [1, 2, 3])
        #expect(offsets(transport) == [nil, 3, 3])
    }

    @Test func renumberedUpdatesAreYieldedAndTheOffsetFollowsThemDown() async throws {
        let (client, transport) = telegram([
            .respond(status: 200, body: updates(900...901)), .respond(status: 200, body: updates(3...4)),
            .respond(status: 200, body: updates(5...5)),
        ])
        var iterator = LongPoller(client: client, clock: ImmediateClock()).makeAsyncIterator()
        var seen: [Int64] = []
        for _ in 0..<5 { seen.append(try await iterator.next()?.updateID ?? -1) }
        #expect(seen == [900, 901, 3, 4, 5])
        #expect(offsets(transport) == [nil, 902, 5])
    }

    @Test func theLargestUpdateIDDoesNotOverflow() async throws {
        let (client, transport) = telegram([
            .respond(status: 200, body: #"{"ok":true,"result":[{"update_id":9223372036854775807}]}"#),
            .respond(status: 200, body: updates(1...1)),
        ])
        var iterator = LongPoller(client: client, clock: ImmediateClock()).makeAsyncIterator()
        #expect(try await iterator.next()?.updateID == .max)
        #expect(try await iterator.next()?.updateID == 1)
        #expect(offsets(transport).last == Int(Int64.max))
    }

    @Test func aHugeRetryAfterIsClampedToAnHourAndLogged() async throws {
        let clock = TestClock()
        let logs = LogCapture()
        let (client, transport) = telegram([
            .respond(status: 429, body: #"{"ok":false,"error_code":429,"description":"x","parameters":{"retry_after":9223372036854775807000}}"#),
            .respond(status: 200, body: updates(1...1)),
        ], logs: logs)
        let poller = LongPoller(client: client, clock: clock)
        let first = Task {
            var iterator = poller.makeAsyncIterator()
            return try await iterator.next()?.updateID
        }
        #expect(await clock.waitForSleeper())
        await clock.advance(by: .seconds(3599))
        #expect(transport.requests.count == 1)
        await clock.advance(by: .seconds(1))
        #expect(try await first.value == 1)
        #expect(logs.text.contains("longer than an hour"))
    }

    @Test func unauthorizedEndsTheSequenceWithAnError() async {
        let (client, _) = telegram([.respond(status: 401, body: #"{"ok":false,"error_code":401,"description":"Unauthorized"}"#)])
        await #expect(throws: TelegramError.unauthorized) {
            for try await _ in LongPoller(client: client, clock: ImmediateClock()) {}
        }
    }

    @Test func notFoundEndsTheSequenceNamingTheStatus() async {
        let logs = LogCapture()
        let (client, _) = telegram([.respond(status: 404, body: #"{"ok":false,"error_code":404,"description":"Not Found"}"#)])
        await #expect(throws: TelegramError.notFound) {
            for try await _ in LongPoller(client: client, clock: ImmediateClock(), logger: logs.logger()) {}
        }
        #expect(logs.text.contains("404 Not Found"))
        #expect(!logs.text.contains("401"))
    }

    @Test func conflictIsLoggedAndRetriedSlowly() async throws {
        let clock = TestClock()
        let logs = LogCapture()
        let (client, transport) = telegram([
            .respond(status: 409, body: #"{"ok":false,"error_code":409,"description":"Conflict: terminated by other getUpdates request"}"#),
            .respond(status: 200, body: updates(1...1)),
        ])
        let poller = LongPoller(client: client, configuration: .init(conflictDelay: .seconds(30)), clock: clock, logger: logs.logger())
        let first = Task {
            var iterator = poller.makeAsyncIterator()
            return try await iterator.next()?.updateID
        }
        #expect(await clock.waitForSleeper())
        await clock.advance(by: .seconds(29))
        #expect(transport.requests.count == 1)
        await clock.advance(by: .seconds(1))
        #expect(try await first.value == 1)
        #expect(logs.text.contains("Another process is polling with this bot token"))
    }

    @Test func waitsRetryAfterAndBacksOffOnFailures() async throws {
        let clock = TestClock()
        let (client, transport) = telegram([
            .respond(status: 429, body: #"{"ok":false,"error_code":429,"description":"x","parameters":{"retry_after":4}}"#),
            .fail("connection lost"),
            .respond(status: 200, body: updates(1...1)),
        ])
        let backoff = RetryPolicy(maxAttempts: .max, initialDelay: .seconds(2), maxDelay: .seconds(60), jitter: 0)
        let poller = LongPoller(client: client, configuration: .init(backoff: backoff), clock: clock)
        let first = Task {
            var iterator = poller.makeAsyncIterator()
            return try await iterator.next()?.updateID
        }
        #expect(await clock.waitForSleeper())
        await clock.advance(by: .seconds(4))
        #expect(await clock.waitForSleeper())
        #expect(transport.requests.count == 2)
        // The second failure in a row, after a 429 that counts as one: twice the first backoff.
        await clock.advance(by: .seconds(3))
        #expect(transport.requests.count == 2)
        await clock.advance(by: .seconds(1))
        #expect(try await first.value == 1)
    }

    @Test func batchesAreHandedOverBeforeTheyAreConfirmed() async throws {
        let (client, transport) = telegram([.respond(status: 200, body: updates(5...6)), .respond(status: 200, body: updates(7...7))])
        let batches = BatchLog()
        let poller = LongPoller(client: client, clock: ImmediateClock(), onBatch: { batch, _ in
            await batches.add(batch.map(\.update.updateID))
            return batch.map(\.update)
        })
        var iterator = poller.makeAsyncIterator()
        _ = try await iterator.next()
        #expect(await batches.entries == [[5, 6]])
        #expect(transport.requests.count == 1)
        _ = try await iterator.next()
        _ = try await iterator.next()
        #expect(await batches.entries == [[5, 6], [7]])
    }

    @Test func aBatchThatCannotBeStoredIsPolledAgainUnconfirmed() async throws {
        let (client, transport) = telegram([.respond(status: 200, body: updates(5...6)), .respond(status: 200, body: updates(5...6))])
        let failures = BatchLog()
        let poller = LongPoller(client: client, clock: ImmediateClock(), onBatch: { batch, _ in
            await failures.add(batch.map(\.update.updateID))
            if await failures.entries.count == 1 { throw StorageDown() }
            return batch.map(\.update)
        })
        var iterator = poller.makeAsyncIterator()
        #expect(try await iterator.next()?.updateID == 5)
        #expect(await failures.entries == [[5, 6], [5, 6]])
        #expect(offsets(transport) == [nil, nil])
    }

    @Test func cancellationEndsTheSequence() async throws {
        let (client, _) = telegram([], logs: LogCapture())
        let poller = LongPoller(client: client, clock: ImmediateClock())
        let task = Task {
            var count = 0
            for try await _ in poller { count += 1 }
            return count
        }
        task.cancel()
        #expect(try await task.value == 0)
    }
}

struct StorageDown: Error {}

actor BatchLog {
    var entries: [[Int64]] = []
    func add(_ ids: [Int64]) { entries.append(ids) }
}
