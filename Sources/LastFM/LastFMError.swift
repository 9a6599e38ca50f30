import Networking

/// Everything that can go wrong talking to Last.fm, each with a line fit to show a chat.
public enum LastFMError: Error, Sendable, Equatable {
    /// Error 6 for a user: the name does not exist.
    case userNotFound(String)
    /// Error 17: the user keeps their listening data private.
    case privateProfile(String)
    /// Error 10 or 26: the API key is wrong or suspended. Only the operator can fix it.
    case invalidKey
    /// Error 29: too many requests.
    case rateLimited
    /// Errors 8, 11 and 16, or HTTP 5xx: Last.fm is having a bad moment.
    case temporarilyUnavailable(String)
    /// Any other error Last.fm reported, such as 6 for bad parameters.
    case rejected(code: Int, message: String)
    /// No HTTP response: connection, DNS, TLS or timeout.
    case transport(String)
    /// An answer that is not the JSON this client expects.
    case undecodable(String)

    /// Whether the retry adaptor should try again: 8/11/16/29, 5xx, and network failures.
    public var isRetryable: Bool {
        switch self {
        case .rateLimited, .temporarilyUnavailable, .transport: true
        default: false
        }
    }

    /// Whether this failure says Last.fm itself is unhealthy, as opposed to a bad request.
    public var isServiceFailure: Bool {
        switch self {
        case .rateLimited, .temporarilyUnavailable, .transport, .undecodable: true
        case .userNotFound, .privateProfile, .invalidKey, .rejected: false
        }
    }

    /// A short sentence for the person who asked.
    public var userMessage: String {
        switch self {
        case .userNotFound(let name): "No Last.fm user is called “\(name)”."
        case .privateProfile(let name): "\(name) keeps their Last.fm listening data private."
        case .invalidKey: "The bot’s Last.fm API key was refused; the bot’s admin needs to fix it."
        case .rateLimited: "Last.fm says we are asking too often. Try again in a minute."
        case .temporarilyUnavailable: "Last.fm is having trouble, try again in a minute."
        case .rejected(_, let message): "Last.fm refused the request: \(message.isEmpty ? "no reason given" : String(message.prefix(200)))."
        case .transport: "Could not reach Last.fm. Try again in a minute."
        case .undecodable: "Last.fm sent an answer I could not read. Try again in a minute."
        }
    }

    /// The same error with the secret removed from any text the server sent back.
    func redacted(with redactor: SecretRedactor) -> LastFMError {
        switch self {
        case .temporarilyUnavailable(let text): .temporarilyUnavailable(redactor.redact(text))
        case let .rejected(code, message): .rejected(code: code, message: redactor.redact(message))
        case .transport(let text): .transport(redactor.redact(text))
        case .undecodable(let text): .undecodable(redactor.redact(text))
        case .userNotFound, .privateProfile, .invalidKey, .rateLimited: self
        }
    }

    /// Maps a Last.fm error code to a typed error.
    ///
    /// - Parameter user: the `user` parameter of the request, for error 6.
    static func from(code: Int, message: String, user: String?) -> LastFMError {
        switch code {
        case 6 where user != nil: .userNotFound(user ?? "")
        case 17 where user != nil: .privateProfile(user ?? "")
        case 10, 26: .invalidKey
        case 29: .rateLimited
        case 8, 11, 16: .temporarilyUnavailable("error \(code): \(message)")
        default: .rejected(code: code, message: message)
        }
    }
}
