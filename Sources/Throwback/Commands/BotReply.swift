import LastFM

/// What the bot answers, before it is rendered for a terminal or for Telegram.
public enum BotReply: Sendable, Equatable {
    case throwback(ThrowbackOutcome)
    case text(String)
    /// Nothing to say (a guard chose silence).
    case silence

    /// The reply in the given markup, or nil for silence. Text replies are escaped for HTML
    /// and kept within the formatter's length.
    public func rendered(with formatter: ChartFormatter) -> String? {
        switch self {
        case .throwback(let outcome):
            formatter.format(outcome)
        case .text(let text):
            formatter.fitted(text, limit: formatter.maxLength)
        case .silence:
            nil
        }
    }
}
