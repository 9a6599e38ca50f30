import Clocks
import Foundation
import GRDB
import Logging
import Networking
import Operations
import Prometheus
import ServiceLifecycle
import Synchronization
import Telegram
import Testing
import TestSupport
import Throwback
import TestLogging

/// Prometheus text, read into `name{label="value",…}` → value, labels sorted by name.
private func parsePrometheus(_ text: String) throws -> [String: Double] {
    var samples: [String: Double] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.isEmpty {
        guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
            throw PrometheusFormatError(line: String(line))
        }
        let series = line[..<space]
        guard let brace = series.firstIndex(of: "{") else {
            samples[String(series)] = value
            continue
        }
        guard series.hasSuffix("}") else { throw PrometheusFormatError(line: String(line)) }
        let labels = series[series.index(after: brace)..<series.index(before: series.endIndex)]
            .split(separator: ",").map(String.init).sorted()
        samples[String(series[..<brace]) + "{" + labels.joined(separator: ",") + "}"] = value
    }
    return samples
}

private struct PrometheusFormatError: Error {
    var line: String
}

/// The operations server of a test bot, and the port it listens on.
private struct Operations {
    let server: OperationsServer
    let port: AsyncStream<Int>

    init(health: BotHealth, registry: PrometheusCollectorRegistry) {
        let (port, sink) = AsyncStream<Int>.makeStream()
        self.port = port
        server = OperationsServer(host: "127.0.0.1", port: 0, health: health, registry: registry, logger: Logger(label: "http")) { bound in
            sink.yield(bound)
            sink.finish()
        }
    }

    func url(_ path: String) async -> URL {
        var ports = port.makeAsyncIterator()
        return URL(string: "http://127.0.0.1:\(await ports.next() ?? 0)/\(path)")!
    }
}

