import Clocks
import Foundation
import LastFM
import Networking
import Testing
import TestSupport
import Throwback
import TestLogging
import WeeklyCharts

/// The real HTTP client, with its adaptors, against a Last.fm fake on 127.0.0.1.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct LastFMClientIntegrationTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000) // Nov 2026
    /// The Last.fm week that holds "now − 3 years".
    static let target = LastFMWeek.start(of: WeekFinder.date(yearsBefore: now, years: 3))

    /// A fake with user `alice`: four years of weekly ranges ending last week.
    private func makeFake() async throws -> (FakeLastFM, URL) {
        let fake = FakeLastFM()
        let end = Int(LastFMWeek.start(of: Self.now).timeIntervalSince1970)
        let ranges = (1...(52 * 4)).reversed().map { (from: end - $0 * 604_800, to: end - ($0 - 1) * 604_800) }
        await fake.addUser("Alice", ranges: ranges)
        let from = Int(Self.target.timeIntervalSince1970)
        await fake.setAlbumChart(user: "alice", from: from, to: from + 604_800, albums: [
            ("Radiohead", "In Rainbows", 12), ("Simon & Garfunkel", "Bookends", 3), ("Low", "Secret Name", 1),
        ])
        return (fake, try await fake.start())
    }

    private func chain(_ url: URL, logger: LogCapture = LogCapture()) -> any LastFMClient {
        HTTPLastFMClient(transport: CurlTransport(), baseURL: url, apiKey: "test-key", logger: logger.logger())
            .rateLimited(requests: 5, per: .seconds(1))
            .retrying(RetryPolicy(maxAttempts: 4), api: "lastfm", clock: ImmediateClock())
            .cached(in: InMemoryLastFMCache(), now: { Self.now })
    }

    @Test func aColdThrowbackCostsTwoRequestsAndAWarmOneNone() async throws {
        let (fake, url) = try await makeFake()
        defer { Task { await fake.stop() } }
        let engine = ThrowbackEngine(lastFM: chain(url), now: { Self.now })

        let first = try await engine.throwback(user: "alice", yearsAgo: 3)
        #expect(await fake.count() == 2)
        #expect(await fake.count("user.getweeklychartlist") == 1)
        #expect(await fake.count("user.getweeklyalbumchart") == 1)
        guard case .chart(let summary) = first else { Issue.record("\(first)"); return }
        #expect(summary.user == "Alice")
        #expect(summary.albums.map(\.name) == ["In Rainbows", "Bookends", "Secret Name"])

        let second = try await engine.throwback(user: "alice", yearsAgo: 3)
        #expect(await fake.count() == 2)
        #expect(second == first)
    }

    @Test func error16IsRetriedThenSucceeds() async throws {
        let (fake, url) = try await makeFake()
        defer { Task { await fake.stop() } }
        await fake.inject(.lastFMError(16), times: 2)
        let ranges = try await chain(url).weeklyChartList(user: "alice")
        #expect(ranges.count == 52 * 4)
        #expect(await fake.count("user.getweeklychartlist") == 3)
    }

    @Test func error6IsNotRetried() async throws {
        let (fake, url) = try await makeFake()
        defer { Task { await fake.stop() } }
        await #expect(throws: ListeningError("Last.fm", .userNotFound("nobody_here"))) {
            try await chain(url).weeklyChartList(user: "nobody_here")
        }
        #expect(await fake.count() == 1)
    }

    @Test func aOneAlbumWeekDecodes() async throws {
        let (fake, url) = try await makeFake()
        defer { Task { await fake.stop() } }
        let from = Int(Self.target.timeIntervalSince1970)
        await fake.setAlbumChart(user: "alice", from: from, json: """
        {"weeklyalbumchart":{"album":{"artist":{"mbid":"","#text":"Low"},"name":"Things We Lost in the Fire","mbid":"",
         "playcount":"7","@attr":{"rank":"1"}},"@attr":{"user":"Alice","from":"\(from)","to":"\(from + 604_800)"}}}
        """)
        let engine = ThrowbackEngine(lastFM: chain(url), now: { Self.now })
        let outcome = try await engine.throwback(user: "alice", yearsAgo: 3)
        guard case .chart(let summary) = outcome else { Issue.record("\(outcome)"); return }
        #expect(summary.albums == [ChartAlbum(artist: "Low", name: "Things We Lost in the Fire", playCount: 7, rank: 1)])
        #expect(ChartFormatter.plain.format(outcome).contains("1. Low – Things We Lost in the Fire (7 plays)"))
    }

    @Test func garbageOnA502IsATypedErrorAfterRetries() async throws {
        let (fake, url) = try await makeFake()
        defer { Task { await fake.stop() } }
        await fake.inject(.raw(status: 502, body: "<html><h1>502 Bad Gateway</h1>\u{0}\u{7}"), times: 10)
        await #expect(throws: ListeningError("Last.fm", .temporarilyUnavailable("HTTP 502"))) {
            try await chain(url).weeklyChartList(user: "alice")
        }
        #expect(await fake.count() == 4)
        let reply = await ThrowbackCommand(engine: ThrowbackEngine(lastFM: chain(url), now: { Self.now }), store: try .inMemory(), guards: [])
            .throwback(user: "alice", yearsAgo: 3, minimumPlayCount: 1)
        #expect(reply == .text("Last.fm is having trouble, try again in a minute."))
    }

    @Test func theKeyNeverReachesTheLogs() async throws {
        let (fake, url) = try await makeFake()
        defer { Task { await fake.stop() } }
        await fake.inject(.lastFMError(16), times: 1)
        await fake.inject(.raw(status: 500, body: "oops"), times: 1)
        let logs = LogCapture()
        _ = try await chain(url, logger: logs).weeklyChartList(user: "alice")
        #expect(logs.allLines.count >= 2)
        #expect(!logs.text.contains("test-key"))
        #expect(await fake.calls.allSatisfy { $0.query["api_key"] == "test-key" })
    }
}
