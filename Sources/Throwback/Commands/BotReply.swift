import LastFM
import Telegram

/// What the bot answers, before it is rendered for a terminal or for Telegram.
public enum BotReply: Sendable, Equatable {
    case throwback(ThrowbackOutcome)
    case text(String)

    /// The reply in the given markup. Text replies are escaped for HTML like chart names.
    public func rendered(with formatter: ChartFormatter) -> String {
        switch self {
        case .throwback(let outcome):
            formatter.format(outcome)
        case .text(let text):
            formatter.markup == .telegramHTML ? TelegramHTML.escape(text) : text
        }
    }
}

/// The `help` text, generated from the command declarations.
public enum HelpText {
    public static func render(_ specs: [CommandSpec] = CommandSpec.all) -> String {
        var lines = ["I bring back your music history from Last.fm. Commands (the / is optional):"]
        for spec in specs {
            let aliases = spec.aliases.isEmpty ? "" : " (also \(spec.aliases.joined(separator: ", ")))"
            lines.append("• \(spec.usage)\(aliases): \(spec.summary)")
        }
        lines.append("Example: throwback rj 3")
        return lines.joined(separator: "\n")
    }
}
