/// Everything that can go wrong asking a listening service (Last.fm, Libre.fm, ListenBrainz),
/// each with a line fit to show a chat, naming the service that failed.
public struct ListeningError: ServiceFailure, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// No account of that name: Last.fm's error 6 for a user, ListenBrainz's 404.
        case userNotFound(String)
        /// Error 17: the user keeps their listening data private.
        case privateProfile(String)
        /// The bot's API key or token was refused (Last.fm's 10 and 26, ListenBrainz's 401).
        /// Only the operator can fix it.
        case credentialsRefused
        /// Too many requests (Last.fm's 29, a 429); with the wait the service named, bounded.
        case rateLimited(retryAfter: Duration?)
        /// A bad moment of the service: Last.fm's 8, 11 and 16, a 5xx, or its circuit open.
        case temporarilyUnavailable(String)
        /// Any other refusal, with the service's error code (or the HTTP status) and message.
        case rejected(code: Int, message: String)
        /// No HTTP response: connection, DNS, TLS or timeout.
        case transport(String)
        /// An answer that is not the JSON the client expects.
        case undecodable(String)
    }

    /// The service's name, for the person who reads the answer: `Last.fm`, `ListenBrainz`.
    public var service: String
    public var reason: Reason

    public init(_ service: String, _ reason: Reason) {
        self.service = service
        self.reason = reason
    }

    /// What a call refused by `service`'s open circuit breaker throws.
    public static func circuitOpen(_ service: String) -> ListeningError {
        ListeningError(service, .temporarilyUnavailable("circuit open"))
    }

    /// For logs: the service and the reason, with whatever the server said.
    public var description: String { "\(service): \(reason)" }

    /// A short sentence for the person who asked.
    public var userMessage: String {
        switch reason {
        case .userNotFound(let name): "No \(service) user is called “\(name)”."
        case .privateProfile(let name): "\(name) keeps their \(service) listening data private."
        case .credentialsRefused: "\(service) refused the bot’s key; the bot’s admin needs to fix it."
        case .rateLimited: "\(service) says we are asking too often. Try again in a minute."
        case .temporarilyUnavailable: "\(service) is having trouble, try again in a minute."
        case .rejected(_, let message): "\(service) refused the request: \(message.isEmpty ? "no reason given" : String(message.prefix(200)))."
        case .transport: "Could not reach \(service). Try again in a minute."
        case .undecodable: "\(service) sent an answer I could not read. Try again in a minute."
        }
    }

    /// The name asked for, when there is no such account.
    public var unknownName: String? {
        if case .userNotFound(let name) = reason { name } else { nil }
    }

    /// The service's error code (or HTTP status) of a refusal that is none of the others.
    public var rejectionCode: Int? {
        if case .rejected(let code, _) = reason { code } else { nil }
    }

    /// Whether the user keeps their listening data private.
    public var isPrivateProfile: Bool {
        if case .privateProfile = reason { true } else { false }
    }

    public var kind: String {
        switch reason {
        case .userNotFound: "user_not_found"
        case .privateProfile: "private_profile"
        case .credentialsRefused: "invalid_key"
        case .rateLimited: "rate_limited"
        case .temporarilyUnavailable: "unavailable"
        case .rejected: "rejected"
        case .transport: "network_error"
        case .undecodable: "undecodable"
        }
    }

    /// Every call of a listening service only reads, so anything but a refusal may go again.
    public var verdict: SendVerdict {
        switch reason {
        case .rateLimited(let wait): .notSent(retryAfter: wait)
        case .temporarilyUnavailable: .notSent(retryAfter: nil)
        case .transport, .undecodable: .mayHaveBeenSent
        case .credentialsRefused: .refused(.credentials)
        case .userNotFound, .privateProfile, .rejected: .refused(.request)
        }
    }

    /// The same error with the secrets removed from any text the server sent back.
    public func redacted(with redactor: SecretRedactor) -> ListeningError {
        let reason: Reason = switch reason {
        case .temporarilyUnavailable(let text): .temporarilyUnavailable(redactor.redact(text))
        case let .rejected(code, message): .rejected(code: code, message: redactor.redact(message))
        case .transport(let text): .transport(redactor.redact(text))
        case .undecodable(let text): .undecodable(redactor.redact(text))
        case .userNotFound, .privateProfile, .credentialsRefused, .rateLimited: reason
        }
        return ListeningError(service, reason)
    }
}
