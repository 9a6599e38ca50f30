import Logging
import Networking
import Telegram

/// Shows a chat that its answer is on the way ("typing…", "sending a photo…") while the
/// answer takes a while: a cold throwback can take several requests. It starts once the
/// work has run for `delay`, so that a quick answer never shows it, is renewed every
/// `renewal` (Telegram shows an action for 5 seconds), and ends as soon as the work does.
///
/// Best effort: the action is no message, so it bypasses the outbox; a failed call is
/// logged at debug and ends the showing, never retried; the work never waits for it.
struct ChatActionIndicator: Sendable {
    static let delay = Duration.seconds(1)
    static let renewal = Duration.seconds(4)

    let telegram: any TelegramClient
    let clock: ElapsedClock

    /// Runs `work`, showing in `chat` (in forum topic `topic`, if given) the action that
    /// `action` picks, asked only once the action is due.
    func showing<Result: Sendable>(
        in chat: Int64, topic: Int64?, logger: Logger, action: @escaping @Sendable () async -> ChatAction, during work: () async -> Result
    ) async -> Result {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await show(in: chat, topic: topic, logger: logger, action: action) }
            let result = await work()
            group.cancelAll()
            return result
        }
    }

    private func show(in chat: Int64, topic: Int64?, logger: Logger, action: @Sendable () async -> ChatAction) async {
        do { try await clock.sleep(Self.delay) } catch { return }
        var request = TelegramRequest<TelegramOK>.sendChatAction(chatID: chat, action: await action(), topic: topic).patient(for: .zero)
        request.timeout = Self.renewal
        while !Task.isCancelled {
            do {
                _ = try await telegram.send(request)
            } catch {
                if !(error is CancellationError) { logger.debug("could not show that an answer is coming", metadata: ["error": "\(error)"]) }
                return
            }
            do { try await clock.sleep(Self.renewal) } catch { return }
        }
    }
}
