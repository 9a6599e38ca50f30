import Logging
import Networking
import Synchronization
import Telegram

/// Shows a chat that its answer is on the way ("typing…", "sending a photo…") while the
/// answer takes a while: a cold throwback can take several requests. It starts once the
/// work has run for `delay`, so that a quick answer never shows it, is renewed every
/// `renewal` (Telegram shows an action for 5 seconds), and ends as soon as the work does.
///
/// Best effort: the action is no message, so it bypasses the outbox; a failed call is
/// logged at debug and ends the showing, never retried; the work never waits for it.
///
/// One watcher task serves every answer under way: it sleeps until the earliest action is
/// due and ends when no answer is under way. A warm answer only notes itself in a table and
/// leaves it, with no task or timer of its own (those cost more than the answer).
final class ChatActionIndicator: Sendable {
    static let delay = Duration.seconds(1)
    static let renewal = Duration.seconds(4)

    private struct Showing: Sendable {
        var chat: Int64
        var topic: Int64?
        /// Where a failure is logged; its logger is made only then.
        var log: UpdateLog
        var action: @Sendable () async -> ChatAction
        /// When its action is next due; nil once a call failed.
        var due: Duration?
    }

    private struct State: Sendable {
        var showings: [UInt64: Showing] = [:]
        var nextID: UInt64 = 0
        /// The watcher, and when it means to wake.
        var watcher: (generation: UInt64, wake: Duration, task: Task<Void, Never>)?
        var generation: UInt64 = 0
    }

    private let telegram: any TelegramClient
    private let clock: ElapsedClock
    private let state = Mutex(State())

    init(telegram: any TelegramClient, clock: ElapsedClock) {
        self.telegram = telegram
        self.clock = clock
    }

    /// Starts showing in `chat` (in forum topic `topic`, if given) the action that `action`
    /// picks, asked only once the action is due; `end` with the id returned stops it.
    func begin(in chat: Int64, topic: Int64?, log: UpdateLog, action: @escaping @Sendable () async -> ChatAction) -> UInt64 {
        let due = clock.elapsed() + Self.delay
        return state.withLock { state -> UInt64 in
            state.nextID += 1
            state.showings[state.nextID] = Showing(chat: chat, topic: topic, log: log, action: action, due: due)
            // A watcher that wakes in time will see it; otherwise one that does takes over.
            if let watcher = state.watcher, watcher.wake <= due { return state.nextID }
            state.watcher?.task.cancel()
            state.generation += 1
            let generation = state.generation
            state.watcher = (generation, due, Task { await self.watch(generation) })
            return state.nextID
        }
    }

    /// Stops showing what `begin` started; again is harmless.
    func end(_ id: UInt64) {
        state.withLock { _ = $0.showings.removeValue(forKey: id) }
    }

    /// Sleeps until the earliest action is due, shows the due ones, and so on until no answer
    /// is under way, or another watcher takes over.
    private func watch(_ generation: UInt64) async {
        while true {
            let wake = state.withLock { state -> Duration? in
                guard state.watcher?.generation == generation else { return nil }
                guard let earliest = state.showings.values.compactMap(\.due).min() else {
                    state.watcher = nil
                    return nil
                }
                state.watcher?.wake = earliest
                return earliest
            }
            guard let wake else { return }
            let now = clock.elapsed()
            if wake > now {
                do { try await clock.sleep(wake - now) } catch { return }
            }
            let due = state.withLock { state -> [(UInt64, Showing)] in
                guard state.watcher?.generation == generation else { return [] }
                let now = clock.elapsed()
                let due = state.showings.filter { $0.value.due.map { $0 <= now } ?? false }
                for id in due.keys { state.showings[id]?.due = now + Self.renewal }
                return Array(due)
            }
            for (id, showing) in due where !(await show(showing)) {
                state.withLock { $0.showings[id]?.due = nil }
            }
        }
    }

    /// Sends the action once; false if Telegram did not take it.
    private func show(_ showing: Showing) async -> Bool {
        var request = TelegramRequest<TelegramOK>.sendChatAction(chatID: showing.chat, action: await showing.action(), topic: showing.topic)
            .patient(for: .zero)
        request.timeout = Self.renewal
        do {
            _ = try await telegram.send(request)
            return true
        } catch {
            if !(error is CancellationError) { showing.log.logger.debug("could not show that an answer is coming", metadata: ["error": "\(error)"]) }
            return false
        }
    }
}
