// ListenBrainz answers: the input is the HTTP response to every request (first byte: the
// status, see CannedTransport; the rest: the body; the last bytes also become the rate-limit
// headers), read by the listens decoder, the real HTTP client, the week builder (which pages
// backward through the same answer), the span's weeks, and the throwback engine.
import Foundation
import FuzzSupport
import LastFM
import ListenBrainz
import WeeklyCharts
import Networking
import Throwback

/// The token the client sends; it must never come back in an error.
private let token = "fuzz-listenbrainz-token-0123456789"

/// A fixed "now": 15 June 2025, 12:00 UTC.
private let now = Date(timeIntervalSince1970: 1_749_988_800)

private let coverArtArchive = URL(string: "https://caa.example/")!

/// The canned answer, with `X-RateLimit-*` headers made from the input's last bytes.
private struct HeaderedTransport: HTTPTransport {
    let canned: CannedTransport
    let headers: [String: String]

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var response = try await canned.send(request)
        response.headers = headers
        return response
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    Quiet.setUp()
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let tail = String(decoding: bytes.suffix(6), as: UTF8.self)
    let transport = HeaderedTransport(
        canned: CannedTransport(input: data, size: size),
        headers: ["x-ratelimit-remaining": String(tail.prefix(3)), "x-ratelimit-reset-in": String(tail.suffix(3))]
    )
    let client = HTTPListenBrainzClient(transport: transport, token: Secret(token))

    if size > 1, let page = try? ListensPage.decode(Data(bytes.dropFirst())) {
        checkPage(page)
    }
    if let page = call("listens", { try await client.listens(ListensRequest(user: "bob", maxTimestamp: 1_718_539_200)) }) {
        checkPage(page)
        _ = page.rateLimit.map { ListenBrainzRateLimit.wait($0.resetIn) }
    }

    let week = WeeklyChartRange(fromUnix: 1_718_539_200, toUnix: 1_719_144_000)
    if let chart = call("albumChart", { try await client.albumChart(user: "bob", range: week, coverArtArchive: coverArtArchive, maxPages: 3) }) {
        checkChart(chart, pages: 3)
    }

    if let span = call("span", { try await client.span(of: "bob") }) {
        let weeks = span.weeks(until: now)
        for (earlier, later) in zip(weeks, weeks.dropFirst()) where earlier.to != later.from {
            violated("ListeningSpan: weeks not contiguous", "\(earlier) \(later)")
        }
        if weeks.contains(where: { $0.to.timeIntervalSince($0.from) != LastFMWeek.length || LastFMWeek.start(of: $0.from) != $0.from }) {
            violated("ListeningSpan: a week off Last.fm's grid")
        }
        if let last = weeks.last, last.from > now { violated("ListeningSpan: a week after now", "\(last)") }
    }

    // The engine over the same answers, as the bot asks for `lb:bob`.
    let engine = ThrowbackEngine(history: ListenBrainzHistory(client: client, coverArtArchive: coverArtArchive, now: { now }), now: { now })
    if let outcome = call("engine", { try await engine.throwback(user: "bob", yearsAgo: 1) }) {
        checkTelegramMessage(ChartFormatter.telegram.format(outcome), "the engine's throwback \(outcome)")
    }
    return 0
}

/// Runs one call: its value, nil for a `ListeningError`; any other error is a finding.
private func call<T: Sendable>(_ name: String, _ body: @escaping @Sendable () async throws -> T) -> T? {
    switch blockingResult(body) {
    case .success(let value):
        return value
    case .failure(let error as ListeningError):
        let shown = "\(error) \(error.userMessage)"
        if shown.contains(token) { violated("\(name): the token leaked into an error", shown) }
        return nil
    case .failure(let error):
        violated("\(name): an error other than ListeningError escaped: \(type(of: error))", "\(error)")
    }
}

/// Every listen kept has a usable time and artist; a release, if any, is not empty.
private func checkPage(_ page: ListensPage) {
    for listen in page.listens {
        if !(1..<95_617_584_000).contains(listen.listenedAt) { violated("listens: an implausible time was kept", "\(listen)") }
        if listen.artist.isEmpty { violated("listens: a listen without an artist was kept") }
        if listen.release?.isEmpty == true { violated("listens: an empty release was kept") }
    }
    for time in [page.oldestListenTimestamp, page.latestListenTimestamp].compactMap({ $0 }) where !(1..<95_617_584_000).contains(time) {
        violated("listens: an implausible span was kept", "\(time)")
    }
}

/// A built chart counts each listen once, in at most `pages` pages, ranked 1...n by plays,
/// with covers only in the Cover Art Archive.
private func checkChart(_ chart: WeeklyAlbumChart, pages: Int) {
    let plays = chart.albums.reduce(0) { $0 + $1.playCount }
    if plays > pages * ListensRequest.maxCount { violated("albumChart: \(plays) plays from \(pages) pages") }
    if chart.albums.contains(where: { $0.playCount < 1 || $0.name.isEmpty }) { violated("albumChart: an empty album") }
    if chart.albums.map(\.rank) != chart.albums.indices.map({ $0 + 1 }) {
        violated("albumChart: ranks are not 1...n", "\(chart.albums.map(\.rank))")
    }
    if zip(chart.albums, chart.albums.dropFirst()).contains(where: { $0.playCount < $1.playCount }) {
        violated("albumChart: albums not sorted by plays")
    }
    for album in chart.albums {
        guard let cover = album.coverURL else { continue }
        if !cover.absoluteString.hasPrefix(coverArtArchive.absoluteString + "release/") || cover.absoluteString.contains("..") {
            violated("albumChart: a cover outside the archive", cover.absoluteString)
        }
    }
}

/// The executable's entry point under SwiftPM's name for it; libFuzzer takes over from here.
@_cdecl("FuzzListenBrainz_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv)
}
