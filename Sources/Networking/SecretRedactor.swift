import Foundation

/// Replaces secrets (the bot token, the Last.fm key) in any text before it is logged or shown.
public struct SecretRedactor: Sendable {
    private let secrets: [String]

    public init(secrets: [String]) {
        // Longest first, so that a secret containing another is replaced whole.
        self.secrets = secrets.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
    }

    public func redact(_ text: String) -> String {
        secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: "<redacted>") }
    }
}
