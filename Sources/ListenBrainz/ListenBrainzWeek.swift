import WeeklyCharts

import Foundation

/// A user's listening history as ListenBrainz tells it in one small request: their spelling
/// and the span of their listens.
public struct ListeningSpan: Sendable, Equatable, Codable {
    /// The name in ListenBrainz's spelling.
    public var user: String
    /// The first and the last listen, Unix times; nil for a user with no listens.
    public var oldest: Int?
    public var latest: Int?

    public init(user: String, oldest: Int?, latest: Int?) {
        self.user = user
        self.oldest = oldest
        self.latest = latest
    }

    /// Last.fm's weeks (Sunday noon to Sunday noon, UTC) from the first listen's to the last
    /// one's, oldest first: every source shares one week grid, so a mixed roster's post is one
    /// week. A last listen dated after `now` counts as now.
    public func weeks(until now: Date) -> [WeeklyChartRange] {
        guard let oldest, let latest, oldest <= latest else { return [] }
        var weeks: [WeeklyChartRange] = []
        var start = LastFMWeek.start(of: Date(timeIntervalSince1970: TimeInterval(oldest)))
        let end = min(Date(timeIntervalSince1970: TimeInterval(latest)), now)
        while start <= end {
            let next = start.addingTimeInterval(LastFMWeek.length)
            weeks.append(WeeklyChartRange(from: start, to: next))
            start = next
        }
        return weeks
    }
}

extension ListenBrainzClient {
    /// The user's spelling and listening span: one request for a single listen. Throws
    /// a `ListeningError` whose reason is `userNotFound` for an unknown name.
    public func span(of user: String) async throws -> ListeningSpan {
        let page = try await listens(ListensRequest(user: user, count: 1))
        return ListeningSpan(user: page.spelling(of: user), oldest: page.oldestListenTimestamp, latest: page.latestListenTimestamp)
    }

    /// A week's album chart built from the user's listens in `range`: pages of 1000 listens,
    /// newest first, from the week's end back to its start. A week of n listens costs about
    /// ⌈n/1000⌉ requests.
    ///
    /// `max_ts` is exclusive, and imports stamp many listens with one second, so each page
    /// after the first ends at its predecessor's oldest second + 1 and the listens of that
    /// second seen already are told apart by their recording. A second with more listens than
    /// a page is read from its other end too (`min_ts`, oldest first), then passed.
    ///
    /// - Parameters:
    ///   - coverArtArchive: the Cover Art Archive root, for albums whose release is known.
    ///   - maxPages: a bound on the requests one week may cost, whatever the server answers.
    public func albumChart(
        user: String, range: WeeklyChartRange, coverArtArchive: URL, maxPages: Int = 100
    ) async throws -> WeeklyAlbumChart {
        var week = WeekOfListens(range: range, coverArtArchive: coverArtArchive)
        var spelling = user
        var before = range.toUnix
        var pages = 0
        while pages < max(1, maxPages) {
            pages += 1
            let request = ListensRequest(user: user, maxTimestamp: before)
            let page = try await listens(request)
            spelling = page.spelling(of: spelling)
            // Nothing older than asked for (or a server ignoring max_ts): the history is read.
            guard let oldest = week.count(page.listens.filter { $0.listenedAt < before }) else { break }
            if page.listens.count < request.count || oldest < range.fromUnix { break }
            guard week.pageWasOneSecond else {
                before = oldest + 1
                continue
            }
            // Asking up to `oldest + 1` again would bring the same listens back.
            guard pages < maxPages else { break }
            pages += 1
            let otherEnd = try await listens(ListensRequest(user: user, maxTimestamp: oldest + 1, minTimestamp: oldest - 1))
            _ = week.count(otherEnd.listens.filter { $0.listenedAt == oldest })
            before = oldest
            if before <= range.fromUnix || before <= page.oldestListenTimestamp ?? Int.min { break }
        }
        return WeeklyAlbumChart(user: spelling, range: range, albums: week.tally.chart())
    }
}

extension ListensPage {
    /// The spelling the listens give, if it is the asked name in another case; else `asked`.
    public func spelling(of asked: String) -> String {
        guard let user, user.lowercased() == asked.lowercased() else { return asked }
        return user
    }
}

/// The listens of one week counted once each, whatever pages they arrive in.
private struct WeekOfListens {
    private struct Key: Hashable {
        var second: Int
        var recording: String
    }

    let range: WeeklyChartRange
    let coverArtArchive: URL
    private(set) var tally = AlbumTally()
    /// The listens counted at the oldest second met so far: only they can come again.
    private var edge: (second: Int, seen: Set<Key>)?
    /// Whether every listen of the last page counted had the same second.
    private(set) var pageWasOneSecond = false

    init(range: WeeklyChartRange, coverArtArchive: URL) {
        self.range = range
        self.coverArtArchive = coverArtArchive
    }

    /// Counts the listens of a page not counted before, in the week; returns the page's oldest second.
    mutating func count(_ listens: [Listen]) -> Int? {
        guard let oldest = listens.map(\.listenedAt).min() else { return nil }
        var seen = edge?.second == oldest ? edge?.seen ?? [] : []
        let previous = edge
        for listen in listens {
            // Listens without an id are told apart by what they are, as ListenBrainz does.
            let key = Key(second: listen.listenedAt, recording: listen.recordingMSID ?? "\(listen.artist)\u{1F}\(listen.release ?? "")")
            if previous?.second == listen.listenedAt, previous?.seen.contains(key) == true { continue }
            if listen.listenedAt == oldest { seen.insert(key) }
            if range.contains(Date(timeIntervalSince1970: TimeInterval(listen.listenedAt))), let release = listen.release {
                tally.add(artist: listen.artist, album: release, cover: CoverArtArchive.cover(of: listen, root: coverArtArchive))
            }
        }
        edge = (oldest, seen)
        pageWasOneSecond = listens.allSatisfy { $0.listenedAt == oldest }
        return oldest
    }
}

/// Cover images by MusicBrainz release, from the Cover Art Archive.
public enum CoverArtArchive {
    /// The archive's own root.
    public static let defaultRootURL = URL(string: "https://coverartarchive.org/")!

    /// `{root}/release/{caa_release_mbid}/{caa_id}-500.jpg` when the mapping names the image,
    /// else `{root}/release/{release_mbid}/front-500`, else nil. Ids are checked to be plain
    /// MBIDs and numbers, so that nothing from a listen can steer the URL elsewhere.
    public static func cover(of listen: Listen, root: URL) -> URL? {
        if let release = listen.coverArtReleaseMBID, isMBID(release), let id = listen.coverArtID, id > 0 {
            return url(root, "release/\(release.lowercased())/\(id)-500.jpg")
        }
        if let release = listen.releaseMBID, isMBID(release) {
            return url(root, "release/\(release.lowercased())/front-500")
        }
        return nil
    }

    /// 36 characters: hex digits in 8-4-4-4-12 groups.
    static func isMBID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }

    private static func url(_ root: URL, _ path: String) -> URL? {
        let base = root.absoluteString.hasSuffix("/") ? root.absoluteString : root.absoluteString + "/"
        return URL(string: base + path)
    }
}
