import Foundation
import Logging
import Networking
import Synchronization
import Telegram

/// The updates Telegram posts to the bot's webhook. Each request must carry the webhook's
/// secret; its update is recorded in the journal, synced, before it is acknowledged, and
/// then handed to the bot's dispatcher exactly like a polled update. Replies never go in the
/// answer: they go through the outbox, as always.
///
/// Until the bot has started (its leftovers from the last run read) and after it stops, a
/// request is answered "unavailable", and Telegram delivers it again later.
public final class WebhookInbox: Sendable {
    /// How a request was answered; the HTTP server turns it into a status.
    public enum Answer: Sendable, Equatable {
        /// Recorded (or known already): 200.
        case accepted
        /// No secret, or the wrong one: 401, and nothing recorded.
        case unauthorized
        /// Not an update: 400.
        case malformed
        /// Not recorded (the bot is not running, or the database failed): 503, to be delivered again.
        case unavailable
    }

    /// The largest body taken: an update is a few kilobytes at most.
    public static let maxBodyBytes = 1 << 20

    /// What is asked of Telegram, and the path served.
    public let registration: WebhookRegistration
    private let logger: Logger
    private let state = Mutex<State>(.closed)

    private enum State {
        case closed
        case open(UpdateIntake, AsyncStream<Update>.Continuation)
    }

    public init(registration: WebhookRegistration, logger: Logger) {
        self.registration = registration
        self.logger = logger
    }

    /// Takes one request: the secret from `X-Telegram-Bot-Api-Secret-Token`, and the body.
    public func receive(secretToken: String?, body: [UInt8]) async -> Answer {
        guard let secretToken, registration.secret.matches(secretToken) else {
            logger.warning("refused a webhook request without the right secret (401)", metadata: ["bytes": "\(body.count)"])
            return .unauthorized
        }
        guard case .open(let intake, let updates) = state.withLock({ $0 }) else { return .unavailable }
        let received: ReceivedUpdate
        do {
            received = try ReceivedUpdate(webhookBody: body)
        } catch {
            logger.error("refused a webhook request whose body is not an update (400)", metadata: ["bytes": "\(body.count)", "error": "\(error)"])
            return .malformed
        }
        do {
            if let fresh = try await intake.delivered(received) { updates.yield(fresh) }
            return .accepted
        } catch {
            logger.error("could not store an update from the webhook; Telegram will deliver it again (503)", metadata: ["error": "\(error)"])
            return .unavailable
        }
    }

    /// Starts taking updates, which come out of the returned sequence until `close`.
    func open(_ intake: UpdateIntake) -> AsyncStream<Update> {
        let (updates, continuation) = AsyncStream<Update>.makeStream()
        state.withLock { $0 = .open(intake, continuation) }
        return updates
    }

    /// Stops taking updates: what Telegram posts from now on waits at Telegram.
    func close() {
        let previous = state.withLock { state in
            defer { state = .closed }
            return state
        }
        if case .open(_, let continuation) = previous { continuation.finish() }
    }
}
