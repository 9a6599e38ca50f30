/// Turns a chat message into a command, following the chat grammar: an optional leading `/`,
/// an optional `@BotName` after the command word, and a case-insensitive command word.
public struct CommandParser: Sendable {
    /// The bot's own username, without `@`. A command addressed to another bot is ignored.
    public var botUsername: String?

    public init(botUsername: String? = nil) {
        self.botUsername = botUsername
    }

    public func parse(_ text: String) -> ParseResult {
        var words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty else { return .notACommand }
        var word = words.removeFirst()
        let slashed = word.hasPrefix("/")
        if slashed { word.removeFirst() }
        if let at = word.firstIndex(of: "@") {
            let addressee = word[word.index(after: at)...]
            word = String(word[..<at])
            if let botUsername, addressee.lowercased() != botUsername.lowercased() {
                return .addressedToAnotherBot
            }
        }
        let lowered = word.lowercased()
        guard let spec = CommandSpec.all.first(where: { $0.name == lowered || $0.aliases.contains(lowered) }) else {
            return slashed ? .unknownCommand(word) : .notACommand
        }
        switch spec.name {
        case CommandSpec.throwback.name:
            return parseThrowback(words)
        default:
            return .command(.help)
        }
    }

    private func parseThrowback(_ arguments: [String]) -> ParseResult {
        let usage = ParseResult.usage(spec: .throwback, problem: nil)
        var user = UserReference.me
        var years = 1
        var rest = arguments[...]
        // A bare number is years: Last.fm names start with a letter.
        if let first = rest.first, Self.years(first) == nil {
            if first.lowercased() != "me" {
                guard LastFMName.isValid(first) else {
                    return .usage(spec: .throwback, problem: "“\(first.prefix(40))” is not a Last.fm username.")
                }
                user = .lastFM(first)
            }
            rest = rest.dropFirst()
        }
        if let next = rest.first {
            guard let parsed = Self.years(next) else {
                return .usage(spec: .throwback, problem: "“\(next.prefix(40))” is not a number of years.")
            }
            years = parsed
            rest = rest.dropFirst()
        }
        guard rest.isEmpty else { return usage }
        guard ThrowbackEngine.yearRange.contains(years) else {
            return .usage(spec: .throwback, problem: ThrowbackError.yearsOutOfRange(years).userMessage)
        }
        return .command(.throwback(user: user, yearsAgo: years))
    }

    /// `3` or `3y`, possibly negative so that the range check can name it.
    static func years(_ word: String) -> Int? {
        var digits = word.lowercased()
        if digits.hasSuffix("y") { digits.removeLast() }
        guard digits.count <= 6 else { return digits.allSatisfy(\.isNumber) ? 999_999 : nil }
        return Int(digits)
    }
}

/// What a message amounts to.
public enum ParseResult: Sendable, Equatable {
    case command(ChatCommand)
    /// A known command with arguments that do not fit; `problem` says which, if known.
    case usage(spec: CommandSpec, problem: String?)
    /// `/something` that is not a command of this bot.
    case unknownCommand(String)
    /// `/command@OtherBot`.
    case addressedToAnotherBot
    /// Ordinary chat text.
    case notACommand

    /// The short reply for a usage error.
    public var usageMessage: String? {
        guard case let .usage(spec, problem) = self else { return nil }
        let hint = "Usage: \(spec.usage)"
        return problem.map { "\($0) \(hint)" } ?? hint
    }
}

/// Last.fm's username rules: 2–15 characters, a letter first, then letters, digits, `_` or `-`.
public enum LastFMName {
    public static func isValid(_ name: String) -> Bool {
        guard (2...15).contains(name.count), let first = name.first, first.isASCII, first.isLetter else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }
}
