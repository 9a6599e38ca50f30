import Covers
import Foundation
import LastFM
import Logging
import Networking
import WeeklyCharts

/// Makes the cover collage of a week's top albums: each album's cover URL as its source named
/// it (ListenBrainz's, in the Cover Art Archive), else from Last.fm's `album.getInfo` (cached
/// for good by the Last.fm client chain), whatever source the chart came from; the covers from the
/// downloader, the picture from the renderer. An album without a usable cover gets a
/// placeholder tile; the whole job has a time budget, after which the caller answers in text.
public struct CollageMaker: Sendable {
    /// A rendered collage.
    public struct Collage: Sendable, Equatable {
        public var jpeg: Data
        /// False when some cover could not be fetched this time (as opposed to not existing),
        /// so the picture should not be kept for reuse.
        public var complete: Bool
    }

    /// Albums in a collage: a 3×3 grid at most.
    public static let maxAlbums = 9
    /// Covers fetched at once.
    static let parallelFetches = 3

    private let lastFM: any LastFMClient
    private let downloader: CoverDownloader
    private let renderer: any CollageRendering
    private let budget: Duration
    private let clock: any Clock<Duration>
    private let metrics: BotMetrics
    private let logger: Logger

    public init(
        lastFM: any LastFMClient, downloader: CoverDownloader, renderer: any CollageRendering, budget: Duration = .seconds(10),
        clock: any Clock<Duration> = ContinuousClock(), metrics: BotMetrics = .none, logger: Logger = Logger(label: "covers")
    ) {
        self.lastFM = lastFM
        self.downloader = downloader
        self.renderer = renderer
        self.budget = budget
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    /// What came of making a collage.
    public enum Outcome: Sendable, Equatable {
        case collage(Collage)
        /// Not one album has a cover: Last.fm names none, or no cover host gave a usable
        /// image. An answer that holds while those answers are remembered (Last.fm's for good,
        /// the hosts' for `CoverDownloader.unusableLifetime`).
        case noCovers
        /// No picture this time: a cover could not be fetched, rendering failed, or the
        /// budget ran out.
        case unavailable
    }

    /// The collage of the first nine `albums`, in their order; nil when there are none, when
    /// not one has a usable cover (a grid of placeholders says less than the text), when
    /// rendering failed, or when it took longer than the budget.
    public func collage(of albums: [ChartAlbum]) async -> Collage? {
        guard case .collage(let collage) = await outcome(of: albums) else { return nil }
        return collage
    }

    /// Like `collage(of:)`, and says why there is no picture.
    public func outcome(of albums: [ChartAlbum]) async -> Outcome {
        let albums = Array(albums.prefix(Self.maxAlbums))
        guard !albums.isEmpty else { return .noCovers }
        let (lastFM, downloader, renderer, metrics, logger) = (lastFM, downloader, renderer, metrics, logger)
        let outcome = await withinBudget(budget, clock: clock) { () async -> Outcome? in
            let covers = await Self.covers(of: albums, lastFM: lastFM, downloader: downloader)
            guard !Task.isCancelled else { return nil }
            guard covers.contains(where: { $0.image != nil }) else {
                return covers.contains(.failed) ? .unavailable : .noCovers
            }
            let tiles = albums.indices.map { index in
                CollageTile(rank: index + 1, image: covers[index].image, label: "\(albums[index].artist)\n\(albums[index].name)")
            }
            do {
                let jpeg = try await renderer.render(tiles)
                metrics.increment("vinylogue_collages_rendered_total")
                return .collage(Collage(jpeg: jpeg, complete: covers.allSatisfy { $0 != .failed }))
            } catch {
                logger.warning("could not render a collage; answering in text", metadata: ["error": "\(error)"])
                return .unavailable
            }
        }
        return outcome ?? .unavailable
    }

    /// Fetches the covers a collage of `albums` would show (their Last.fm answers, and the
    /// images into the downloader's cache), without drawing it. No budget: nobody waits for it.
    public func fetchCovers(of albums: [ChartAlbum]) async {
        _ = await Self.covers(of: Array(albums.prefix(Self.maxAlbums)), lastFM: lastFM, downloader: downloader)
    }

    /// One outcome per album, in order, fetching a few at a time.
    private static func covers(
        of albums: [ChartAlbum], lastFM: any LastFMClient, downloader: CoverDownloader
    ) async -> [CoverDownloader.Outcome] {
        await withTaskGroup(of: (Int, CoverDownloader.Outcome).self) { group in
            var outcomes = Array(repeating: CoverDownloader.Outcome.failed, count: albums.count)
            var next = 0
            func start() {
                guard next < albums.count else { return }
                let (index, album) = (next, albums[next])
                next += 1
                group.addTask { (index, await cover(of: album, lastFM: lastFM, downloader: downloader)) }
            }
            for _ in 0..<parallelFetches { start() }
            for await (index, outcome) in group {
                outcomes[index] = outcome
                start()
            }
            return outcomes
        }
    }

    private static func cover(of album: ChartAlbum, lastFM: any LastFMClient, downloader: CoverDownloader) async -> CoverDownloader.Outcome {
        do {
            var url = album.coverURL.flatMap { LastFMPlaceholder.isPlaceholder($0) ? nil : $0 }
            if url == nil { url = try await lastFM.albumInfo(artist: album.artist, album: album.name).coverURL }
            guard let url else { return .unusable }
            return await downloader.cover(at: url)
        } catch {
            // Last.fm down or refusing: a placeholder now, another try next time.
            return .failed
        }
    }
}

extension CoverDownloader.Outcome {
    var image: Data? {
        if case .image(let data) = self { return data }
        return nil
    }
}
