import Foundation
import LastFM
import Throwback

/// Writes a throwback's cover collage to a file, for the terminal commands.
enum CollageFile {
    enum Failure: Error, CustomStringConvertible {
        case noAlbums
        case notRendered
        case notWritten(String, any Error)

        var description: String {
            switch self {
            case .noAlbums: "No albums that week, so no collage."
            case .notRendered: "The collage could not be made (covers or rendering failed)."
            case let .notWritten(path, error): "Could not write the collage to \(path): \(error.localizedDescription)"
            }
        }
    }

    /// The week a reply shows, if it has albums to make a collage of.
    static func summary(in reply: BotReply) -> ChartSummary? {
        guard case .throwback(.chart(let summary)) = reply, !summary.albums.isEmpty else { return nil }
        return summary
    }

    /// Renders the collage of `reply`'s week and writes it to `path` as a JPEG.
    static func write(_ reply: BotReply, to path: String, photos: CollagePhotos) async throws(Failure) {
        guard let summary = summary(in: reply) else { throw .noAlbums }
        guard let collage = await photos.collage(of: summary.albums) else { throw .notRendered }
        do {
            try collage.jpeg.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .notWritten(path, error)
        }
    }

    /// A file name for a throwback's collage: `alice-2023-11-19-3y.jpg`.
    static func name(for summary: ChartSummary) -> String {
        let day = ISO8601DateFormatter.string(from: summary.range.from, timeZone: .gmt, formatOptions: [.withFullDate])
        return "\(summary.user)-\(day)-\(summary.yearsAgo)y.jpg"
    }
}
