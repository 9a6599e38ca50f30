import Foundation
import LastFM
import Networking
import Testing
import TestSupport
import TestLogging
import WeeklyCharts

/// Feeds recorded-style Last.fm answers through the real client.
private func client(_ steps: [ScriptedTransport.Step]) -> (HTTPLastFMClient, ScriptedTransport) {
    let transport = ScriptedTransport(steps)
    return (HTTPLastFMClient(transport: transport, baseURL: URL(string: "http://fake/2.0/")!, apiKey: "k"), transport)
}

private let week = WeeklyChartRange(fromUnix: 1_700_395_200, toUnix: 1_701_000_000)

@Suite(.capturingLogs) struct DecodingTests {
    @Test func numbersAsStringsTextNodesAndRankAttributes() async throws {
        let (lastFM, _) = client([.respond(status: 200, body: """
        {"weeklyalbumchart":{"album":[
          {"artist":{"mbid":"","#text":"Sigur Rós"},"name":"Ágætis byrjun","playcount":"12","@attr":{"rank":"1"},"url":"https://www.last.fm/music/x"},
          {"artist":{"#text":"Björk"},"name":"Homogenic","playcount":7,"@attr":{"rank":2}}
        ],"@attr":{"user":"RJ","from":"1700395200","to":"1701000000"}}}
        """)])
        let chart = try await lastFM.weeklyAlbumChart(user: "rj", range: week)
        #expect(chart.user == "RJ")
        #expect(chart.albums == [
            ChartAlbum(artist: "Sigur Rós", name: "Ágætis byrjun", playCount: 12, rank: 1, url: URL(string: "https://www.last.fm/music/x")),
            ChartAlbum(artist: "Björk", name: "Homogenic", playCount: 7, rank: 2),
        ])
    }

    @Test func aSingleAlbumArrivesAsABareObject() async throws {
        let (lastFM, _) = client([.respond(status: 200, body: """
        {"weeklyalbumchart":{"album":{"artist":{"#text":"Low"},"name":"Things We Lost in the Fire","playcount":"3","@attr":{"rank":"1"}},
         "@attr":{"user":"rj","from":"1700395200","to":"1701000000"}}}
        """)])
        let chart = try await lastFM.weeklyAlbumChart(user: "rj", range: week)
        #expect(chart.albums.map(\.name) == ["Things We Lost in the Fire"])
        #expect(chart.albums.first?.playCount == 3)
    }

    @Test(arguments: [
        #"{"weeklyalbumchart":{"@attr":{"user":"rj","from":"1","to":"2"}}}"#,
        #"{"weeklyalbumchart":{"album":[],"@attr":{"user":"rj"}}}"#,
        #"{"weeklyalbumchart":{"album":"","@attr":{"user":"rj"}}}"#,
        #"{"weeklyalbumchart":""}"#,
    ])
    func anEmptyWeekInEveryShape(body: String) async throws {
        let (lastFM, _) = client([.respond(status: 200, body: body)])
        let chart = try await lastFM.weeklyAlbumChart(user: "rj", range: week)
        #expect(chart.albums.isEmpty)
    }

    @Test func chartListSortsAndSkipsBrokenRanges() async throws {
        let (lastFM, _) = client([.respond(status: 200, body: """
        {"weeklychartlist":{"chart":[{"#text":"","from":"300","to":"400"},{"#text":"","from":"100","to":"200"},{"from":"x","to":"1"}],"@attr":{"user":"rj"}}}
        """)])
        let ranges = try await lastFM.weeklyChartList(user: "rj")
        #expect(ranges == [WeeklyChartRange(fromUnix: 100, toUnix: 200), WeeklyChartRange(fromUnix: 300, toUnix: 400)])
    }

    @Test func aChartListWithOneRangeOrNone() async throws {
        let (lastFM, _) = client([
            .respond(status: 200, body: ##"{"weeklychartlist":{"chart":{"#text":"","from":"100","to":"200"},"@attr":{"user":"rj"}}}"##),
            .respond(status: 200, body: #"{"weeklychartlist":{"@attr":{"user":"rj"}}}"#),
            .respond(status: 200, body: #"{"weeklychartlist":""}"#),
        ])
        #expect(try await lastFM.weeklyChartList(user: "rj").count == 1)
        #expect(try await lastFM.weeklyChartList(user: "rj").isEmpty)
        #expect(try await lastFM.weeklyChartList(user: "rj").isEmpty)
    }

    @Test func userInfoGivesTheCanonicalSpelling() async throws {
        let (lastFM, transport) = client([.respond(status: 200, body: """
        {"user":{"name":"RJ","realname":"Richard Jones","playcount":"150316","registered":{"unixtime":"1037793040","#text":1037793040}}}
        """)])
        let user = try await lastFM.userInfo("rj")
        #expect(user == LastFMUser(name: "RJ", realName: "Richard Jones", playCount: 150_316, registered: Date(timeIntervalSince1970: 1_037_793_040)))
        let query = transport.requests.first?.url.query ?? ""
        #expect(query.contains("method=user.getinfo"))
        #expect(query.contains("user=rj"))
        #expect(query.contains("format=json"))
    }

    @Test func libreFMsRecentTracksAndProfileDate() async throws {
        // As GNU FM writes them: page 1 starts with the track playing now, dated now; no images.
        let (libreFM, _) = client([
            .respond(status: 200, body: """
            {"recenttracks":{"track":[
              {"artist":{"#text":"Can","mbid":""},"name":"Vitamin C","mbid":"","album":{"#text":"Ege Bamyasi","mbid":""},"url":"",
               "date":{"#text":"15 Jun 2025 12:00 GMT","uts":"1749988800"},"streamable":"","@attr":{"nowplaying":"true"}},
              {"artist":{"#text":"Can","mbid":""},"name":"Mushroom","mbid":"","album":{"#text":"Tago Mago","mbid":""},"url":"",
               "date":{"#text":"19 Nov 2023 12:00 GMT","uts":"1700395200"},"streamable":""}
            ],"@attr":{"user":"Carol","page":"1","perPage":"200","totalPages":"37"}}}
            """),
            .respond(status: 200, body: ##"{"recenttracks":{"track":{"artist":{"#text":"Can","mbid":""},"album":{"#text":"Tago Mago","mbid":""},"date":{"#text":"","uts":"1700395201"}},"@attr":{"totalPages":"2"}}}"##),
            .respond(status: 200, body: #"{"user":{"name":"Carol","playcount":"3","profile_created":"Sun Mar  4 09:05:01 2012","image":[]}}"#),
            .respond(status: 200, body: #"{"user":{"name":"Carol","profile_created":"So 4 Mär 2012 09:05:01 CET"}}"#),
        ])
        let page = try await libreFM.send(.recentTracks(user: "carol", range: week, page: 1))
        #expect(page.tracks == [
            RecentTrack(artist: "Can", album: "Ege Bamyasi", playedAt: nil),
            RecentTrack(artist: "Can", album: "Tago Mago", playedAt: Date(timeIntervalSince1970: 1_700_395_200)),
        ])
        #expect(page.totalPages == 37)
        #expect(try await libreFM.send(.recentTracks(user: "carol", range: nil, page: 2)).tracks.map(\.album) == ["Tago Mago"])
        #expect(try await libreFM.userInfo("carol").registered == Date(timeIntervalSince1970: 1_330_851_901))
        #expect(try await libreFM.userInfo("carol").registered == nil)
    }

    @Test func aRangeOfRecentTracksIsAskedWithBothBoundsExclusive() {
        let call = LastFMCall<RecentTracksPage>.recentTracks(user: "carol", range: week, page: 2)
        #expect(call.parameters.map { "\($0.name)=\($0.value)" } == ["user=carol", "from=1700395199", "to=1701000000", "page=2", "limit=200"])
        #expect(LastFMCall<RecentTracksPage>.recentTracks(user: "carol", range: nil, page: 9, limit: 1).parameters.map(\.name) == ["user", "page", "limit"])
    }

    @Test func friendsPagesAndAlbumCovers() async throws {
        let (lastFM, _) = client([
            .respond(status: 200, body: #"{"friends":{"user":[{"name":"eartle","realname":""},{"name":"Russ"}],"@attr":{"page":"1","totalPages":"2"}}}"#),
            .respond(status: 200, body: #"{"friends":{"user":{"name":"lobsterclaw"},"@attr":{"page":"2","totalPages":"2"}}}"#),
            .respond(status: 200, body: """
            {"album":{"name":"Believe","artist":"Cher","image":[{"#text":"https://i/s.png","size":"small"},{"#text":"https://i/xl.png","size":"extralarge"},{"#text":"","size":"mega"}]}}
            """),
        ])
        let friends = try await lastFM.allFriends(user: "rj")
        #expect(friends.map(\.name) == ["eartle", "Russ", "lobsterclaw"])
        #expect(friends.first?.realName == nil)
        let info = try await lastFM.albumInfo(artist: "Cher", album: "Believe")
        #expect(info.coverURL == URL(string: "https://i/xl.png"))
    }

    @Test func absurdNumbersNeitherCrashNorCount() async throws {
        let (lastFM, _) = client([
            .respond(status: 200, body: ##"{"weeklychartlist":{"chart":[{"from":"100","to":"9223372036854775807"},{"from":"-5","to":"7"},{"from":"100","to":"200"}]}}"##),
            .respond(status: 200, body: ##"{"weeklyalbumchart":{"album":[{"artist":{"#text":"A"},"name":"B","playcount":1e19,"@attr":{"rank":"-9223372036854775808"}}]}}"##),
        ])
        #expect(try await lastFM.weeklyChartList(user: "rj") == [WeeklyChartRange(fromUnix: 100, toUnix: 200)])
        let chart = try await lastFM.weeklyAlbumChart(user: "rj", range: week)
        #expect(chart.albums.first?.playCount == 0)
    }

    @Test func specialCharactersInParametersAreEncoded() async throws {
        let (lastFM, transport) = client([.respond(status: 200, body: #"{"album":{"name":"A+B","artist":"C&D"}}"#)])
        _ = try await lastFM.albumInfo(artist: "C&D", album: "A+B")
        let query = transport.requests.first?.url.query ?? ""
        #expect(query.contains("artist=C%26D"))
        #expect(query.contains("album=A%2BB"))
    }
}

@Suite(.capturingLogs) struct ErrorMappingTests {
    @Test(arguments: [
        (200, #"{"error":6,"message":"User not found"}"#, ListeningError("Last.fm", .userNotFound("ghost"))),
        (404, #"{"error":"6","message":"User not found"}"#, ListeningError("Last.fm", .userNotFound("ghost"))),
        (403, #"{"error":10,"message":"Invalid API key"}"#, ListeningError("Last.fm", .credentialsRefused)),
        (200, #"{"error":26,"message":"Suspended API key"}"#, ListeningError("Last.fm", .credentialsRefused)),
        (429, #"{"error":29,"message":"Rate limit exceeded"}"#, ListeningError("Last.fm", .rateLimited(retryAfter: nil))),
        (200, #"{"error":16,"message":"Temporary"}"#, ListeningError("Last.fm", .temporarilyUnavailable("error 16: Temporary"))),
        (503, #"{"error":11,"message":"Offline"}"#, ListeningError("Last.fm", .temporarilyUnavailable("error 11: Offline"))),
        (502, "<html><body>Bad Gateway</body></html>", ListeningError("Last.fm", .temporarilyUnavailable("HTTP 502"))),
        (404, "Not Found", ListeningError("Last.fm", .rejected(code: 404, message: "HTTP 404"))),
        // GNU FM (Libre.fm): an error element, its code a string, and report_failure's number.
        (200, ##"{"error":{"#text":"Invalid resource specified","code":"7"}}"##, ListeningError("Last.fm", .rejected(code: 7, message: "Invalid resource specified"))),
        (200, #"{"error":3,"message":"Invalid Method - No method with that name in this package"}"#,
         ListeningError("Last.fm", .rejected(code: 3, message: "Invalid Method - No method with that name in this package"))),
    ])
    func errorsAreTyped(status: Int, body: String, expected: ListeningError) async {
        let (lastFM, _) = client([.respond(status: status, body: body)])
        await #expect(throws: expected) { try await lastFM.weeklyChartList(user: "ghost") }
    }

    @Test func garbageWithStatus200IsUndecodable() async {
        let (lastFM, _) = client([.respond(status: 200, body: "<!doctype html>oops")])
        await #expect {
            try await lastFM.weeklyChartList(user: "rj")
        } throws: { error in
            guard case .undecodable = (error as? ListeningError)?.reason else { return false }
            return true
        }
    }

    @Test func transportFailuresAreTyped() async {
        let (lastFM, _) = client([.fail("connection refused")])
        await #expect(throws: ListeningError("Last.fm", .transport("connection refused"))) { try await lastFM.weeklyChartList(user: "rj") }
    }

    @Test func everyErrorHasAUserMessage() {
        let reasons: [ListeningError.Reason] = [
            .userNotFound("x"), .privateProfile("x"), .credentialsRefused, .rateLimited(retryAfter: nil), .temporarilyUnavailable("t"),
            .rejected(code: 1, message: ""), .transport("t"), .undecodable("u"),
        ]
        let errors = reasons.map { ListeningError("Last.fm", $0) }
        for error in errors { #expect(!error.userMessage.isEmpty) }
        #expect(ListeningError("Last.fm", .userNotFound("ghost")).userMessage.contains("ghost"))
    }

    @Test func theKeyIsRedactedFromErrorsShownToUsers() async {
        let transport = ScriptedTransport([.respond(status: 400, body: #"{"error":2,"message":"bad request for api_key=secret-key-123"}"#)])
        let lastFM = HTTPLastFMClient(transport: transport, apiKey: "secret-key-123")
        do {
            _ = try await lastFM.weeklyChartList(user: "rj")
            Issue.record("no error")
        } catch let error as ListeningError {
            #expect(!error.userMessage.contains("secret-key-123"))
            #expect(error.userMessage.contains("<redacted>"))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func theKeyIsNeverLogged() async {
        let logs = LogCapture()
        let transport = ScriptedTransport([
            .fail("could not connect to host"),
            .respond(status: 200, body: #"{"error":10,"message":"Invalid API key"}"#),
        ])
        let lastFM = HTTPLastFMClient(transport: transport, apiKey: "secret-key-123", logger: logs.logger())
        _ = try? await lastFM.weeklyChartList(user: "rj")
        _ = try? await lastFM.weeklyChartList(user: "rj")
        #expect(transport.requests.count == 2)
        #expect(transport.requests[0].url.absoluteString.contains("secret-key-123"))
        #expect(!logs.allLines.isEmpty)
        #expect(!logs.text.contains("secret-key-123"))
    }

    @Test func aLibreFMClientNamesLibreFMInItsLogLines() async {
        let logs = LogCapture()
        let transport = ScriptedTransport([
            .fail("could not connect to host"),
            .respond(status: 503, body: "down"),
        ])
        let libreFM = HTTPLastFMClient(transport: transport, apiKey: "k", service: "Libre.fm", logger: logs.logger())
        _ = try? await libreFM.weeklyChartList(user: "carol")
        _ = try? await libreFM.weeklyChartList(user: "carol")
        #expect(logs.allLines.contains { $0.contains("Libre.fm request") })
        #expect(logs.allLines.contains { $0.contains("Libre.fm unreachable") })
        #expect(logs.allLines.contains { $0.contains("Libre.fm error") })
        #expect(!logs.text.contains("Last.fm"))
    }
}
