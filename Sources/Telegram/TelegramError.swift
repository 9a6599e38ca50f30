import Networking

/// Every way a Bot API call can fail. Descriptions never contain the bot token.
public enum TelegramError: ServiceFailure, Equatable {
    /// 429: flood control; wait this many seconds.
    case retryAfter(seconds: Int)
    /// 400 with `migrate_to_chat_id`: the group became a supergroup with this id.
    case chatMigrated(to: Int64)
    /// 401: the token is wrong or revoked.
    case unauthorized
    /// 404: no Bot API at this URL for this token: the API URL is wrong, or the token is
    /// malformed (the Bot API answers 404 for those too).
    case notFound
    /// 409: another poller, or a webhook, is active.
    case conflict(String)
    /// 403: the bot was blocked, kicked, or cannot write to the chat.
    case forbidden(String)
    /// 400 (or another 4xx) with Telegram's description.
    case badRequest(String)
    /// 5xx from the Bot API server.
    case server(status: Int, description: String)
    /// No HTTP response. `mayHaveBeenDelivered` is false when the request never left.
    case transport(String, mayHaveBeenDelivered: Bool)
    /// A response that is not the Bot API's JSON.
    case undecodable(String)

    /// What Telegram did with the call: no connection, a connect timeout, a request libcurl
    /// never wrote, a flood wait and a 5xx other than the 504 that may follow a delivered
    /// message are `notSent`; Telegram's refusals are `refused`, with what they mean for the
    /// chat; a timeout and an unreadable answer may have been sent.
    public var verdict: SendVerdict {
        switch self {
        case .transport(_, mayHaveBeenDelivered: false): .notSent(retryAfter: nil)
        case .retryAfter(let seconds): .notSent(retryAfter: .seconds(seconds))
        case .server(let status, _): status == 504 ? .mayHaveBeenSent : .notSent(retryAfter: nil)
        case .transport, .undecodable: .mayHaveBeenSent
        case .unauthorized, .notFound: .refused(.credentials)
        case .forbidden: .refused(.recipientGone)
        case .badRequest(let reason) where reason.contains("chat not found"): .refused(.recipientGone)
        case .badRequest(let reason) where reason.contains("message is not modified"): .refused(.alreadyDone)
        case .chatMigrated, .conflict, .badRequest: .refused(.request)
        }
    }

    /// A short, stable name for metrics: `flood_wait` is a 429.
    public var kind: String {
        switch self {
        case .retryAfter: "flood_wait"
        case .chatMigrated: "chat_migrated"
        case .unauthorized: "unauthorized"
        case .notFound: "not_found"
        case .conflict: "conflict"
        case .forbidden: "forbidden"
        case .badRequest: "bad_request"
        case .server: "server_error"
        case .transport: "network_error"
        case .undecodable: "undecodable"
        }
    }
}

extension TelegramError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .retryAfter(let seconds): "flood control: retry after \(seconds)s"
        case .chatMigrated(let id): "chat migrated to \(id)"
        case .unauthorized: "unauthorized: the bot token was rejected"
        case .notFound: "not found (404): the API URL or the bot token is wrong"
        case .conflict(let text): "conflict: \(text)"
        case .forbidden(let text): "forbidden: \(text)"
        case .badRequest(let text): "bad request: \(text)"
        case let .server(status, text): "server error \(status): \(text)"
        case .transport(let text, _): "network: \(text)"
        case .undecodable(let text): "undecodable response: \(text)"
        }
    }
}
