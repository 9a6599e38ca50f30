import Foundation
import Logging
import Networking
import Synchronization
import Telegram

/// The updates that replicas sharing one database handle, read from the journal: whichever
/// replica received an update (polled, or posted to its webhook), the replica that holds its
/// chat's lane (`journalLane`) handles it, and a chat's updates go one at a time, in the order
/// they arrived. A replica takes the lane of a chat with updates waiting, renews its lanes
/// while it works, and gives up those it has been idle in at the next renewal; the lanes of a
/// replica that died go to the others once their leases run out. An update that two replicas
/// handle all the same (one outlived its lease) commits once (`markHandled`).
///
/// The journal is read every `interval`, and at once when this replica records an update
/// (`nudge`): in real time, since it is about other processes.
final class JournalFeed: Sendable {
    private let journal: UpdateJournal
    private let owner: String
    private let lease: Duration
    private let interval: Duration
    /// The most updates handed out and not yet handled: the dispatcher's queue's worth.
    private let limit: Int
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        /// Updates handed out and not yet handled: identity → chat.
        var inFlight: [String: Int64] = [:]
        /// The chats whose lanes this replica holds.
        var held: Set<Int64> = []
        var renewedAt: Date = .distantPast
    }

    private let nudges = WakeSignal()
    private let clock = ElapsedClock.continuous

    init(
        journal: UpdateJournal, owner: String, lease: Duration, interval: Duration = .milliseconds(250), limit: Int,
        now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.journal = journal
        self.owner = owner
        self.lease = lease
        self.interval = interval
        self.limit = max(1, limit)
        self.now = now
        self.logger = logger
    }

    /// The updates to handle, until the task reading them is cancelled.
    var updates: Updates { Updates(feed: self) }

    /// An update was recorded here: read the journal now rather than at the next interval.
    func nudge() {
        nudges.notify()
    }

    /// The dispatcher is done with `update`, handled or not: one not handled is read again.
    func finished(_ update: Update) {
        guard let identity = update.identity else { return }
        _ = state.withLock { $0.inFlight.removeValue(forKey: identity) }
    }

    /// One read of the journal: the waiting updates of chats this replica holds or can take.
    private func pass() async throws -> [Update] {
        let (inFlight, held, renewedAt) = state.withLock { ($0.inFlight, $0.held, $0.renewedAt) }
        let now = now()
        let room = limit - inFlight.count
        guard room > 0 else { return [] }
        let waiting = try await journal.waiting(owner: owner, at: now, limit: limit)
        let fresh = waiting.lazy.filter { inFlight[$0.identity] == nil }.prefix(room)
        let wanted = Set(fresh.map(\.chat))
        var holding = held
        if !wanted.isSubset(of: held) || (!held.isEmpty && now.timeIntervalSince(renewedAt) >= lease.seconds / 3) {
            // Lanes with nothing waiting or in hand are given up; the rest renewed, new ones taken.
            let busy = wanted.union(waiting.map(\.chat)).union(inFlight.values)
            let idle = held.subtracting(busy)
            let (owner, until) = (owner, now.addingTimeInterval(lease.seconds))
            holding = try await journal.store.write { transaction in
                try transaction.releaseLanes(idle, in: .journal, owner: owner)
                return try transaction.takeLanes(held.subtracting(idle).union(wanted), in: .journal, owner: owner, until: until, at: now)
            }
            state.withLock { state in
                state.held = holding
                state.renewedAt = now
            }
        }
        var updates: [Update] = []
        var taken: [(identity: String, chat: Int64)] = []
        var unreadable: [String] = []
        for entry in fresh where holding.contains(entry.chat) {
            // Read as a polled update is read: each payload is an update as Telegram sent it.
            guard let update = try? Update(json: JSONNode(parsing: Array(entry.payload))) else {
                unreadable.append(entry.identity)
                continue
            }
            updates.append(update)
            taken.append((entry.identity, entry.chat))
        }
        if !unreadable.isEmpty {
            logger.error("dropped updates in the journal that no longer read as updates", metadata: ["count": "\(unreadable.count)"])
            try await journal.discard(unreadable, at: now)
        }
        state.withLock { state in
            for (identity, chat) in taken { state.inFlight[identity] = chat }
        }
        return updates
    }

    /// The feed as the dispatcher reads it. A failed read of the journal is logged and tried again.
    struct Updates: AsyncSequence, Sendable {
        let feed: JournalFeed

        func makeAsyncIterator() -> Iterator { Iterator(feed: feed) }

        struct Iterator: AsyncIteratorProtocol {
            let feed: JournalFeed
            /// Read and not yet handed out, last first.
            var buffer: [Update] = []

            mutating func next() async throws -> Update? {
                while buffer.isEmpty {
                    if Task.isCancelled { return nil }
                    do {
                        buffer = try await feed.pass().reversed()
                    } catch {
                        feed.logger.error("could not read the journal for updates to handle; trying again", metadata: ["error": "\(error)"])
                    }
                    if buffer.isEmpty { await feed.nudges.wait(for: feed.interval, on: feed.clock) }
                }
                return buffer.popLast()
            }
        }
    }
}
