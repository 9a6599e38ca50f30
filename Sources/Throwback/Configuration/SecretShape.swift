/// What is wrong with how a pasted token or key looks, found before any request: a request
/// with it could only fail, and say less. The answers never repeat the secret.
enum SecretShape {
    /// A bot token's shape, as @BotFather issues them: the bot's id, a colon, and this many
    /// characters of A–Z, a–z, 0–9, `_` and `-`.
    static let telegramSecretLength = 35
    static let lastFMKeyLength = 32

    /// Why `token` cannot be a bot token, or nil when it may be one.
    static func telegramTokenProblem(_ token: String) -> String? {
        // A pasted `https://api.telegram.org/bot<token>/getMe`, or part of one.
        if token.contains("/") {
            return "is a URL, not a token: keep only the part between “/bot” and the next “/”"
        }
        if let pasted = commonProblem(token, what: "token") { return pasted }
        if token.lowercased().hasPrefix("bot") {
            return "starts with “bot”, which belongs to the URL, not to the token: remove those three letters"
        }
        let parts = token.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let copyAgain = "a bot token is the bot’s id (digits), a colon and \(telegramSecretLength) characters; copy it again from @BotFather"
        guard parts.count == 2 else { return "has no colon: \(copyAgain)" }
        let (id, secret) = (parts[0], parts[1])
        guard !id.isEmpty, id.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return "does not start with the bot’s id: \(copyAgain)"
        }
        guard secret.count == telegramSecretLength else {
            return "has \(secret.count) characters after the colon, where a bot token has \(telegramSecretLength): copy it again from @BotFather"
        }
        guard secret.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            return "has a character after the colon that no bot token has (only A–Z, a–z, 0–9, “_” and “-”): copy it again from @BotFather"
        }
        return nil
    }

    /// Why `key` cannot be a Last.fm API key, or nil when it may be one. `hexOnly`: the key is
    /// for Last.fm itself, whose keys are lowercase hexadecimal.
    static func lastFMKeyProblem(_ key: String, hexOnly: Bool) -> String? {
        if key.contains("/") || key.contains("=") {
            return "is a URL, not a key: the key is the \(lastFMKeyLength) characters shown as “API key” at https://www.last.fm/api/accounts"
        }
        if let pasted = commonProblem(key, what: "key") { return pasted }
        if key.count < lastFMKeyLength { return "is too short (\(key.count) characters; Last.fm keys have \(lastFMKeyLength))" }
        if key.count > lastFMKeyLength { return "is too long (\(key.count) characters; Last.fm keys have \(lastFMKeyLength))" }
        if hexOnly, !key.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) {
            return "has characters no Last.fm key has: its \(lastFMKeyLength) characters are 0–9 and a–f; copy it again from https://www.last.fm/api/accounts"
        }
        return nil
    }

    /// What pasting often gets wrong, whatever the secret: a space, a line break, quotes.
    private static func commonProblem(_ value: String, what: String) -> String? {
        if value.contains(where: \.isNewline) { return "has a line break in it: a \(what) is one line; paste it again" }
        if value.contains(where: \.isWhitespace) { return "has a space in it: a \(what) has none; paste it again in one piece" }
        if value.contains(where: { "\"'`“”‘’«»".contains($0) }) { return "has a quotation mark in it: a \(what) has none; remove it" }
        return nil
    }
}
