import Covers
import Foundation
import LastFM
import Throwback

/// Writes a throwback's cover collage to a file, for the terminal commands: JPEG, or PNG for
/// a name ending in `.png`.
enum CollageFile {
    enum Failure: Error, CustomStringConvertible {
        case noAlbums
        case notRendered
        case notWritten(String, reason: String)

        var description: String {
            switch self {
            case .noAlbums: "No albums that week, so no collage."
            case .notRendered: "The collage could not be made (covers or rendering failed)."
            case let .notWritten(path, reason): "Could not write the collage to \(path): \(reason)."
            }
        }
    }

    /// The week a reply shows, if it has albums to make a collage of.
    static func summary(in reply: BotReply) -> ChartSummary? {
        guard case .throwback(.chart(let summary)) = reply, !summary.albums.isEmpty else { return nil }
        return summary
    }

    /// The format a collage file is written in, by its name's extension: JPEG without one;
    /// nil for an extension it is not written in.
    static func format(of path: String) -> ImageFormat? {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "", "jpg", "jpeg": .jpeg
        case "png": .png
        default: nil
        }
    }

    /// Renders the collage of `reply`'s week and writes it to `path`, in the format its name says.
    static func write(_ reply: BotReply, to path: String, photos: CollagePhotos) async throws(Failure) {
        guard let summary = summary(in: reply) else { throw .noAlbums }
        guard let collage = await photos.collage(of: summary.albums),
              let image = try? CollageRenderer.converted(collage.jpeg, to: format(of: path) ?? .jpeg)
        else { throw .notRendered }
        do {
            try image.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .notWritten(path, reason: OutputPath.reason(error))
        }
    }

    /// Why a collage file cannot be written at `path`, in a sentence, or nil if it can:
    /// checked before any work, so that a folder, a missing one or a format that is not
    /// written is named rather than failing late.
    static func problem(writingTo path: String) -> String? {
        if let problem = OutputPath.problem(writingTo: path, example: "collage.jpg") { return problem }
        guard format(of: path) != nil else {
            let name = URL(fileURLWithPath: path).lastPathComponent
            return "\(name): a collage is written as JPEG (.jpg) or PNG (.png); give a name ending in one of those"
        }
        return nil
    }

    /// A file name for a throwback's collage: `alice-2023-11-19-3y.jpg`.
    static func name(for summary: ChartSummary) -> String {
        let day = ISO8601DateFormatter.string(from: summary.range.from, timeZone: .gmt, formatOptions: [.withFullDate])
        return "\(summary.user)-\(day)-\(summary.yearsAgo)y.jpg"
    }
}
