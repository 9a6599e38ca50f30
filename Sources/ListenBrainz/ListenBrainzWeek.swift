import Foundation
import LastFM

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
    /// `ListenBrainzError.userNotFound` for an unknown name.
    public func span(of user: String) async throws -> ListeningSpan {
        let page = try await listens(ListensRequest(user: user, count: 1))
        return ListeningSpan(user: page.user ?? user, oldest: page.oldestListenTimestamp, latest: page.latestListenTimestamp)
    }

    /// A week's album chart built from the user's listens in `range`: pages of 1000 listens,
    /// newest first, from the week's end back to its start. A week of n listens costs ⌈n/1000⌉
    /// requests (one more when n is a multiple of 1000 and older listens exist).
    ///
    /// - Parameters:
    ///   - coverArtArchive: the Cover Art Archive root, for albums whose release is known.
    ///   - maxPages: a bound on the work one week may cost, whatever the server answers.
    public func albumChart(
        user: String, range: WeeklyChartRange, coverArtArchive: URL, maxPages: Int = 100
    ) async throws -> WeeklyAlbumChart {
        var tally = AlbumTally()
        var spelling = user
        var before = range.toUnix
        for _ in 0..<max(1, maxPages) {
            let page = try await listens(ListensRequest(user: user, maxTimestamp: before))
            spelling = page.user ?? spelling
            var oldestInPage = before
            for listen in page.listens where listen.listenedAt < before {
                oldestInPage = min(oldestInPage, listen.listenedAt)
                if listen.listenedAt >= range.fromUnix, let release = listen.release {
                    tally.add(artist: listen.artist, album: release, cover: CoverArtArchive.cover(of: listen, root: coverArtArchive))
                }
            }
            // Done when the page was the last one, reached back past the week's start or the
            // user's first listen, or made no progress (a server ignoring max_ts).
            let reachedFirstListen = page.oldestListenTimestamp.map { oldestInPage <= $0 } ?? false
            if page.listens.count < ListensRequest.maxCount || oldestInPage < range.fromUnix || reachedFirstListen || oldestInPage >= before {
                break
            }
            before = oldestInPage
        }
        return WeeklyAlbumChart(user: spelling, range: range, albums: tally.chart())
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
