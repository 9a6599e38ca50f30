import Networking
import ServiceLifecycle
import Telegram

/// Feeds updates to a handler: each is judged as it arrives, in the order received
/// (`ChatUpdateHandler.arrive`), then handled in order within its chat, concurrently across
/// chats, with at most `maxConcurrentChats` chats at work at once. A slow chat never holds
/// up another.
///
/// When the update sequence ends, or graceful shutdown begins, no new update is started;
/// updates in progress get `shutdownGrace` to finish, then are cancelled. Updates not
/// started stay in the journal's inbox for the next start.
public struct UpdateDispatcher: Sendable {
    public var maxConcurrentChats: Int
    public var shutdownGrace: Duration
    /// How many received updates may wait for a worker before intake waits too: two polls'
    /// worth. The outbox holds a flood's replies; updates beyond these wait at Telegram.
    public var maxQueued: Int
    /// Two polls' worth of updates (`maxQueued`).
    public static let defaultMaxQueued = 200
    private let clock: ElapsedClock
    private let handler: ChatUpdateHandler
    /// Told of each update once the handler is done with it, handled or not.
    private let finished: @Sendable (Update) -> Void

    public init(
        maxConcurrentChats: Int = 16,
        shutdownGrace: Duration = .seconds(4),
        maxQueued: Int = Self.defaultMaxQueued,
        clock: any Clock<Duration> = ContinuousClock(),
        handler: ChatUpdateHandler,
        finished: @escaping @Sendable (Update) -> Void = { _ in }
    ) {
        self.finished = finished
        self.maxConcurrentChats = max(1, maxConcurrentChats)
        self.shutdownGrace = shutdownGrace
        self.maxQueued = maxQueued
        self.clock = ElapsedClock(clock)
        self.handler = handler
    }

    /// Consumes `updates` until it ends or shutdown begins (which cancels the wait for the next
    /// update, a long poll say), then drains. Rethrows the sequence's error, if any.
    public func run<Updates: AsyncSequence & Sendable>(_ updates: Updates) async throws where Updates.Element == Update {
        let queue = ChatQueue(capacity: maxQueued)
        let (intakeEnded, endIntake) = AsyncStream<Void>.makeStream()
        let outcome: Result<Void, any Error> = await withGracefulShutdownHandler {
            await withTaskGroup(of: Result<Void, any Error>?.self) { race in
                race.addTask { [maxConcurrentChats, handler, finished] in
                    await withTaskGroup(of: Void.self) { workers in
                        for _ in 0..<maxConcurrentChats {
                            workers.addTask {
                                while let work = await queue.next() {
                                    await handler.handle(work)
                                    queue.done(chat: work.chat)
                                    finished(work.update)
                                }
                            }
                        }
                        // A child task, not a sequence wrapper: the updates are read on this task's
                        // executor, not passed through a task of their own.
                        let intake = await cancelWhenGracefulShutdown { await Self.take(updates, into: queue, judgedBy: handler) }
                        queue.close()
                        endIntake.finish()
                        await workers.waitForAll()
                        return intake
                    }
                }
                race.addTask { [clock, shutdownGrace] in
                    for await _ in intakeEnded {}
                    // Intake is over; work in progress gets a bounded time to finish.
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
        } onGracefulShutdown: {
            queue.close()
        }
        try outcome.get()
    }

    private static func take<Updates: AsyncSequence>(
        _ updates: Updates, into queue: ChatQueue, judgedBy handler: ChatUpdateHandler
    ) async -> Result<Void, any Error> where Updates.Element == Update {
        do {
            for try await update in updates {
                guard await queue.enqueue(await handler.arrive(update)) else { break }
            }
            return .success(())
        } catch {
            return .failure(error)
        }
    }
}
