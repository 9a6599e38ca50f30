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
        // The byte first: most group chatter is refused without a grapheme check.
        guard !requireSlash || (text.utf8.first == UInt8(ascii: "/") && text.hasPrefix("/")) else { return .notACommand }
        var words = Self.words(of: text)
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
        let lowercased = word.lowercased()
        guard let spec = specs.first(where: { $0.matches(lowercased) }) else {
            return slashed ? .unknownCommand(word) : .notACommand
        }
        if text.utf8.count > Self.maxCommandLength, text.count > Self.maxCommandLength { return .tooLong(spec) }
        return .command(spec, arguments: words)
    }

    /// The whitespace-separated words of a message's first `maxCommandLength + 1` characters.
    /// Short ASCII text, nearly every command, is split by byte: the same words, without
    /// looking up each character's Unicode properties.
    static func words(of text: String) -> [String] {
        let bytes = text.utf8
        guard bytes.count <= maxCommandLength, bytes.allSatisfy({ $0 < 0x80 }) else {
            return text.prefix(maxCommandLength + 1).split(whereSeparator: \.isWhitespace).map(String.init)
        }
        return bytes.split(whereSeparator: ASCIIByte.isWhitespace).map { String(Substring($0)) }
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
        isValid(name.utf8)
    }

    /// The same rules on UTF-8: they allow ASCII only, so a byte is a character.
    static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        guard (2...15).contains(bytes.count), let first = bytes.first, ASCIIByte.isLetter(first) else { return false }
        return bytes.allSatisfy { ASCIIByte.isLetterOrDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }
}

/// Character classes of ASCII bytes, for text whose rules allow ASCII only.
enum ASCIIByte {
    static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// The ASCII characters with Unicode's White_Space property: tab, line feed, vertical
    /// tab, form feed, carriage return and space.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || (byte >= 0x09 && byte <= 0x0D)
    }
}
