import Foundation
import LastFM
import Telegram

/// Renders throwbacks as plain text (console) or Telegram HTML.
///
/// Both renderings share one layout; they differ only in markup and escaping. Long charts are
/// cut to `maxAlbums` rows with a "…and N more" line, then further if the text would pass
/// `maxLength` (Telegram's 4096, counted in UTF-16 units as Telegram does).
public struct ChartFormatter: Sendable {
    public enum Markup: Sendable {
        case plain
        case telegramHTML
    }

    public var markup: Markup
    public var maxAlbums: Int
    public var maxLength: Int

    public init(markup: Markup, maxAlbums: Int = 10, maxLength: Int = 4096) {
        self.markup = markup
        self.maxAlbums = max(1, maxAlbums)
        self.maxLength = maxLength
    }

    /// Plain text for a terminal.
    public static let plain = ChartFormatter(markup: .plain, maxLength: .max)
    /// HTML for Telegram's `parse_mode=HTML`, within its 4096-character limit.
    public static let telegram = ChartFormatter(markup: .telegramHTML)

    public func format(_ outcome: ThrowbackOutcome) -> String {
        switch outcome {
        case .chart(let summary):
            return format(summary)
        case .noHistory(let user):
            return "\(bold(user, limit: Self.maxUserLength)) has no listening history on Last.fm yet."
        case let .beforeHistory(user, yearsAgo, start, earliest):
            var text = "\(bold(user, limit: Self.maxUserLength))’s Last.fm history starts in the week of \(WeekDescription.day(start)), "
                + "so \(WeekDescription.yearsAgoPhrase(yearsAgo)) is too far back."
            if let earliest {
                text += " Try \(WeekDescription.count(earliest, "year")) or fewer."
            }
            return text
        }
    }

    public func format(_ summary: ChartSummary) -> String {
        let header = "\(bold(summary.user, limit: Self.maxUserLength)) · \(WeekDescription.week(summary.range, yearsAgo: summary.yearsAgo))"
        guard !summary.albums.isEmpty else {
            let reason = summary.hiddenCount > 0
                ? "Only albums under the \(WeekDescription.count(summary.minimumPlayCount, "play")) filter that week "
                    + "(\(WeekDescription.count(summary.hiddenCount, "album")) hidden)."
                : "No scrobbles that week."
            return header + "\n" + reason
        }
        let rows = summary.albums.prefix(maxAlbums).enumerated().map { index, album in "\(index + 1). \(line(album))" }
        // Drop rows from the end until the message fits, counting UTF-16 units as Telegram does.
        var shown = rows.count
        var length = header.utf16.count + rows.reduce(0) { $0 + 1 + $1.utf16.count }
        while shown > 1, length + trailer(summary, shown: shown).utf16.count > maxLength {
            length -= 1 + rows[shown - 1].utf16.count
            shown -= 1
        }
        return ([header] + rows.prefix(shown)).joined(separator: "\n") + trailer(summary, shown: shown)
    }

    /// "<b>Artist</b> – Album (N plays)".
    func line(_ album: ChartAlbum, nameLimit: Int = maxNameLength) -> String {
        "\(bold(album.artist, limit: nameLimit)) – \(fitted(album.name, limit: nameLimit)) (\(WeekDescription.count(album.playCount, "play")))"
    }

    /// "…and N more albums." and the filter line, each on a line of its own.
    private func trailer(_ summary: ChartSummary, shown: Int) -> String {
        var text = ""
        let more = summary.albums.count - shown
        if more > 0 {
            text += "\n…and \(more) more \(more == 1 ? "album" : "albums")."
        }
        if summary.hiddenCount > 0 {
            text += "\n\(WeekDescription.count(summary.hiddenCount, "album")) under \(WeekDescription.count(summary.minimumPlayCount, "play")) hidden."
        }
        return text
    }

    /// The most UTF-16 units an album or artist name may take once escaped, so that a header
    /// and one row always fit a message, whatever the server sends.
    static let maxNameLength = 300
    /// The same for a user name, which also appears in every header.
    static let maxUserLength = 120

    /// `text`, escaped for the markup, and cut at a character boundary (with "…") so that it
    /// takes at most `limit` UTF-16 units.
    public func fitted(_ text: String, limit: Int) -> String {
        let whole = escape(text)
        guard whole.utf16.count > limit else { return whole }
        // Measure each character's escaped size without building it, then escape the prefix once.
        var units = 0
        var end = text.startIndex
        for index in text.indices {
            let size = text[index].unicodeScalars.reduce(0) { total, scalar in
                total + (markup == .plain ? scalar.utf16.count : TelegramHTML.escapedLength(scalar))
            }
            guard units + size < limit else { break }
            units += size
            end = text.index(after: index)
        }
        return escape(String(text[..<end])) + "…"
    }

    func bold(_ text: String, limit: Int) -> String {
        switch markup {
        case .plain: fitted(text, limit: limit)
        case .telegramHTML: "<b>\(fitted(text, limit: limit))</b>"
        }
    }

    func escape(_ text: String) -> String {
        switch markup {
        case .plain: text
        case .telegramHTML: TelegramHTML.escape(text)
        }
    }
}
