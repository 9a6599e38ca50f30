import Networking

/// Everything that can go wrong talking to ListenBrainz, each with a line fit to show a chat.
public enum ListenBrainzError: Error, Sendable, Equatable {
    /// HTTP 404 for a user's listens: the name does not exist.
    case userNotFound(String)
    /// HTTP 429; `resetIn` is `X-RateLimit-Reset-In`, in seconds, when it was sent.
    case rateLimited(resetIn: Int?)
    /// HTTP 401: the configured token was refused. Only the operator can fix it.
    case invalidToken
    /// HTTP 5xx: ListenBrainz is having a bad moment.
    case temporarilyUnavailable(String)
    /// Any other status.
    case rejected(status: Int, message: String)
    /// No HTTP response: connection, DNS, TLS or timeout.
    case transport(String)
    /// An answer that is not the JSON this client expects.
    case undecodable(String)

    /// Whether the retry adaptor should try again.
    public var isRetryable: Bool {
        switch self {
        case .rateLimited, .temporarilyUnavailable, .transport: true
        default: false
        }
    }

    /// Whether this failure says ListenBrainz itself is unhealthy, as opposed to a bad request.
    public var isServiceFailure: Bool {
        switch self {
        case .rateLimited, .temporarilyUnavailable, .transport, .undecodable: true
        case .userNotFound, .invalidToken, .rejected: false
        }
    }

    /// A short sentence for the person who asked.
    public var userMessage: String {
        switch self {
        case .userNotFound(let name): "No ListenBrainz user is called “\(name)”."
        case .rateLimited: "ListenBrainz says we are asking too often. Try again in a minute."
        case .invalidToken: "The bot’s ListenBrainz token was refused; the bot’s admin needs to fix it."
        case .temporarilyUnavailable, .transport: "ListenBrainz is not answering just now. Try again in a minute."
        case .rejected(let status, _): "ListenBrainz refused the request (HTTP \(status))."
        case .undecodable: "ListenBrainz sent an answer I could not read. Try again in a minute."
        }
    }

    /// A short, stable name for metrics.
    public var kind: String {
        switch self {
        case .userNotFound: "user_not_found"
        case .rateLimited: "rate_limited"
        case .invalidToken: "invalid_key"
        case .temporarilyUnavailable: "unavailable"
        case .rejected: "rejected"
        case .transport: "network_error"
        case .undecodable: "undecodable"
        }
    }

    /// The same error with the token removed from any text the server sent back.
    func redacted(with redactor: SecretRedactor) -> ListenBrainzError {
        switch self {
        case .temporarilyUnavailable(let text): .temporarilyUnavailable(redactor.redact(text))
        case let .rejected(status, message): .rejected(status: status, message: redactor.redact(message))
        case .transport(let text): .transport(redactor.redact(text))
        case .undecodable(let text): .undecodable(redactor.redact(text))
        case .userNotFound, .rateLimited, .invalidToken: self
        }
    }
}
