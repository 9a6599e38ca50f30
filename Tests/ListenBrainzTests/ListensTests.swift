import Clocks
import Foundation
import ListenBrainz
import Networking
import Synchronization
import Testing
import TestSupport
import TestLogging
import WeeklyCharts

private let mbid = "8c1fd6e4-4c8f-4a8f-9a3e-1d2b3c4d5e6f"

@Suite struct ListensDecodingTests {
    @Test func listensWithAndWithoutAMappingAndTheSpan() throws {
        let json = #"""
        {"payload": {"count": 4, "user_id": "Bob", "latest_listen_ts": 1700000300, "oldest_listen_ts": 1500000000, "listens": [
          {"listened_at": 1700000300, "track_metadata": {"artist_name": "Low", "release_name": "HEY WHAT",
            "mbid_mapping": {"release_mbid": "\#(mbid)", "caa_id": 31337, "caa_release_mbid": "\#(mbid)"}}},
          {"listened_at": 1700000200, "track_metadata": {"artist_name": "Burial", "release_name": "Untrue"}},
          {"listened_at": "soon", "track_metadata": {"artist_name": "Bad", "release_name": "Time"}},
          {"listened_at": 99999999999999, "track_metadata": {"artist_name": "Far", "release_name": "Future"}},
          {"listened_at": 1700000100, "track_metadata": {"release_name": "No Artist"}},
          7,
          {"listened_at": 1700000000, "track_metadata": {"artist_name": "Single", "additional_info": {"release_mbid": "\#(mbid)"}}}
        ]}}
        """#
        let page = try ListensPage.decode(Data(json.utf8))
        #expect(page.user == "Bob")
        #expect(page.oldestListenTimestamp == 1_500_000_000)
        #expect(page.latestListenTimestamp == 1_700_000_300)
        #expect(page.listens == [
            Listen(listenedAt: 1_700_000_300, artist: "Low", release: "HEY WHAT", releaseMBID: mbid, coverArtID: 31337, coverArtReleaseMBID: mbid),
            Listen(listenedAt: 1_700_000_200, artist: "Burial", release: "Untrue"),
            Listen(listenedAt: 1_700_000_000, artist: "Single", release: nil, releaseMBID: mbid),
        ])
    }

    @Test func theStoredSpellingIsTheListensUserNameNotTheEchoedUserID() throws {
        let json = #"""
        {"payload": {"count": 1, "user_id": "lbcarol", "latest_listen_ts": 1700000000, "oldest_listen_ts": 1500000000, "listens": [
          {"listened_at": 1700000000, "user_name": "LbCarol", "recording_msid": "5e1f0000-0000-4000-8000-000000000001",
           "track_metadata": {"artist_name": "Low", "release_name": "HEY WHAT"}}
        ]}}
        """#
        let page = try ListensPage.decode(Data(json.utf8))
        #expect(page.user == "LbCarol")
        #expect(page.listens.first?.recordingMSID == "5e1f0000-0000-4000-8000-000000000001")
        #expect(page.spelling(of: "LBCAROL") == "LbCarol")
        // A name that is not the asked one in another case is no spelling of it.
        #expect(page.spelling(of: "someone") == "someone")
        let empty = try ListensPage.decode(Data(#"{"payload": {"count": 0, "user_id": "lbcarol", "listens": []}}"#.utf8))
        #expect(empty.user == "lbcarol")
    }

    @Test(arguments: ["", "null", "[]", #"{"payload": 3}"#, #"{"error": "x"}"#])
    func notAPageIsAnError(json: String) {
        #expect(throws: (any Error).self) { try ListensPage.decode(Data(json.utf8)) }
    }

    @Test func aUserWithoutListensHasNoWeeks() throws {
        let page = try ListensPage.decode(Data(#"{"payload": {"count": 0, "user_id": "new", "listens": [], "oldest_listen_ts": 0, "latest_listen_ts": 0}}"#.utf8))
        #expect(page.listens.isEmpty)
        #expect(ListeningSpan(user: "new", oldest: page.oldestListenTimestamp, latest: page.latestListenTimestamp).weeks(until: Date()).isEmpty)
    }

    @Test func weeksAreLastFMsWeeksFromTheFirstListenToNow() {
        let start = LastFMWeek.start(of: Date(timeIntervalSince1970: 1_700_000_000))
        let span = ListeningSpan(user: "bob", oldest: Int(start.timeIntervalSince1970) + 10, latest: Int(start.timeIntervalSince1970) + 3 * 604_800 + 5)
        let weeks = span.weeks(until: Date(timeIntervalSince1970: 2_000_000_000))
        #expect(weeks.count == 4)
        #expect(weeks.first?.from == start)
        #expect(weeks.allSatisfy { $0.to.timeIntervalSince($0.from) == LastFMWeek.length })
        // A last listen in the future counts as now.
        #expect(span.weeks(until: start.addingTimeInterval(100)).count == 1)
    }

    @Test func coversComeFromTheCoverArtArchiveByRelease() {
        let root = URL(string: "https://caa.example/")!
        #expect(CoverArtArchive.cover(of: Listen(listenedAt: 1, artist: "a", release: "r", releaseMBID: mbid, coverArtID: 42, coverArtReleaseMBID: mbid), root: root)?
            .absoluteString == "https://caa.example/release/\(mbid)/42-500.jpg")
        #expect(CoverArtArchive.cover(of: Listen(listenedAt: 1, artist: "a", release: "r", releaseMBID: mbid), root: URL(string: "https://caa.example")!)?
            .absoluteString == "https://caa.example/release/\(mbid)/front-500")
        #expect(CoverArtArchive.cover(of: Listen(listenedAt: 1, artist: "a", release: "r", releaseMBID: "../../evil"), root: root) == nil)
        #expect(CoverArtArchive.cover(of: Listen(listenedAt: 1, artist: "a", release: "r"), root: root) == nil)
    }
}

@Suite(.capturingLogs) struct ListenBrainzClientTests {
    @Test func unknownUsers429sAndTheRateLimitHeaders() async throws {
        let fake = FakeListenBrainz()
        let url = try await fake.start()
        await fake.addUser("Bob", listens: [.init(at: 1_700_000_000, artist: "Low", release: "HEY WHAT")])
        await fake.setRemaining(0)
        let client = HTTPListenBrainzClient(transport: CurlTransport(), baseURL: url)
        let page = try await client.listens(ListensRequest(user: "bob", count: 5000))
        #expect(page.user == "Bob")
        #expect(page.rateLimit == ListenBrainzRateLimit(remaining: 0, resetIn: 7))
        #expect(await fake.calls.last?.count == 1000)
        await #expect(throws: ListeningError("ListenBrainz", .userNotFound("nobody"))) { try await client.listens(ListensRequest(user: "nobody")) }
        await fake.rateLimit(resetIn: 9)
        await #expect(throws: ListeningError("ListenBrainz", .rateLimited(retryAfter: .seconds(9)))) { try await client.listens(ListensRequest(user: "bob")) }
        // A name that is no path segment stays one.
        await #expect(throws: ListeningError("ListenBrainz", .userNotFound("a/b?c"))) { try await client.listens(ListensRequest(user: "a/b?c")) }
        #expect(await fake.badRequests == 0)
        await fake.stop()
    }

    @Test func anEmptyBudgetHoldsTheNextRequestUntilTheReset() async throws {
        let clock = TestClock()
        let stub = Stub(page: ListensPage(user: "bob", listens: [], oldestListenTimestamp: nil, latestListenTimestamp: nil,
                                          rateLimit: ListenBrainzRateLimit(remaining: 0, resetIn: 5)))
        let client = stub.rateLimited(requests: 100, per: .seconds(10), clock: clock)
        _ = try await client.listens(ListensRequest(user: "bob"))
        let second = Task { try await client.listens(ListensRequest(user: "bob")) }
        await clock.waitForSleeper()
        await clock.advance(by: .seconds(4))
        #expect(stub.count == 1)
        await clock.advance(by: .seconds(1))
        _ = try await second.value
        #expect(stub.count == 2)
    }

    @Test func a429IsRetriedAfterItsResetAndAWildResetIsClamped() async throws {
        let clock = TestClock()
        let fake = FakeListenBrainz()
        let url = try await fake.start()
        await fake.addUser("bob", listens: [])
        await fake.rateLimit(resetIn: 1_000_000_000)
        let client = HTTPListenBrainzClient(transport: CurlTransport(), baseURL: url)
            .retrying(RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(1), jitter: 0), api: "listenbrainz", clock: clock)
        let task = Task { try await client.listens(ListensRequest(user: "bob")) }
        await clock.waitForSleeper()
        await clock.advance(by: .seconds(119))
        #expect(await fake.calls.count == 1)
        await clock.advance(by: .seconds(1))
        _ = try await task.value
        #expect(await fake.calls.count == 2)
        await fake.stop()
    }
}

/// A ListenBrainz that answers `page`, counting requests.
private final class Stub: ListenBrainzClient {
    private let requests = Mutex(0)
    private let page: ListensPage

    init(page: ListensPage) {
        self.page = page
    }

    var count: Int { requests.withLock { $0 } }

    func listens(_ request: ListensRequest) async throws -> ListensPage {
        requests.withLock { $0 += 1 }
        return page
    }
}
