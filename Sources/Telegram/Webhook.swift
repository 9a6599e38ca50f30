import Foundation
import Networking

/// What `getWebhookInfo` says about the bot's webhook: where it is, how many updates wait for
/// it, and the last error Telegram had delivering to it. An empty `url` means none is set.
public struct WebhookInfo: JSONReadable, Sendable, Equatable {
    public var url: String
    public var pendingUpdateCount: Int64
    public var lastErrorDate: Date?
    public var lastErrorMessage: String?
    public var maxConnections: Int64?

    public init(url: String, pendingUpdateCount: Int64, lastErrorDate: Date? = nil, lastErrorMessage: String? = nil, maxConnections: Int64? = nil) {
        self.url = url
        self.pendingUpdateCount = pendingUpdateCount
        self.lastErrorDate = lastErrorDate
        self.lastErrorMessage = lastErrorMessage
        self.maxConnections = maxConnections
    }

    public init(json: JSONNode) throws {
        url = try json.required("url") { $0.string }
        pendingUpdateCount = try json.required("pending_update_count") { $0.int64 }
        lastErrorDate = try json.optional("last_error_date") { $0.int64 }.map { Date(timeIntervalSince1970: TimeInterval($0)) }
        lastErrorMessage = try json.optional("last_error_message") { $0.string }
        maxConnections = try json.optional("max_connections") { $0.int64 }
    }
}

/// The webhook the bot asks Telegram for (`setWebhook`).
public struct WebhookRegistration: Sendable {
    /// The public HTTPS URL Telegram posts updates to.
    public var url: URL
    /// Sent back by Telegram in `X-Telegram-Bot-Api-Secret-Token` with every update.
    public var secret: Secret
    public var allowedUpdates: [String]
    /// How many connections Telegram may hold open to the bot at once (1–100).
    public var maxConnections: Int

    public init(url: URL, secret: Secret, allowedUpdates: [String], maxConnections: Int) {
        self.url = url
        self.secret = secret
        self.allowedUpdates = allowedUpdates
        self.maxConnections = maxConnections
    }

    /// The header Telegram carries the secret in.
    public static let secretHeader = "X-Telegram-Bot-Api-Secret-Token"
}

extension TelegramRequest {
    /// Sets the webhook; pending updates are kept, to be posted to it.
    public static func setWebhook(_ webhook: WebhookRegistration) -> TelegramRequest<TelegramOK> {
        .init(method: "setWebhook", parameters: [
            "url": .string(webhook.url.absoluteString), "secret_token": .string(webhook.secret.reveal()),
            "allowed_updates": .array(webhook.allowedUpdates.map(JSONValue.string)), "max_connections": .int(Int64(webhook.maxConnections)),
            "drop_pending_updates": .bool(false),
        ])
    }

    public static func getWebhookInfo() -> TelegramRequest<WebhookInfo> {
        .init(method: "getWebhookInfo")
    }
}

extension TelegramClient {
    public func setWebhook(_ webhook: WebhookRegistration) async throws {
        _ = try await send(.setWebhook(webhook))
    }

    public func getWebhookInfo() async throws -> WebhookInfo {
        try await send(.getWebhookInfo())
    }
}

extension ReceivedUpdate {
    /// One update as Telegram posts it to a webhook: the body is the update itself. Throws
    /// when the body is no JSON object with an `update_id`.
    public init(webhookBody body: [UInt8]) throws {
        try self.init(json: JSONNode(parsing: body))
    }
}
