import Foundation

/// One message of a weekly post, as it goes out.
public enum WeeklyPostMessage: Sendable, Equatable {
    /// The collage of the chat's week, with the post's header as its caption.
    case collage(jpeg: Data, caption: String)
    /// Users' sections, packed; the first opens with the header when there is no collage.
    case text(String)

    /// The message's text: the caption of a collage.
    public var text: String {
        switch self {
        case .collage(_, let caption): caption
        case .text(let text): text
        }
    }
}

/// How a weekly post is split into messages: the collage (where covers are on), then the
/// sections, packed. The poster and the preview share one, so that a preview is split
/// exactly as the post goes out.
public struct WeeklyPostLayout: Sendable {
    /// Formats the header and the sections, and packs them within its `maxLength`.
    public let formatter: ChartFormatter
    private let photos: CollagePhotos?

    /// - Parameter photos: draws the collage; nil posts text only.
    public init(formatter: ChartFormatter, photos: CollagePhotos?) {
        self.formatter = formatter
        self.photos = photos
    }

    /// The messages of a post due at `instant` with these users' entries. With `covers` on, the
    /// post opens with one collage of the roster's combined top albums; without a picture
    /// (covers off, or none could be drawn), the header opens the first text instead. Its
    /// words are in `language`, the chat's.
    public func messages(of entries: [WeeklyEntry], dueAt instant: Date, covers: Bool, in language: Language = .english) async -> [WeeklyPostMessage] {
        let formatter = formatter.speaking(language)
        var header: String? = formatter.weeklyHeader(for: WeeklyPostComposer.week(at: instant))
        var messages: [WeeklyPostMessage] = []
        if let caption = header, covers, let photos, let collage = await photos.collage(of: WeeklyPoster.combinedTopAlbums(of: entries)) {
            messages.append(.collage(jpeg: collage.jpeg, caption: caption))
            header = nil
        }
        for message in formatter.weeklyMessages(header: header, sections: entries.map(formatter.weeklySection)) {
            messages.append(.text(message.text))
        }
        return messages
    }

    /// Fetches ahead the covers the collage of a post with these entries would show, without
    /// drawing it: the post then finds them cached at its minute.
    public func fetchCovers(of entries: [WeeklyEntry], covers: Bool) async {
        guard covers, let photos else { return }
        await photos.fetchCovers(of: WeeklyPoster.combinedTopAlbums(of: entries))
    }
}
