/// What a failed call did, for what it asked: the one answer, for every retry and for the
/// outbox, to "did this reach the service, and may it go again?". Each service's errors give
/// theirs (`ServiceFailure`).
public enum SendVerdict: Sendable, Equatable {
    /// It certainly never reached the service, or the service did nothing with it: sending it
    /// again cannot double it. `retryAfter` is the wait the service asked for (a 429), bounded.
    case notSent(retryAfter: Duration?)
    /// It may have reached the service: sending it again could do it twice.
    case mayHaveBeenSent
    /// The service read it and refused it for what it says: the same call would be refused
    /// again. What the refusal means says what to do about it.
    case refused(Refusal)

    /// What a refusal means for what the call was about.
    public enum Refusal: Sendable, Equatable {
        /// The call asks for what is so already (Telegram's "message is not modified"): as good as done.
        case alreadyDone
        /// Nothing will reach its recipient again: a chat that removed or blocked the bot, or is gone.
        case recipientGone
        /// The bot's own key, token or API URL was refused: an operator can fix that, so what
        /// waits to be sent should keep.
        case credentials
        /// Refused for what it asks.
        case request
    }

    /// The verdict on any error, knowing how far the request got: the service's own, else (a
    /// cancellation, above all) may have been sent; and one that may have been sent by the
    /// error alone (a cancellation, a timeout) certainly was not if its bytes never started to leave.
    public init(_ error: any Error, progress: SendProgress) {
        let verdict = (error as? any ServiceFailure)?.verdict ?? .mayHaveBeenSent
        self = verdict == .mayHaveBeenSent && progress.certainlyNotSent ? .notSent(retryAfter: nil) : verdict
    }

    /// The wait the service asked for, if it asked for one.
    public var retryAfter: Duration? {
        if case .notSent(let wait) = self { wait } else { nil }
    }

    /// Whether the service refused the call, as opposed to failing at it: a refusal says
    /// nothing against the service's health.
    public var isRefusal: Bool {
        if case .refused = self { true } else { false }
    }
}
