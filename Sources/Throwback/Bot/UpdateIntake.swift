import Foundation
import Networking
import Telegram

/// Where updates enter the bot, polled or posted to the webhook: written to the journal
/// first, then counted, with their chats' settings read ahead.
struct UpdateIntake: Sendable {
    let journal: UpdateJournal
    let store: BotStore
    let metrics: BotMetrics
    let now: @Sendable () -> Date
    /// Among replicas, updates are handled from the journal: recorded ones go to the feed,
    /// which hands them to whichever replica holds their chat. Nil: this process handles them.
    let feed: JournalFeed?

    /// A polled batch and the offset that confirms it; returns the updates not seen before.
    func polled(_ batch: [ReceivedUpdate], nextOffset: Int64) async throws -> [Update] {
        await arrived(try await journal.record(batch, nextOffset: nextOffset))
    }

    /// One update posted to the webhook, synced to disk; nil when it was seen before.
    func delivered(_ update: ReceivedUpdate) async throws -> Update? {
        guard let fresh = try await journal.record(delivered: update) else { return nil }
        return await arrived([fresh]).first
    }

    private func arrived(_ fresh: [Update]) async -> [Update] {
        metrics.increment("vinylogue_updates_received_total", by: Int64(fresh.count))
        // How old the newest message was when it reached the bot. A button press carries no
        // time of its own (its message's date is when the bot posted it), so only messages count.
        if let newest = fresh.compactMap({ $0.message?.date }).filter({ $0 > 0 }).max() {
            metrics.record("vinylogue_poll_lag_seconds", max(0, now().timeIntervalSince1970 - Double(newest)))
        }
        if let feed {
            if !fresh.isEmpty { feed.nudge() }
            return []
        }
        // Not needed for correctness: each command reads its chat's settings if this failed.
        try? await store.preloadSettings(for: Set(fresh.compactMap(\.chatID)))
        return fresh
    }
}
