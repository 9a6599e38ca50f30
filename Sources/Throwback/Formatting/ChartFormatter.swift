import Foundation
import Networking
import Telegram
import WeeklyCharts

/// Renders throwbacks as plain text (console) or Telegram HTML.
///
/// Both renderings share one layout; they differ only in markup and escaping. Long charts are
/// cut to `maxAlbums` rows with a "…and N more" line, then further if the text would pass
/// `maxLength` (Telegram's 4096, counted in UTF-16 units as Telegram does).
public struct ChartFormatter: Sendable, Hashable {
    public enum Markup: Sendable, Hashable {
        case plain
        case telegramHTML
    }

    public var markup: Markup
    public var maxAlbums: Int
    public var maxLength: Int
    /// The language of its words, dates and numbers.
    public var language: Language

    public init(markup: Markup, maxAlbums: Int = 10, maxLength: Int = 4096, language: Language = .english) {
        self.markup = markup
        self.maxAlbums = max(1, maxAlbums)
        self.maxLength = maxLength
        self.language = language
    }

    /// The same formatter, in `language`.
    public func speaking(_ language: Language) -> ChartFormatter {
        var copy = self
        copy.language = language
        return copy
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
            return words(.chartNoHistory, bold(user, limit: Self.maxUserLength), Self.service(of: user))
        case let .beforeHistory(user, yearsAgo, start, earliest):
            var text = words(
                .chartBeforeHistory, bold(user, limit: Self.maxUserLength), escape(Self.service(of: user)),
                escape(WeekDescription.day(start, in: language)), escape(language.yearsAgo(yearsAgo))
            )
            if let earliest {
                text += " " + escape(language.text(.chartTryFewer, language.count(earliest, .years)))
            }
            return text
        }
    }

    /// The service whose history `user` (a stored name, `lb:bob`) is.
    private static func service(of user: String) -> String {
        (ListenerName(parsing: user)?.source ?? .lastFM).serviceName
    }

    /// The summary's message. A past week's chart never changes, so neither does its text:
    /// recent renderings are kept, and a burst of the same throwback (or the keystrokes of
    /// an inline query) formats it once.
    public func format(_ summary: ChartSummary) -> String {
        let key = Rendering(formatter: self, summary: summary)
        if let text = Self.renderings.value(forKey: key) { return text }
        let text = render(summary)
        Self.renderings.set(text, forKey: key)
        return text
    }

    /// Recent renderings, by formatter and summary: at most 64 messages, a chart's message
    /// typically under a kilobyte.
    private static let renderings = SharedBoundedCache<Rendering, String>(capacity: 64)

    private func render(_ summary: ChartSummary) -> String {
        // One buffer for the whole message, its length in UTF-16 units kept as it grows.
        var text = FormattedText()
        appendBold(summary.user, limit: Self.maxUserLength, to: &text)
        text.append(literal: " · ")
        text.append(escape(WeekDescription.week(summary.range, yearsAgo: summary.yearsAgo, in: language)))
        guard !summary.albums.isEmpty else {
            let reason = summary.hiddenCount > 0
                ? language.text(.chartOnlyFiltered, language.count(summary.minimumPlayCount, .plays), language.count(summary.hiddenCount, .albums))
                : language.text(.chartNoScrobbles)
            text.append(literal: "\n")
            text.append(escape(reason))
            return text.string
        }
        // Where each row ends, to drop rows from the end until the message fits, counting
        // UTF-16 units as Telegram does.
        var rowEnds: [(bytes: Int, units: Int)] = []
        for (index, album) in summary.albums.prefix(maxAlbums).enumerated() {
            text.append(literal: "\n")
            text.append(index + 1)
            text.append(literal: ". ")
            appendLine(album, nameLimit: Self.maxNameLength, to: &text)
            rowEnds.append((text.byteCount, text.units))
        }
        var shown = rowEnds.count
        while shown > 1, rowEnds[shown - 1].units + trailer(summary, shown: shown).utf16.count > maxLength {
            shown -= 1
        }
        text.cut(toBytes: rowEnds[shown - 1].bytes, units: rowEnds[shown - 1].units)
        text.append(trailer(summary, shown: shown))
        return text.string
    }

    /// "<b>Artist</b> – Album (N plays)".
    func line(_ album: ChartAlbum, nameLimit: Int = maxNameLength) -> String {
        var text = FormattedText()
        appendLine(album, nameLimit: nameLimit, to: &text)
        return text.string
    }

    private func appendLine(_ album: ChartAlbum, nameLimit: Int, to text: inout FormattedText) {
        appendBold(album.artist, limit: nameLimit, to: &text)
        text.append(literal: " – ")
        appendFitted(album.name, limit: nameLimit, to: &text)
        text.append(literal: " (")
        text.append(escape(language.count(album.playCount, .plays)))
        text.append(literal: ")")
    }

    /// "…and N more albums." and the filter line, each on a line of its own.
    private func trailer(_ summary: ChartSummary, shown: Int) -> String {
        var text = ""
        let more = summary.albums.count - shown
        if more > 0 {
            text += "\n" + escape(language.count(more, .moreAlbums))
        }
        if summary.hiddenCount > 0 {
            text += "\n" + escape(language.text(.chartHiddenUnder, language.count(summary.hiddenCount, .albums), language.count(summary.minimumPlayCount, .plays)))
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
        var out = FormattedText()
        appendFitted(text, limit: limit, to: &out)
        return out.string
    }

    private func appendFitted(_ text: String, limit: Int, to out: inout FormattedText) {
        if out.appendEscaped(text, html: markup == .telegramHTML, ifWithin: limit) { return }
        // Too long: measure each character's escaped size without building it, then escape
        // the prefix that fits.
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
        _ = out.appendEscaped(String(text[..<end]), html: markup == .telegramHTML, ifWithin: .max)
        out.append(literal: "…")
    }

    func bold(_ text: String, limit: Int) -> String {
        var out = FormattedText()
        appendBold(text, limit: limit, to: &out)
        return out.string
    }

    private func appendBold(_ text: String, limit: Int, to out: inout FormattedText) {
        if markup == .telegramHTML { out.append(literal: "<b>") }
        appendFitted(text, limit: limit, to: &out)
        if markup == .telegramHTML { out.append(literal: "</b>") }
    }

    /// `phrase` in the formatter's language and markup: its own words escaped, `arguments`
    /// (already in the markup) put in as they are.
    func words(_ phrase: Phrase, _ arguments: String...) -> String {
        let template = Catalog.shared.template(phrase, in: language)
        switch markup {
        case .plain: return template.filled(arguments)
        case .telegramHTML: return template.filled(arguments) { TelegramHTML.escape($0) }
        }
    }

    func escape(_ text: String) -> String {
        switch markup {
        case .plain: text
        case .telegramHTML: TelegramHTML.escape(text)
        }
    }
}

