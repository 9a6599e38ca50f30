import Foundation
import LastFM
import Networking
import Testing
import TestSupport
import TestLogging
import WeeklyCharts

/// The quirks of Last.fm's and GNU FM's JSON that no recorded answer in DecodingTests shows:
/// each is read as it always was, now that answers are read from the tape.
@Suite(.capturingLogs) struct LenientReadingTests {
    private let week = WeeklyChartRange(fromUnix: 1_700_395_200, toUnix: 1_701_000_000)

    private func client(_ bodies: [String]) -> HTTPLastFMClient {
        HTTPLastFMClient(
            transport: ScriptedTransport(bodies.map { .respond(status: 200, body: $0) }), baseURL: URL(string: "http://fake/2.0/")!, apiKey: "k"
        )
    }

    @Test func countsWithSpacesOrFractionsAndNamesUnderName() async throws {
        let lastFM = client([##"""
        {"weeklyalbumchart":{"album":[
          {"artist":{"name":"Can"},"name":"Tago Mago","playcount":" 12 ","@attr":{"rank":2.0}},
          {"artist":{"#text":5,"name":"ignored"},"name":{"#text":"Future Days"},"playcount":7.9,"@attr":"1"},
          {"artist":"Neu!","name":{},"playcount":"1e3","url":7}
        ]}}
        """##])
        let chart = try await lastFM.weeklyAlbumChart(user: "rj", range: week)
        #expect(chart.albums == [
            ChartAlbum(artist: "Can", name: "Tago Mago", playCount: 12, rank: 2),
            ChartAlbum(artist: "", name: "Future Days", playCount: 7, rank: 0),
            ChartAlbum(artist: "Neu!", name: "", playCount: 0, rank: 0),
        ])
    }

    @Test func aScrobbleAtTheEndOfTimeIsUndatedRatherThanACrash() async throws {
        let lastFM = client([##"""
        {"recenttracks":{"track":[{"artist":{"#text":"Can"},"album":{"#text":"Tago Mago"},"date":{"uts":"9223372036854775807"}}]}}
        """##])
        let page = try await lastFM.send(.recentTracks(user: "carol", range: nil, page: 1))
        #expect(page.tracks == [RecentTrack(artist: "Can", album: "Tago Mago", playedAt: nil)])
    }

    @Test func anAnswerAfterAByteOrderMarkIsRead() async throws {
        let lastFM = client(["\u{FEFF}" + #"{"weeklychartlist":{"chart":{"from":"100","to":"200"}}}"#])
        #expect(try await lastFM.weeklyChartList(user: "rj") == [WeeklyChartRange(fromUnix: 100, toUnix: 200)])
    }

    @Test(arguments: [
        // An album whose keys are not all text: the list is then read as one album, which it is not.
        ("chart", #"{"weeklyalbumchart":{"album":[{"name":"a","\udc00":1}]}}"#),
        // A list of something other than objects.
        ("list", #"{"weeklychartlist":{"chart":[1]}}"#),
        // A friend without a name.
        ("friends", #"{"friends":{"user":[{"realname":"x"}]}}"#),
        // An envelope that is neither the method's object nor an empty list, or none at all.
        ("recent", #"{"recenttracks":7}"#), ("list", "{}"), ("chart", "[]"),
    ])
    func whatWasUnreadableStaysUnreadable(method: String, body: String) async {
        let lastFM = client([body])
        await #expect {
            switch method {
            case "chart": _ = try await lastFM.weeklyAlbumChart(user: "rj", range: week)
            case "list": _ = try await lastFM.weeklyChartList(user: "rj")
            case "friends": _ = try await lastFM.friends(user: "rj")
            default: _ = try await lastFM.send(.recentTracks(user: "rj", range: nil, page: 1))
            }
        } throws: { error in
            guard case .undecodable = (error as? ListeningError)?.reason else { return false }
            return true
        }
    }
}
