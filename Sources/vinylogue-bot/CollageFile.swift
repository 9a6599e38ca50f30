import Foundation
import LastFM
import Throwback

/// Writes a throwback's cover collage to a file, for the terminal commands.
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

    /// Renders the collage of `reply`'s week and writes it to `path` as a JPEG.
    static func write(_ reply: BotReply, to path: String, photos: CollagePhotos) async throws(Failure) {
        guard let summary = summary(in: reply) else { throw .noAlbums }
        guard let collage = await photos.collage(of: summary.albums) else { throw .notRendered }
        do {
            try collage.jpeg.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .notWritten(path, reason: reason(error))
        }
    }

    /// Why a collage file cannot be written at `path`, in a sentence, or nil if it can: checked
    /// before any work, so that a folder or a missing one is named rather than failing late.
    static func problem(writingTo path: String) -> String? {
        if isFolder(path) { return "\(path) is a folder; give a file name, such as \(URL(fileURLWithPath: path).appendingPathComponent("collage.jpg").path)" }
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: parent) else { return "there is no folder \(parent)" }
        guard isFolder(parent) else { return "\(parent) is not a folder" }
        guard FileManager.default.isWritableFile(atPath: parent) else { return "the folder \(parent) is not writable" }
        return nil
    }

    /// Makes `path` a folder collages can go to, creating it (and any missing parents) if it
    /// does not exist. Why it cannot be one, in a sentence, or nil.
    static func problem(preparingFolder path: String) -> String? {
        if FileManager.default.fileExists(atPath: path) {
            guard isFolder(path) else { return "\(path) is a file, not a folder" }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                return "could not create the folder \(path): \(reason(error))"
            }
        }
        guard FileManager.default.isWritableFile(atPath: path) else { return "the folder \(path) is not writable" }
        return nil
    }

    private static func isFolder(_ path: String) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && folder.boolValue
    }

    /// The system's reason for a file error ("Permission denied"), rather than Foundation's
    /// "The operation could not be completed" with a domain and a code.
    private static func reason(_ error: any Error) -> String {
        if let underlying = (error as? CocoaError)?.underlying.map({ $0 as NSError }), underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        let text = error.localizedDescription
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }

    /// A file name for a throwback's collage: `alice-2023-11-19-3y.jpg`.
    static func name(for summary: ChartSummary) -> String {
        let day = ISO8601DateFormatter.string(from: summary.range.from, timeZone: .gmt, formatOptions: [.withFullDate])
        return "\(summary.user)-\(day)-\(summary.yearsAgo)y.jpg"
    }
}
