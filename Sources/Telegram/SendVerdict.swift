import Networking

/// What a failed Bot API call means for what it carried: the one answer, for the outbox
/// and the retry adaptor, to "did this request reach Telegram?".
public enum SendVerdict: Sendable, Equatable {
    /// It certainly never reached Telegram, or Telegram did nothing with it: sending it again
    /// cannot double it. `retryAfter` is the wait Telegram asked for (a 429), in seconds.
    case notSent(retryAfter: Int?)
    /// Telegram read it and refused it for what it says: nothing was posted, and the same
    /// call would be refused again.
    case refused(TelegramError)
    /// It may have reached Telegram: sending it again could post it twice.
    case mayHaveBeenSent
}

extension Error {
    /// The verdict, knowing how far the request got: one that may have been sent, by the
    /// error alone (a cancellation, a timeout), certainly was not if its bytes never started
    /// to leave.
    public func sendVerdict(given progress: SendProgress) -> SendVerdict {
        let verdict = sendVerdict
        return verdict == .mayHaveBeenSent && progress.certainlyNotSent ? .notSent(retryAfter: nil) : verdict
    }

    /// The verdict on a failed call: no connection, a connect timeout, a request libcurl never
    /// wrote, a flood wait and a 5xx other than the 504 that may follow a delivered message
    /// are `notSent`; Telegram's refusals are `refused`; everything else, a cancellation and
    /// an unreadable answer included, may have been sent.
    public var sendVerdict: SendVerdict {
        guard let error = self as? TelegramError else { return .mayHaveBeenSent }
        switch error {
        case .transport(_, mayHaveBeenDelivered: false): return .notSent(retryAfter: nil)
        case .retryAfter(let seconds): return .notSent(retryAfter: seconds)
        case .server(let status, _): return status == 504 ? .mayHaveBeenSent : .notSent(retryAfter: nil)
        case .transport, .undecodable: return .mayHaveBeenSent
        case .chatMigrated, .unauthorized, .notFound, .conflict, .forbidden, .badRequest: return .refused(error)
        }
    }
}
