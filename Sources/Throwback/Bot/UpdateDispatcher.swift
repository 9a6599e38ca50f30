import Networking
import Telegram

/// Feeds updates to a handler: in order within a chat, concurrently across chats, with at
/// most `maxConcurrentChats` chats at work at once. A slow chat never holds up another.
///
/// When the update sequence ends (shutdown), work already taken is given `shutdownGrace`
/// to finish, then cancelled.
public struct UpdateDispatcher: Sendable {
    public var maxConcurrentChats: Int
    public var shutdownGrace: Duration
    private let clock: ElapsedClock
    private let handler: @Sendable (Update) async -> Void

    public init(
        maxConcurrentChats: Int = 16,
        shutdownGrace: Duration = .seconds(5),
        clock: any Clock<Duration> = ContinuousClock(),
        handler: @escaping @Sendable (Update) async -> Void
    ) {
        self.maxConcurrentChats = max(1, maxConcurrentChats)
        self.shutdownGrace = shutdownGrace
        self.clock = ElapsedClock(clock)
        self.handler = handler
    }

    /// Consumes `updates` until it ends, then drains. Rethrows the sequence's error, if any.
    public func run<Updates: AsyncSequence & Sendable>(_ updates: Updates) async throws where Updates.Element == Update {
        let (intakeEnded, endIntake) = AsyncStream<Void>.makeStream()
        let outcome: Result<Void, any Error> = await withTaskGroup(of: Result<Void, any Error>?.self) { race in
            race.addTask {
                await dispatch(updates, onIntakeEnd: { endIntake.finish() })
            }
            race.addTask { [clock, shutdownGrace] in
                for await _ in intakeEnded {}
                // Intake is over; in-flight replies get a bounded time to finish.
                try? await clock.sleep(shutdownGrace)
                return nil
            }
            var outcome: Result<Void, any Error> = .success(())
            for await finished in race {
                if let finished { outcome = finished }
                race.cancelAll()
            }
            return outcome
        }
        try outcome.get()
    }

    /// Runs workers until `updates` ends and every worker is done. `onIntakeEnd` fires as soon
    /// as the sequence ends, while workers may still be busy.
    private func dispatch<Updates: AsyncSequence>(
        _ updates: Updates, onIntakeEnd: @escaping @Sendable () -> Void
    ) async -> Result<Void, any Error> where Updates.Element == Update {
        let lanes = ChatLanes()
        let slots = Slots(maxConcurrentChats)
        return await withDiscardingTaskGroup { group in
            defer { onIntakeEnd() }
            do {
                for try await update in updates {
                    let chat = update.chatID ?? 0
                    guard await lanes.enqueue(update, chat: chat) else { continue }
                    await slots.acquire()
                    group.addTask {
                        while let next = await lanes.next(chat: chat) {
                            await handler(next)
                        }
                        await slots.release()
                    }
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
    }
}

/// Per-chat FIFO queues. A chat has a lane while it has work; the lane's worker drains it.
private actor ChatLanes {
    private var queues: [Int64: [Update]] = [:]

    /// Queues an update; returns true when the chat had no lane and needs a worker.
    func enqueue(_ update: Update, chat: Int64) -> Bool {
        if queues[chat] != nil {
            queues[chat]!.append(update)
            return false
        }
        queues[chat] = [update]
        return true
    }

    /// The next update of a chat, or nil (closing the lane) when it has none left.
    func next(chat: Int64) -> Update? {
        guard var queue = queues[chat], !queue.isEmpty else {
            queues[chat] = nil
            return nil
        }
        let update = queue.removeFirst()
        queues[chat] = queue
        return update
    }
}

/// A counting semaphore for the number of chats at work.
private actor Slots {
    private var available: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) {
        available = count
    }

    func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            waiters.removeFirst().resume()
        }
    }
}
