import Foundation

/// Plays counted by album (artist and album name), for the sources that have no weekly
/// chart and build one from single plays (ListenBrainz's listens, Libre.fm's recent tracks).
public struct AlbumTally: Sendable {
    private struct Key: Hashable {
        var artist: String
        var album: String
    }

    private struct Count {
        var plays = 0
        var cover: URL?
        var firstSeen: Int
    }

    private var counts: [Key: Count] = [:]

    public init() {}

    /// Counts one play. A play without an album name is no album and is left out; the first
    /// cover named for an album is kept (Last.fm's grey star is no cover).
    public mutating func add(artist: String, album: String, cover: URL? = nil) {
        guard !album.isEmpty else { return }
        let key = Key(artist: artist, album: album)
        var count = counts[key] ?? Count(firstSeen: counts.count)
        count.plays += 1
        if count.cover == nil, let cover, !LastFMPlaceholder.isPlaceholder(cover) { count.cover = cover }
        counts[key] = count
    }

    /// Albums by plays, ties in the order first met, ranked from 1.
    public func chart() -> [ChartAlbum] {
        counts.sorted { ($0.value.plays, -$0.value.firstSeen) > ($1.value.plays, -$1.value.firstSeen) }
            .enumerated()
            .map { index, entry in
                ChartAlbum(
                    artist: entry.key.artist, name: entry.key.album, playCount: entry.value.plays, rank: index + 1,
                    coverURL: entry.value.cover
                )
            }
    }
}
