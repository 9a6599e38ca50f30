/// What ListenBrainz's `validate-token` said of the client's token.
public enum ListenBrainzTokenCheck: Sendable, Equatable {
    /// The token is a user's: their name.
    case valid(user: String)
    /// ListenBrainz knows no such token; its message.
    case invalid(message: String)
    /// No token was sent, and ListenBrainz answered that it needs one: it is up.
    case noToken
}
