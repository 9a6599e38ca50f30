import Covers
import Foundation
import Logging
import Networking
import WeeklyCharts

/// Fetches album covers from wherever Last.fm says they are (Last.fm's image host, a
/// Libre.fm setup's, or a test fake), through the same transport as the API calls.
///
/// A cover is accepted only if its bytes are a JPEG, PNG or WebP within `limits` (size on
/// the wire, and declared pixels, so a decompression bomb is refused before any decoding);
/// the `Content-Type` header is not trusted. Accepted covers are kept in `cache`.
public struct CoverDownloader: Sendable {
    /// What became of one cover.
    public enum Outcome: Sendable, Equatable {
        case image(Data)
        /// There is no usable cover there: 404, an HTML page, an image that is refused.
        case unusable
        /// The host did not answer properly (timeout, reset, 5xx): maybe next time.
        case failed
    }

    /// A few MB and at most 3000×3000 pixels: every real cover fits, and two decoded at once
    /// stay within a small server's memory.
    public static let defaultLimits = ImageLimits(maxPixels: 3000 * 3000, maxSide: 6000, maxBytes: 5 << 20)

    private let transport: any HTTPTransport
    private let cache: CoverDiskCache?
    private let limits: ImageLimits
    private let timeout: Duration
    private let metrics: BotMetrics
    private let logger: Logger
    /// URLs that gave nothing usable lately (404, an HTML page, a refused image): not fetched
    /// again for `unusableLifetime`, so a bad cover costs one download an hour, not one a collage.
    private let recentlyUnusable = SharedBoundedCache<URL, Bool>(capacity: 1024)
    private let elapsed = ElapsedClock(ContinuousClock())
    static let unusableLifetime = Duration.seconds(3600)

    public init(
        transport: any HTTPTransport, cache: CoverDiskCache?, limits: ImageLimits = defaultLimits, timeout: Duration = .seconds(8),
        metrics: BotMetrics = .none, logger: Logger = Logger(label: "covers")
    ) {
        self.transport = transport
        self.cache = cache
        self.limits = limits
        self.timeout = timeout
        self.metrics = metrics
        self.logger = logger
    }

    public func cover(at url: URL) async -> Outcome {
        // Last.fm's grey star is the absence of a cover: never fetched, never drawn.
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", !LastFMPlaceholder.isPlaceholder(url) else {
            fetched("unusable")
            return .unusable
        }
        if recentlyUnusable.value(forKey: url, now: elapsed.elapsed()) != nil { return .unusable }
        if let data = await cache?.data(for: url) {
            metrics.increment("vinylogue_cover_cache_hits_total")
            return .image(data)
        }
        let response: HTTPResponse
        do {
            response = try await transport.send(HTTPRequest(
                url: url, headers: ["User-Agent": "vinylogue-bot"], timeout: timeout, maxResponseBytes: limits.maxBytes, followRedirects: true
            ))
        } catch {
            // A body over the size cap ends here too, as a transport error.
            logger.debug("cover not downloaded", metadata: ["host": "\(url.host ?? "")", "error": "\(error)"])
            fetched("failed")
            return .failed
        }
        switch response.status {
        case 200..<300:
            break
        case 500...:
            fetched("failed")
            return .failed
        default:
            fetched("unusable")
            remember(unusable: url)
            return .unusable
        }
        do {
            _ = try ImageInfo(inspecting: response.body, limits: limits)
        } catch {
            logger.debug("cover refused", metadata: ["host": "\(url.host ?? "")", "reason": "\(error)"])
            fetched("refused")
            remember(unusable: url)
            return .unusable
        }
        fetched("ok")
        await cache?.store(response.body, for: url)
        return .image(response.body)
    }

    private func remember(unusable url: URL) {
        recentlyUnusable.set(true, forKey: url, expiresAt: elapsed.elapsed() + Self.unusableLifetime)
    }

    /// `vinylogue_covers_fetched_total`: downloads by result.
    private func fetched(_ result: String) {
        metrics.increment("vinylogue_covers_fetched_total", [("result", result)])
    }
}
