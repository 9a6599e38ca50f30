import Foundation
import Logging
import Networking
import Telegram
import WeeklyCharts

/// The picture for a throwback reply: a collage uploaded before is sent again by the
/// `file_id` Telegram gave it (in any chat), and a new one is rendered and uploaded once.
/// A class: the handler and the outbox pass one around for every reply, and a copy of a struct
/// would retain each of its references.
public final class CollagePhotos: Sendable {
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

        /// The collage the outbox message carries, for its `file_id` to be kept and reused;
        /// nil for a picture drawn while some cover could not be fetched, which is not kept,
        /// so that the next request tries again.
        public var reusableKey: CollageKey? {
            switch self {
            case .stored(_, let key): key
            case .rendered(let collage, let key): collage.complete ? key : nil
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
    /// Collages drawn and not uploaded yet: a burst of the same throwback draws it once, and
    /// the outbox sends the later ones by the first upload's `file_id`. Few, for their size.
    private let drawn = SharedBoundedCache<CollageKey, CollageMaker.Collage>(capacity: 8)
    /// The albums of recent collages, to draw one again that Telegram forgot.
    private let albums = SharedBoundedCache<CollageKey, [ChartAlbum]>(capacity: 256)
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
        let key = Self.key(for: summary)
        albums.set(summary.albums, forKey: key)
        // Drawn before uploaded: `sent` records the file_id before it forgets the drawing, so
        // a burst that misses one finds the other (the outbox sends by file_id once there is one).
        if let collage = drawn.value(forKey: key) { return .rendered(collage, key: key) }
        if let fileID = await fileID(for: key) { return .stored(fileID: fileID, key: key) }
        if case .noCovers? = known.value(forKey: key, now: elapsed.elapsed()) { return nil }
        switch await maker.outcome(of: summary.albums) {
        case .collage(let collage):
            if collage.complete { drawn.set(collage, forKey: key) }
            return .rendered(collage, key: key)
        case .noCovers:
            known.set(.noCovers, forKey: key, expiresAt: elapsed.elapsed() + CoverDownloader.unusableLifetime)
            return nil
        case .unavailable:
            return nil
        }
    }

    /// The collage of a week's chart, as its picture is known and kept.
    static func key(for summary: ChartSummary) -> CollageKey {
        CollageKey(user: summary.user, week: Int64(summary.range.fromUnix), minimumPlayCount: summary.minimumPlayCount)
    }

    /// The `file_id` of a chart's collage uploaded before, if any: nothing is drawn.
    public func uploadedFileID(for summary: ChartSummary) async -> String? {
        summary.albums.isEmpty ? nil : await fileID(for: Self.key(for: summary))
    }

    /// The `file_id` of a collage uploaded before, if any; its stored row counts as used.
    public func fileID(for key: CollageKey) async -> String? {
        switch known.value(forKey: key, now: elapsed.elapsed()) {
        case .uploaded(let fileID)?:
            store.noteCollageUsed(key)
            return fileID
        case .noCovers?: return nil
        case nil: break
        }
        guard let fileID = try? await store.collageFileID(key) else { return nil }
        known.set(.uploaded(fileID: fileID), forKey: key)
        store.noteCollageUsed(key)
        return fileID
    }

    /// A collage of any albums (a weekly post's), never stored for reuse.
    public func collage(of albums: [ChartAlbum]) async -> CollageMaker.Collage? {
        await maker.collage(of: albums)
    }

    /// Fetches the covers of a collage of `albums` into the caches, without drawing it.
    public func fetchCovers(of albums: [ChartAlbum]) async {
        await maker.fetchCovers(of: albums)
    }

    /// Telegram accepted an upload of a collage: its `file_id` is kept for every later throwback.
    public func uploaded(_ key: CollageKey, as message: SentMessage) async {
        guard let fileID = message.photoFileID else { return }
        known.set(.uploaded(fileID: fileID), forKey: key)
        drawn.removeValue(forKey: key)
        do {
            try await store.saveCollageFileID(fileID, for: key, at: now())
        } catch {
            logger.warning("could not keep a collage's file_id; it will be uploaded again next time", metadata: ["error": "\(error)"])
        }
    }

    /// Telegram refused a stored `file_id`: it is forgotten.
    public func refused(_ key: CollageKey) async {
        logger.notice("Telegram refused a stored collage", metadata: ["user": "\(key.user)"])
        known.removeValue(forKey: key)
        try? await store.forgetCollageFileID(key)
    }

    /// The collage of a key drawn again, when its albums are still known here.
    public func redraw(_ key: CollageKey) async -> Data? {
        guard let albums = albums.value(forKey: key), case .collage(let collage) = await maker.outcome(of: albums) else { return nil }
        return collage.jpeg
    }
}

// The outbox knows a collage's picture only by its key as text, and asks the collages about it.
extension CollagePhotos: ReusablePhotos {
    public func fileID(forPhoto key: String) async -> String? {
        guard let key = CollageKey(photoKey: key) else { return nil }
        return await fileID(for: key)
    }

    public func sent(photo key: String, as message: SentMessage, uploaded: Bool) async {
        guard uploaded else { return metrics.increment("vinylogue_collage_uploads_saved_total") }
        guard let key = CollageKey(photoKey: key) else { return }
        await self.uploaded(key, as: message)
    }

    public func refused(photo key: String) async {
        guard let key = CollageKey(photoKey: key) else { return }
        await refused(key)
    }

    public func remade(photo key: String) async -> InputFile? {
        guard let key = CollageKey(photoKey: key), let jpeg = await redraw(key) else { return nil }
        return InputFile(filename: "collage.jpg", contentType: "image/jpeg", data: jpeg)
    }
}

extension CollageKey {
    /// The key as the outbox keeps it with a message: week, tab, filter, tab, user.
    var photoKey: String {
        "\(week)\t\(minimumPlayCount)\t\(user)"
    }

    /// A key read back from the outbox; nil for text that is no key.
    init?(photoKey text: String) {
        let parts = text.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let week = Int64(parts[0]), let minimum = Int(parts[1]) else { return nil }
        self.init(user: String(parts[2]), week: week, minimumPlayCount: minimum)
    }
}
