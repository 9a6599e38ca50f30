/// Splits a chat message into a command word and its arguments, following the chat grammar:
/// an optional leading `/`, an optional `@BotName` after the command word, and a
/// case-insensitive command word.
public struct CommandParser: Sendable {
    /// The bot's own username, without `@`. A command addressed to another bot is ignored.
    public var botUsername: String?
    /// Messages longer than this are not commands; nobody types a 4 KB command.
    public static let maxCommandLength = 512

    public init(botUsername: String? = nil) {
        self.botUsername = botUsername
    }

    /// What `text` is, given the known command declarations.
    ///
    /// - Parameter requireSlash: only text that starts with `/` is a command. In groups a bot
    ///   without privacy mode sees every message, and "help me carry the couch" is chat.
    public func parse(_ text: String, specs: [CommandSpec], requireSlash: Bool = false) -> ParsedMessage {
        guard !requireSlash || text.hasPrefix("/") else { return .notACommand }
        var words = text.prefix(Self.maxCommandLength + 1).split(whereSeparator: \.isWhitespace).map(String.init)
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
        guard let spec = specs.first(where: { $0.matches(word.lowercased()) }) else {
            return slashed ? .unknownCommand(word) : .notACommand
        }
        if text.count > Self.maxCommandLength { return .tooLong(spec) }
        return .command(spec, arguments: words)
    }

    /// `3` or `3y`, possibly negative so that the range check can name it. A number too long
    /// to read is `Int.max`, out of every range.
    static func years(_ word: String) -> Int? {
        var digits = word.lowercased()
        if digits.hasSuffix("y") { digits.removeLast() }
        guard digits.count <= 6 else { return digits.allSatisfy { $0.isASCII && $0.isNumber } ? Int.max : nil }
        return Int(digits)
    }
}

/// What a message amounts to.
public enum ParsedMessage: Sendable, Equatable {
    case command(CommandSpec, arguments: [String])
    /// A command word followed by an absurd amount of text.
    case tooLong(CommandSpec)
    /// `/something` that is not a command of this bot.
    case unknownCommand(String)
    /// `/command@OtherBot`.
    case addressedToAnotherBot
    /// Ordinary chat text.
    case notACommand
}

/// Last.fm's username rules: 2–15 characters, a letter first, then letters, digits, `_` or `-`.
public enum LastFMName {
    public static func isValid(_ name: String) -> Bool {
        guard (2...15).contains(name.count), let first = name.first, first.isASCII, first.isLetter else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }
}
