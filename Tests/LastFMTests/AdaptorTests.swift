import Clocks
import Foundation
import LastFM
import Networking
import Testing
import TestSupport
import TestLogging
import WeeklyCharts

private let chartList = #"{"weeklychartlist":{"chart":[{"from":"100","to":"200"}]}}"#

@Suite(.capturingLogs) struct RetryAdaptorTests {
    @Test func retriesTemporaryErrorsThenSucceeds() async throws {
        let transport = ScriptedTransport([
            .respond(status: 200, body: #"{"error":16,"message":"try again"}"#),
            .respond(status: 503, body: "Service Unavailable"),
            .respond(status: 200, body: chartList),
        ])
        let lastFM = HTTPLastFMClient(transport: transport, apiKey: "k").retrying(api: "lastfm", clock: ImmediateClock())
        #expect(try await lastFM.weeklyChartList(user: "rj").count == 1)
        #expect(transport.requests.count == 3)
    }

    @Test func givesUpAfterMaxAttempts() async {
        let transport = ScriptedTransport([], fallback: .respond(status: 200, body: #"{"error":8,"message":"failed"}"#))
        let lastFM = HTTPLastFMClient(transport: transport, apiKey: "k")
            .retrying(RetryPolicy(maxAttempts: 3), api: "lastfm", clock: ImmediateClock())
        await #expect(throws: ListeningError.self) { try await lastFM.weeklyChartList(user: "rj") }
        #expect(transport.requests.count == 3)
    }

    @Test(arguments: [
        #"{"error":6,"message":"User not found"}"#, #"{"error":10,"message":"Invalid API key"}"#,
    ])
    func doesNotRetryPermanentErrors(body: String) async {
        let transport = ScriptedTransport([], fallback: .respond(status: 200, body: body))
        let lastFM = HTTPLastFMClient(transport: transport, apiKey: "k").retrying(api: "lastfm", clock: ImmediateClock())
        await #expect(throws: ListeningError.self) { try await lastFM.weeklyChartList(user: "rj") }
        #expect(transport.requests.count == 1)
    }

    @Test func waitsOnTheClockBetweenAttempts() async throws {
        let clock = TestClock()
        let transport = ScriptedTransport([.respond(status: 200, body: #"{"error":29,"message":"slow down"}"#), .respond(status: 200, body: chartList)])
        let policy = RetryPolicy(maxAttempts: 2, initialDelay: .seconds(10), jitter: 0)
        let lastFM = HTTPLastFMClient(transport: transport, apiKey: "k").retrying(policy, api: "lastfm", clock: clock)
        let call = Task { try await lastFM.weeklyChartList(user: "rj") }
        #expect(await clock.waitForSleeper())
        await clock.advance(by: .seconds(9))
        #expect(transport.requests.count == 1)
        await clock.advance(by: .seconds(1))
        #expect(try await call.value.count == 1)
        #expect(transport.requests.count == 2)
    }
}

@Suite(.capturingLogs) struct RateLimitAdaptorTests {
    @Test func holdsCallsBeyondTheRate() async throws {
        let clock = TestClock()
        let transport = ScriptedTransport([], fallback: .respond(status: 200, body: chartList))
        let lastFM = HTTPLastFMClient(transport: transport, apiKey: "k").rateLimited(requests: 5, per: .seconds(1), clock: clock)
        for _ in 0..<5 { _ = try await lastFM.weeklyChartList(user: "rj") }
        // Five in any second: the sixth goes a second after the first.
        let sixth = Task { try await lastFM.weeklyChartList(user: "rj") }
        #expect(await clock.waitForSleeper())
        await clock.advance(by: .milliseconds(900))
        #expect(transport.requests.count == 5)
        await clock.advance(by: .milliseconds(100))
        _ = try await sixth.value
        #expect(transport.requests.count == 6)
    }
}

@Suite(.capturingLogs) struct CacheAdaptorTests {
    private final class Now: Sendable {
        let date: Date
        init(_ date: Date) { self.date = date }
    }

    @Test func pastWeeksAreCachedForever() async throws {
        let transport = ScriptedTransport([], fallback: .respond(status: 200, body: #"{"weeklyalbumchart":{"album":[]}}"#))
        let store = InMemoryLastFMCache()
        let week = WeeklyChartRange(fromUnix: 100, toUnix: 200)
        let later = HTTPLastFMClient(transport: transport, apiKey: "k").cached(in: store) { Date(timeIntervalSince1970: 10_000_000) }
        _ = try await later.weeklyAlbumChart(user: "RJ", range: week)
        _ = try await later.weeklyAlbumChart(user: "rj", range: week)
        #expect(transport.requests.count == 1)
        let muchLater = HTTPLastFMClient(transport: transport, apiKey: "k").cached(in: store) { Date(timeIntervalSince1970: 900_000_000) }
        _ = try await muchLater.weeklyAlbumChart(user: "rj", range: week)
        #expect(transport.requests.count == 1)
    }

    @Test func cacheKeysIgnoreCaseInAnyScriptAndKeepTheirStoredForm() {
        let key = { (artist: String, album: String) in LastFMCall<AlbumInfo>.albumInfo(artist: artist, album: album).cacheKey }
        #expect(key("Radiohead", "OK Computer") == "album.getinfo|artist=radiohead|album=ok computer")
        #expect(key("RADIOHEAD", "ok computer") == key("Radiohead", "OK Computer"))
        #expect(key("Björk", "Homogenic") == key("BJÖRK", "homogenic"))
        #expect(key("Björk", "Homogenic") == "album.getinfo|artist=björk|album=homogenic")
        #expect(key("Radiohead", "OK Computer") != key("Radiohead", "Kid A"))
    }

    /// The key's separators inside a name are escaped: an artist `x|album=y` is not the
    /// artist `x` with an album `y|album=z`, so neither gets the other's cover.
    @Test func namesContainingTheKeysSeparatorsGetTheirOwnCovers() async throws {
        let transport = ScriptedTransport([
            .respond(status: 200, body: ##"{"album":{"name":"z","artist":"x|album=y","image":[{"#text":"https://i/first.png","size":"extralarge"}]}}"##),
            .respond(status: 200, body: ##"{"album":{"name":"y|album=z","artist":"x","image":[{"#text":"https://i/second.png","size":"extralarge"}]}}"##),
        ])
        let lastFM = HTTPLastFMClient(transport: transport, apiKey: "k").cached()
        #expect(try await lastFM.albumInfo(artist: "x|album=y", album: "z").coverURL == URL(string: "https://i/first.png"))
        #expect(try await lastFM.albumInfo(artist: "x", album: "y|album=z").coverURL == URL(string: "https://i/second.png"))
        #expect(transport.requests.count == 2)
        let key = { (artist: String, album: String) in LastFMCall<AlbumInfo>.albumInfo(artist: artist, album: album).cacheKey }
        #expect(key("X|Album=Y", "100%") == "album.getinfo|artist=x%7Calbum%3Dy|album=100%25")
        #expect(key("Björk|=", "Z%") == "album.getinfo|artist=björk%7C%3D|album=z%25")
    }

    @Test func theChartListIsReusedUntilTheNextWeekBoundary() async throws {
        let transport = ScriptedTransport([], fallback: .respond(status: 200, body: chartList))
        let store = InMemoryLastFMCache()
        let monday = Date(timeIntervalSince1970: 1_700_438_400) // Mon 20 Nov 2023 00:00 UTC
        let saturday = monday.addingTimeInterval(5 * 86_400)
        let nextMonday = monday.addingTimeInterval(7 * 86_400)
        for now in [monday, saturday, nextMonday] {
            let lastFM = HTTPLastFMClient(transport: transport, apiKey: "k").cached(in: store) { now }
            _ = try await lastFM.weeklyChartList(user: "rj")
        }
        #expect(transport.requests.count == 2)
    }

    @Test func errorsAreNotCached() async throws {
        let transport = ScriptedTransport([.respond(status: 200, body: #"{"error":16,"message":"x"}"#), .respond(status: 200, body: chartList)])
        let lastFM = HTTPLastFMClient(transport: transport, apiKey: "k").cached()
        _ = try? await lastFM.weeklyChartList(user: "rj")
        #expect(try await lastFM.weeklyChartList(user: "rj").count == 1)
    }

    @Test func weekBoundariesAreSundayNoonUTC() {
        let tuesday = Date(timeIntervalSince1970: 1_700_524_800) // Tue 21 Nov 2023 00:00 UTC
        #expect(LastFMWeek.start(of: tuesday) == Date(timeIntervalSince1970: 1_700_395_200)) // Sun 19 Nov 12:00
        #expect(LastFMWeek.nextBoundary(after: tuesday) == Date(timeIntervalSince1970: 1_701_000_000)) // Sun 26 Nov 12:00
        let boundary = Date(timeIntervalSince1970: 1_700_395_200)
        #expect(LastFMWeek.start(of: boundary) == boundary)
    }
}
