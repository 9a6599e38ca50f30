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
            return "\(bold(user)) has no listening history on Last.fm yet."
        case let .beforeHistory(user, yearsAgo, start, earliest):
            var text = "\(bold(user))’s Last.fm history starts in the week of \(WeekDescription.day(start)), "
                + "so \(WeekDescription.yearsAgoPhrase(yearsAgo)) is too far back."
            if let earliest {
                text += " Try \(WeekDescription.count(earliest, "year")) or fewer."
            }
            return text
        }
    }

    public func format(_ summary: ChartSummary) -> String {
        let header = "\(bold(summary.user)) · \(WeekDescription.week(summary.range, yearsAgo: summary.yearsAgo))"
        guard !summary.albums.isEmpty else {
            let reason = summary.hiddenCount > 0
                ? "Only albums under the \(WeekDescription.count(summary.minimumPlayCount, "play")) filter that week "
                    + "(\(WeekDescription.count(summary.hiddenCount, "album")) hidden)."
                : "No scrobbles that week."
            return header + "\n" + reason
        }
        var rows = min(summary.albums.count, maxAlbums)
        while true {
            let text = render(summary, header: header, rows: rows)
            if text.utf16.count <= maxLength || rows == 1 { return text }
            rows -= 1
        }
    }

    private func render(_ summary: ChartSummary, header: String, rows: Int) -> String {
        var lines = [header]
        for (index, album) in summary.albums.prefix(rows).enumerated() {
            lines.append("\(index + 1). \(bold(shorten(album.artist))) – \(escape(shorten(album.name))) (\(WeekDescription.count(album.playCount, "play")))")
        }
        let more = summary.albums.count - rows
        if more > 0 {
            lines.append("…and \(more) more \(more == 1 ? "album" : "albums").")
        }
        if summary.hiddenCount > 0 {
            lines.append("\(WeekDescription.count(summary.hiddenCount, "album")) under \(WeekDescription.count(summary.minimumPlayCount, "play")) hidden.")
        }
        return lines.joined(separator: "\n")
    }

    /// Names are cut to this many characters, so that even one escaped row fits a message.
    static let maxNameLength = 300

    private func shorten(_ name: String) -> String {
        name.count > Self.maxNameLength ? String(name.prefix(Self.maxNameLength - 1)) + "…" : name
    }

    private func bold(_ text: String) -> String {
        switch markup {
        case .plain: text
        case .telegramHTML: "<b>\(TelegramHTML.escape(text))</b>"
        }
    }

    private func escape(_ text: String) -> String {
        switch markup {
        case .plain: text
        case .telegramHTML: TelegramHTML.escape(text)
        }
    }
}