@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct OperationsTests {
    @Test func healthzTurns503WhenPollingStopsSucceedingOrTheDatabaseTakesNoWrites() async throws {
        let harness = try await BotHarness.start()
        let clock = TestClock()
        let services = try await harness.services(clock: clock)
        let operations = Operations(health: services.health, registry: PrometheusCollectorRegistry())
        let running = RunningBot(services: [services.bot, operations.server])
        let healthz = await operations.url("healthz")
        let get = { try await harness.transport.send(HTTPRequest(url: healthz)) }

        // Before the first answer from Telegram the bot is not healthy yet.
        #expect(try await get().status == 503)
        await harness.telegram.pushMessage("/help", chatID: -1)
        try await harness.telegram.waitForCalls("sendMessage")
        #expect(try await get().status == 200)

        // Telegram starts failing: within two poll timeouts and a margin, /healthz says so.
        await harness.telegram.beginOutage(of: "getUpdates", .raw(status: 502, body: "Bad Gateway"))
        await harness.telegram.pushMessage("/help", chatID: -2)
        try await harness.telegram.waitForCalls("sendMessage", count: 2)
        await clock.advance(by: .seconds(2 * 50 + 30))
        #expect(try await get().status == 200)
        await clock.advance(by: .seconds(1))
        let stale = try await get()
        #expect(stale.status == 503)
        #expect(String(decoding: stale.body, as: UTF8.self).contains("no successful poll"))

        // Telegram is back; the database is locked by another process: still unhealthy, and why.
        await harness.telegram.endOutage(of: "getUpdates")
        await harness.telegram.pushMessage("/help", chatID: -3)
        while try await get().status != 200 {
            await clock.waitForSleeper(limit: .seconds(1))
            await clock.advance(by: .seconds(60))
        }
        // Another process holds the database's write lock (on a thread of its own, as it would).
        let other = try DatabaseQueue(path: harness.databasePath)
        let release = DispatchSemaphore(value: 0)
        await withCheckedContinuation { (locked: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                try? other.inTransaction(.exclusive) { _ in
                    locked.resume()
                    release.wait()
                    return .rollback
                }
            }
        }
        let locked = try await get()
        release.signal()
        #expect(locked.status == 503)
        #expect(String(decoding: locked.body, as: UTF8.self).contains("database"))
        try await running.shutDown(advancing: clock)
        await harness.stop()
    }

    /// Every successful poll counts for `/healthz`, but a busy bot, which polls many times a
    /// second, writes the stamp `healthcheck` reads at most once per `stampInterval`.
    @Test func successfulPollsAreStampedInTheDatabaseAtMostOncePerInterval() async throws {
        let store = try BotStore.inMemory()
        let clock = TestClock()
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        let now = { @Sendable in start.addingTimeInterval(TestClock<Duration>.Instant().duration(to: clock.now).seconds) }
        let health = BotHealth(store: store, pollTimeout: 50, clock: clock, now: now)
        #expect(try await store.lastPoll() == nil)
        await health.pollSucceeded()
        #expect(try await store.lastPoll() == start)
        await clock.advance(by: BotHealth.stampInterval - .seconds(1))
        await health.pollSucceeded()
        #expect(try await store.lastPoll() == start)
        await clock.advance(by: .seconds(1))
        await health.pollSucceeded()
        #expect(try await store.lastPoll() == start.addingTimeInterval(15))
        #expect(await BotHealth.checkStamped(in: store, pollTimeout: 50, now: now().addingTimeInterval(145)).isHealthy)
        #expect(await !BotHealth.checkStamped(in: store, pollTimeout: 50, now: now().addingTimeInterval(146)).isHealthy)
    }

    @Test func metricsExposeTheCountersOfAScriptedSession() async throws {
        let harness = try await BotHarness.start()
        let admin: Int64 = 100
        await harness.telegram.inject(.error(code: 429, description: "Too Many Requests: retry after 1", retryAfter: 1), method: "sendMessage")
        await harness.telegram.pushMessage("/track bob", chatID: -3, userID: 5)
        await harness.telegram.pushMessage("/tb alice 3", chatID: -3, userID: 5)
        // In one chat, so that they run in turn and the later two find alice's chart list in memory.
        await harness.telegram.pushMessage("/tb alice 3", chatID: -3, userID: 6)
        await harness.telegram.pushMessage("/tb alice", chatID: -3, userID: 6)
        await harness.telegram.pushMessage("/track bob", chatID: -5, userID: admin)
        await harness.telegram.pushMessage("/postnow", chatID: -5, userID: admin)
        let samples = try await scrapeMetrics(harness, admins: [admin]) { try await harness.telegram.waitForCalls("sendMessage", count: 7) }
        #expect(samples["vinylogue_updates_received_total"] == 6)
        #expect(samples[#"vinylogue_commands_total{command="track",guard="AdminGuard",outcome="refused"}"#] == 1)
        #expect(samples[#"vinylogue_commands_total{command="track",guard="",outcome="ran"}"#] == 1)
        #expect(samples[#"vinylogue_commands_total{command="throwback",guard="",outcome="ran"}"#] == 3)
        #expect(samples[#"vinylogue_commands_total{command="postnow",guard="",outcome="ran"}"#] == 1)
        #expect(samples[#"vinylogue_telegram_requests_total{method="sendMessage",result="flood_wait"}"#] == 1)
        #expect(samples[#"vinylogue_telegram_requests_total{method="sendMessage",result="ok"}"#] == 6)
        #expect(samples[#"vinylogue_telegram_requests_total{method="getUpdates",result="ok"}"#] ?? 0 >= 1)
        #expect(samples[#"vinylogue_retries_total{api="telegram"}"#] == 1)
        #expect(samples[#"vinylogue_lastfm_requests_total{method="user.getweeklychartlist",result="ok"}"#] == 2)
        #expect(samples[#"vinylogue_lastfm_requests_total{method="user.getinfo",result="ok"}"#] == 1)
        #expect(samples[#"vinylogue_lastfm_cache_total{result="memory"}"#] ?? 0 >= 2)
        #expect(samples[#"vinylogue_lastfm_cache_total{result="miss"}"#] ?? 0 >= 2)
        #expect(samples["vinylogue_lastfm_circuit_open"] == 0)
        #expect(samples[#"vinylogue_weekly_posts_total{outcome="posted"}"#] == 1)
        #expect(samples["vinylogue_poll_lag_seconds"] != nil)
        await harness.stop()
    }

    @Test func metricsCountCoversFetchedCacheHitsCollagesAndUploadsSaved() async throws {
        let harness = try await BotHarness.start()
        await harness.lastFM.setDefaultCover(.generated)
        let admin: Int64 = 100
        // One chat, so that they run in turn: a cold collage, the same one again by file_id,
        // then another filter's collage from the disk cache (two of alice's albums have 2+ plays).
        await harness.telegram.pushMessage("/tb alice 3", chatID: -3, userID: 5)
        await harness.telegram.pushMessage("/tb alice 3", chatID: -3, userID: 6)
        await harness.telegram.pushMessage("/filter 2", chatID: -3, userID: admin)
        await harness.telegram.pushMessage("/tb alice 3", chatID: -3, userID: 5)
        let samples = try await scrapeMetrics(harness, admins: [admin]) { try await harness.telegram.waitForCalls("sendPhoto", count: 3) }
        #expect(samples[#"vinylogue_covers_fetched_total{result="ok"}"#] == 3)
        #expect(samples["vinylogue_cover_cache_hits_total"] == 2)
        #expect(samples["vinylogue_collages_rendered_total"] == 2)
        #expect(samples["vinylogue_collage_uploads_saved_total"] == 1)
        #expect(samples[#"vinylogue_telegram_requests_total{method="sendPhoto",result="ok"}"#] == 3)
        #expect(await harness.telegram.uploadedPhotos.count == 2)
        await harness.stop()
    }

    /// Runs the bot with `/metrics` served until `done` returns, stops the bot (so that it
    /// takes in the last answers, and the scrape sees the whole session), then scrapes.
    private func scrapeMetrics(_ harness: BotHarness, admins: [Int64], until done: () async throws -> Void) async throws -> [String: Double] {
        let registry = PrometheusCollectorRegistry()
        let services = try await harness.services(clock: ImmediateClock(), admins: admins, metrics: BotMetrics(prometheus: registry))
        let operations = Operations(health: services.health, registry: registry)
        let server = RunningBot(services: [operations.server])
        let bot = RunningBot(services: [services.bot])
        let url = await operations.url("metrics")
        try await done()
        // The fake has the calls; the bot may still be reading their answers, which the
        // immediate clock's shutdown grace would cut off before they are counted.
        await services.outbox.idle()
        try await bot.shutDown()
        let response = try await harness.transport.send(HTTPRequest(url: url))
        try await server.shutDown()
        #expect(response.status == 200)
        return try parsePrometheus(String(decoding: response.body, as: UTF8.self))
    }
}

private extension Result {
    var isHealthy: Bool {
        if case .success = self { true } else { false }
    }
}