/// What a summary's rendering depends on: the formatter, and the parts of the summary its
/// text shows. Names are compared by their bytes, not as `String`s are (by canonical
/// equivalence): the text keeps a name's scalars as they came.
private struct Rendering: Hashable, Sendable {
    let formatter: ChartFormatter
    let summary: ChartSummary

    static func == (a: Rendering, b: Rendering) -> Bool {
        let (x, y) = (a.summary, b.summary)
        return a.formatter == b.formatter && same(x.user, y.user) && x.range == y.range && x.yearsAgo == y.yearsAgo
            && x.hiddenCount == y.hiddenCount && x.minimumPlayCount == y.minimumPlayCount && x.albums.count == y.albums.count
            // A chart from the answers cache gives its summaries one array of albums: the same
            // albums, byte for byte, with nothing to compare.
            && (sameStorage(x.albums, y.albums)
                // By index, reading fields in place: a zip would copy every album.
                || (0..<max(0, min(x.albums.count, a.formatter.maxAlbums))).allSatisfy { index in
                    same(x.albums[index].artist, y.albums[index].artist) && same(x.albums[index].name, y.albums[index].name)
                        && x.albums[index].playCount == y.albums[index].playCount
                })
    }

    private static func sameStorage(_ a: [ChartAlbum], _ b: [ChartAlbum]) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }

    private static func same(_ a: String, _ b: String) -> Bool {
        // Over the bytes in place where the strings have them (nearly always): walking the
        // `utf8` views a byte at a time was 3% of a warm burst's instructions.
        let inPlace = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in x.count == y.count && (x.baseAddress == y.baseAddress || x.elementsEqual(y)) }
        }
        return inPlace.flatMap { $0 } ?? a.utf8.elementsEqual(b.utf8)
    }

    /// The user and the week tell renderings apart; equality checks the albums.
    func hash(into hasher: inout Hasher) {
        hasher.combine(formatter)
        hasher.combine(summary.user)
        hasher.combine(summary.range)
        hasher.combine(summary.yearsAgo)
        hasher.combine(summary.minimumPlayCount)
    }
}
