import Foundation

/// Replaces secrets (the bot token, the Last.fm key) in any text before it is logged or shown.
public struct SecretRedactor: Sendable {
    private let secrets: [String]

    public init(secrets: [Secret]) {
        // Longest first, so that a secret containing another is replaced whole. Very short
        // values are skipped: replacing every "a" would garble text without protecting anything.
        self.secrets = secrets.map { $0.reveal() }.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
    }

    /// Whether there is nothing to redact.
    public var isEmpty: Bool { secrets.isEmpty }

    public func redact(_ text: String) -> String {
        var text = text
        for secret in secrets where text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: "<redacted>")
        }
        return text
    }
}
