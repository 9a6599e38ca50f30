import Crypto
import Foundation
import Networking
import Telegram

// Webhook mode: the URL and secret checked as Telegram checks them, and the secret derived
// from the token when none is set.
extension BotConfiguration {
    /// Where the bot serves its own endpoints, which a webhook's path must not take.
    static let operationsPaths: Set<String> = ["/healthz", "/metrics"]

    /// `TELEGRAM_WEBHOOK_URL`, checked: Telegram posts only to HTTPS, and the bot serves the
    /// updates at the URL's path on `HTTP_PORT`, beside its own endpoints.
    static func webhookURL(_ raw: String) throws(ConfigurationError) -> URL {
        guard let url = URL(string: raw), url.scheme?.lowercased() == "https", let host = url.host, !host.isEmpty else {
            throw .invalid(
                key: "TELEGRAM_WEBHOOK_URL", value: raw,
                expected: "the public https URL of the bot, such as “https://bot.example.org/telegram” (Telegram posts only to HTTPS)"
            )
        }
        guard !operationsPaths.contains(url.path) else {
            throw .invalid(key: "TELEGRAM_WEBHOOK_URL", value: raw, expected: "a path other than /healthz and /metrics, which the bot serves itself")
        }
        return url
    }

    /// `TELEGRAM_WEBHOOK_SECRET`, checked against what `setWebhook` takes: 1–256 characters of
    /// A–Z, a–z, 0–9, `_` and `-`. The error never repeats it.
    static func webhookSecret(_ raw: String) throws(ConfigurationError) -> Secret {
        guard (1...256).contains(raw.count) else {
            throw .malformed(key: "TELEGRAM_WEBHOOK_SECRET", problem: "has \(raw.count) characters, where Telegram takes 1–256")
        }
        guard raw.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            throw .malformed(
                key: "TELEGRAM_WEBHOOK_SECRET", problem: "has a character Telegram does not take in a secret (only A–Z, a–z, 0–9, “_” and “-”)"
            )
        }
        return Secret(raw)
    }

    /// The webhook to set, or nil to poll.
    public func webhook(token: Secret, allowedUpdates: [String]) -> WebhookRegistration? {
        webhookURL.map {
            WebhookRegistration(url: $0, secret: webhookSecret(token: token), allowedUpdates: allowedUpdates, maxConnections: webhookMaxConnections)
        }
    }

    /// `TELEGRAM_WEBHOOK_SECRET`, or else the hex HMAC-SHA256 of “vinylogue-bot webhook secret”
    /// keyed with the bot token: every process with the same token agrees on it without more
    /// configuration, and it reveals nothing of the token. An operator gets the same with
    /// `printf %s 'vinylogue-bot webhook secret' | openssl dgst -sha256 -hmac "$TELEGRAM_BOT_TOKEN"`.
    public func webhookSecret(token: Secret) -> Secret {
        if let webhookSecret { return webhookSecret }
        let digest = HMAC<SHA256>.authenticationCode(
            for: Array("vinylogue-bot webhook secret".utf8), using: SymmetricKey(data: Array(token.reveal().utf8))
        )
        return Secret(digest.map { String($0, radix: 16).leftPadded(to: 2) }.joined())
    }

    /// A webhook without `HTTP_PORT` has nowhere to be served: the problem, or nil.
    var webhookPortProblem: ConfigurationError? {
        guard webhookURL != nil, httpPort == nil else { return nil }
        return .missing(
            key: "HTTP_PORT",
            hint: "TELEGRAM_WEBHOOK_URL is set, and Telegram’s updates arrive on the bot’s HTTP server; set the port your reverse proxy forwards to"
        )
    }
}

extension WebhookRegistration {
    /// The path the bot serves updates at: the URL's, or `/`.
    public var path: String { url.path.isEmpty ? "/" : url.path }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
