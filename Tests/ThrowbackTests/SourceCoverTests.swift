import Covers
import Foundation
import LastFM
import Networking
import Synchronization
import Testing
import TestSupport
@testable import Throwback
import TestLogging
import WeeklyCharts

/// Last.fm's grey star, as `album.getInfo` lists it for an album without art.
private let star = "https://lastfm.freetls.fastly.net/i/u/300x300/2a96cbd8b46e442fc41c2b86b821562f.png"

/// A cover host that serves a real PNG at every URL and records what was asked.
private final class CoverHost: HTTPTransport {
    private let asked = Mutex<[URL]>([])

    var urls: [URL] { asked.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        asked.withLock { $0.append(request.url) }
        return HTTPResponse(status: 200, body: DemoCover.image(artist: "a", album: request.url.lastPathComponent, side: 300))
    }
}

@Suite(.capturingLogs) struct SourceCoverTests {
    @Test func theGreyStarIsNoCoverWhereverItComesFrom() async throws {
        let images = ["small", "medium", "large", "extralarge"].map { ##"{"#text": "\##(star)", "size": "\##($0)"}"## }.joined(separator: ",")
        let transport = ScriptedTransport([], fallback: .respond(status: 200, body: #"{"album": {"name": "A", "artist": "B", "image": [\#(images)]}}"#))
        let lastFM = HTTPLastFMClient(transport: transport, apiKey: "k")
        #expect(try await lastFM.albumInfo(artist: "B", album: "A").coverURL == nil)

        let host = CoverHost()
        let downloader = CoverDownloader(transport: host, cache: nil)
        #expect(await downloader.cover(at: URL(string: star)!) == .unusable)
        // A chart that names the star as its cover (a Libre.fm scrobble's image) falls back to
        // Last.fm, which names it too: nothing is downloaded, nothing is drawn.
        let renderer = RecordingTiles()
        let maker = CollageMaker(lastFM: lastFM, downloader: downloader, renderer: renderer)
        let album = ChartAlbum(artist: "B", name: "A", playCount: 3, rank: 1, coverURL: URL(string: star))
        #expect(await maker.outcome(of: [album, album]) == .noCovers)
        #expect(host.urls.isEmpty)
        #expect(renderer.count == 0)

        var tally = AlbumTally()
        tally.add(artist: "B", album: "A", cover: URL(string: star))
        #expect(tally.chart().first?.coverURL == nil)
    }

    @Test func aCoverNamedByTheChartIsDownloadedWithoutAskingLastFM() async throws {
        let host = CoverHost()
        let renderer = RecordingTiles()
        let maker = CollageMaker(lastFM: NoLastFM(), downloader: CoverDownloader(transport: host, cache: nil), renderer: renderer)
        let caa = URL(string: "https://coverartarchive.org/release/8c1fd6e4-4c8f-4a8f-9a3e-1d2b3c4d5e6f/42-500.jpg")!
        let outcome = await maker.outcome(of: [ChartAlbum(artist: "Low", name: "HEY WHAT", playCount: 4, rank: 1, coverURL: caa)])
        guard case .collage = outcome else {
            Issue.record("no collage: \(outcome)")
            return
        }
        #expect(host.urls == [caa])
        #expect(renderer.count == 1)
    }
}

/// Counts renders, drawing nothing.
private final class RecordingTiles: CollageRendering {
    private let renders = Mutex(0)

    var count: Int { renders.withLock { $0 } }

    func render(_ tiles: [CollageTile]) async throws -> Data {
        renders.withLock { $0 += 1 }
        return Data([0xFF, 0xD8, 0xFF])
    }
}

@Suite struct ListenerNameTests {
    @Test(arguments: [
        ("alice", ScrobbleSource.lastFM, "alice", "alice"),
        ("lastfm:alice", .lastFM, "alice", "alice"),
        ("LastFM:Alice", .lastFM, "Alice", "Alice"),
        ("lb:bob", .listenBrainz, "bob", "lb:bob"),
        ("listenbrainz:bob.smith", .listenBrainz, "bob.smith", "lb:bob.smith"),
        ("LB:Ünïcode_name", .listenBrainz, "Ünïcode_name", "lb:Ünïcode_name"),
        ("librefm:carol", .libreFM, "carol", "librefm:carol"),
    ])
    func namesAreReadWithTheirSource(text: String, source: ScrobbleSource, name: String, stored: String) throws {
        let listener = try #require(ListenerName(parsing: text))
        #expect(listener.source == source)
        #expect(listener.name == name)
        #expect(listener.qualified == stored)
    }

    @Test(arguments: ["", "a", "1alice", "lastfm:1x", "lb:", "lb:a/b", "lb:a b", "lb:a%2F", "librefm:a/b", "librefm:", "me:x", "lb:\u{7}"])
    func namesNoSourceTakesAreRefused(text: String) {
        #expect(ListenerName(parsing: text) == nil)
    }
}
