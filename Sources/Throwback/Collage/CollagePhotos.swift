import Foundation
import LastFM
import Logging
import Networking
import Telegram

/// The picture for a throwback reply: a collage uploaded before is sent again by the
/// `file_id` Telegram gave it (in any chat), and a new one is rendered and uploaded once.
public struct CollagePhotos: Sendable {
    /// A picture ready to send.
    public enum Photo: Sendable, Equatable {
        /// Uploaded before: Telegram knows it by this id.
        case stored(fileID: String, key: CollageKey)
        /// Rendered now, to upload.
        case rendered(CollageMaker.Collage, key: CollageKey)

        /// What `sendPhoto` or `editMessageMedia` carries.
        public var source: PhotoSource {
            switch self {
            case .stored(let fileID, _): .fileID(fileID)
            case .rendered(let collage, _): .upload(InputFile(filename: "collage.jpg", contentType: "image/jpeg", data: collage.jpeg))
            }
        }
    }

    /// The caption under a collage: the chart, within Telegram's 1024-character limit.
    public static let captionFormatter = ChartFormatter(markup: .telegramHTML, maxLength: TelegramHTML.maxCaptionLength)

    /// What this process knows of a key's picture.
    private enum Known: Sendable {
        case uploaded(fileID: String)
        /// Its week has no cover at all; kept for `CoverDownloader.unusableLifetime`, within
        /// which asking again gives the same answer.
        case noCovers
    }

    private let maker: CollageMaker
    private let store: BotStore
    /// So that a warm throwback reads no row and looks up no cover for its picture.
    private let known = SharedBoundedCache<CollageKey, Known>(capacity: 1024)
    private let metrics: BotMetrics
    private let now: @Sendable () -> Date
    private let elapsed: ElapsedClock
    private let logger: Logger

    public init(
        maker: CollageMaker, store: BotStore, metrics: BotMetrics = .none, now: @escaping @Sendable () -> Date = Date.init,
        clock: any Clock<Duration> = ContinuousClock(), logger: Logger
    ) {
        self.maker = maker
        self.store = store
        self.metrics = metrics
        self.now = now
        self.elapsed = ElapsedClock(clock)
        self.logger = logger
    }

    /// The picture for a week's chart, or nil when it has no albums or no collage could be made
    /// in time: the reply is then text.
    public func photo(for summary: ChartSummary) async -> Photo? {
        guard !summary.albums.isEmpty else { return nil }
        let key = CollageKey(user: summary.user, week: Int64(summary.range.fromUnix), minimumPlayCount: summary.minimumPlayCount)
        switch known.value(forKey: key, now: elapsed.elapsed()) {
        case .uploaded(let fileID)?: return .stored(fileID: fileID, key: key)
        case .noCovers?: return nil
        case nil: break
        }
        if let fileID = try? await store.collageFileID(key) {
            known.set(.uploaded(fileID: fileID), forKey: key)
            return .stored(fileID: fileID, key: key)
        }
        switch await maker.outcome(of: summary.albums) {
        case .collage(let collage):
            return .rendered(collage, key: key)
        case .noCovers:
            known.set(.noCovers, forKey: key, expiresAt: elapsed.elapsed() + CoverDownloader.unusableLifetime)
            return nil
        case .unavailable:
            return nil
        }
    }

    /// A collage of any albums (a weekly post's), never stored for reuse.
    public func collage(of albums: [ChartAlbum]) async -> CollageMaker.Collage? {
        await maker.collage(of: albums)
    }

    /// Telegram accepted `photo`: a new upload's `file_id` is kept, if the collage is complete.
    public func sent(_ photo: Photo, as message: SentMessage) async {
        switch photo {
        case .stored:
            metrics.increment("vinylogue_collage_uploads_saved_total")
        case .rendered(let collage, let key):
            guard collage.complete, let fileID = message.photoFileID else { return }
            known.set(.uploaded(fileID: fileID), forKey: key)
            do {
                try await store.saveCollageFileID(fileID, for: key, at: now())
            } catch {
                logger.warning("could not keep a collage's file_id; it will be uploaded again next time", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Telegram refused `photo`: a stored `file_id` it no longer knows is forgotten.
    public func refused(_ photo: Photo) async {
        guard case .stored(_, let key) = photo else { return }
        logger.notice("Telegram refused a stored collage; it will be rendered again", metadata: ["user": "\(key.user)"])
        known.removeValue(forKey: key)
        try? await store.forgetCollageFileID(key)
    }
}
