import Foundation
import Telegram

extension UpdateJournal {
    /// Stores one update that Telegram posted to the webhook, synced to disk before this
    /// returns: Telegram takes the answer that follows as the update's confirmation. There is
    /// no offset to keep. Returns the update to handle, or nil when it is known already
    /// (handled or waiting: Telegram delivered it again) or of a kind the bot does not handle.
    public func record(delivered received: ReceivedUpdate) async throws -> Update? {
        let now = now()
        return try await store.write { transaction in try Self.journal([received], at: now, in: transaction.session).first }
    }
}
