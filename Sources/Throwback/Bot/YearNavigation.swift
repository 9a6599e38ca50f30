import Telegram

/// The ◀ / ▶ buttons under a throwback: an earlier or later year of the same user, each shown
/// only when that year has chart data. Callback data is `tb|<user>|<years>`, validated on
/// the way back in, because anyone can send any callback data.
public enum YearNavigation {
    public struct Target: Sendable, Equatable {
        public var user: String
        public var yearsAgo: Int

        public init(user: String, yearsAgo: Int) {
            self.user = user
            self.yearsAgo = yearsAgo
        }
    }

    public static func data(user: String, yearsAgo: Int) -> String {
        "tb|\(user)|\(yearsAgo)"
    }

    /// The target of a button, or nil for forged or stale data.
    public static func target(from data: String?) -> Target? {
        guard let data, data.utf8.count <= 64 else { return nil }
        let parts = data.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts[0] == "tb", LastFMName.isValid(parts[1]),
              let years = Int(parts[2]), ThrowbackEngine.yearRange.contains(years) else { return nil }
        return Target(user: parts[1], yearsAgo: years)
    }

    /// The buttons for a reply, or nil when there is nowhere to go.
    public static func keyboard(for reply: BotReply) -> InlineKeyboard? {
        guard case .throwback(.chart(let summary)) = reply else { return nil }
        var row: [InlineKeyboard.Button] = []
        let earlier = summary.yearsAgo + 1
        let later = summary.yearsAgo - 1
        if summary.canGoBack, ThrowbackEngine.yearRange.contains(earlier) {
            row.append(.init(text: "◀ \(WeekDescription.yearsAgoPhrase(earlier))", callbackData: data(user: summary.user, yearsAgo: earlier)))
        }
        if summary.canGoForward, ThrowbackEngine.yearRange.contains(later) {
            row.append(.init(text: "\(WeekDescription.yearsAgoPhrase(later)) ▶", callbackData: data(user: summary.user, yearsAgo: later)))
        }
        return row.isEmpty ? nil : InlineKeyboard(rows: [row])
    }
}
