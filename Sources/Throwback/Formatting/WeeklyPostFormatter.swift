import WeeklyCharts

import Foundation

/// The text of a weekly post: a header, then one section per tracked user, packed into as
/// few messages as fit Telegram's limit, split only between users.
extension ChartFormatter {
    /// Albums each user shows in a weekly post.
    static let weeklyAlbums = 5
    /// Names in a weekly post are shorter, so that a whole section always fits a message
    /// (5 rows and 2 anniversaries of at most 2 × 150 units each, plus the user's name).
    static let weeklyNameLength = 150

    /// "This week one year ago: 16–22 Nov 2025".
    public func weeklyHeader(for week: WeeklyChartRange) -> String {
        bold(language.text(.weeklyHeader, WeekDescription.days(of: week, in: language)), limit: Self.maxNameLength)
    }

    /// One user's section.
    public func weeklySection(_ entry: WeeklyEntry) -> String {
        let name = bold(entry.user, limit: Self.maxUserLength)
        // The service is named by the name's prefix: the formatter knows no more of sources.
        let service = (ListenerName(parsing: entry.user)?.source ?? .lastFM).serviceName
        switch entry.content {
        case .quiet:
            return words(.weeklyQuiet, name)
        case .privateProfile:
            return words(.servicePrivate, name, escape(service))
        case .accountGone:
            return words(.weeklyAccountGone, name, escape(service))
        case .unavailable:
            return words(.weeklyUnavailable, name, escape(service))
        case let .chart(summary, anniversaries):
            var lines = [name]
            if summary.albums.isEmpty {
                lines.append(escape(language.text(.weeklyOnlyFiltered, language.count(summary.minimumPlayCount, .plays))))
            }
            for (index, album) in summary.albums.prefix(Self.weeklyAlbums).enumerated() {
                lines.append("\(index + 1). \(line(album, nameLimit: Self.weeklyNameLength))")
            }
            let more = summary.albums.count - Self.weeklyAlbums
            if more > 0 { lines.append(escape(language.count(more, .moreAlbums))) }
            for anniversary in anniversaries {
                guard let top = anniversary.albums.first else { continue }
                let when = escape(language.yearsAgo(anniversary.yearsAgo).capitalizedFirst)
                lines.append(words(.weeklyAnniversary, when, line(top, nameLimit: Self.weeklyNameLength)))
            }
            return lines.joined(separator: "\n")
        }
    }

    /// Packs sections into messages of at most `maxLength` UTF-16 units, in order, never
    /// splitting a section (each fits a message by construction); `header` opens the first
    /// message if given.
    ///
    /// - Returns: each message's text and the indices of the sections it carries.
    public func weeklyMessages(header: String?, sections: [String]) -> [(text: String, sections: [Int])] {
        var messages: [(text: String, sections: [Int])] = []
        var text = header ?? ""
        var members: [Int] = []
        for (index, section) in sections.enumerated() {
            let joined = text.isEmpty ? section : text + "\n\n" + section
            if joined.utf16.count <= maxLength {
                text = joined
            } else {
                if !members.isEmpty || !text.isEmpty { messages.append((text, members)) }
                text = section
                members = []
            }
            members.append(index)
        }
        if !members.isEmpty { messages.append((text, members)) }
        return messages
    }
}

extension String {
    /// The first letter in upper case: "one" → "One".
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
