/// Follows a group that became a supergroup: on a 400 with `migrate_to_chat_id` it sends the
/// same call to the new chat id, and tells `onMigration` so that stored chat data can follow.
public struct MigratingTelegramClient<Base: TelegramClient>: TelegramClient {
    private let base: Base
    private let onMigration: @Sendable (_ from: Int64, _ to: Int64) async -> Void

    public init(base: Base, onMigration: @escaping @Sendable (_ from: Int64, _ to: Int64) async -> Void) {
        self.base = base
        self.onMigration = onMigration
    }

    public func send<Response>(_ request: TelegramRequest<Response>) async throws -> Response {
        do {
            return try await base.send(request)
        } catch TelegramError.chatMigrated(let newID) {
            guard let oldID = request.chatID, oldID != newID else { throw TelegramError.chatMigrated(to: newID) }
            await onMigration(oldID, newID)
            return try await base.send(request.redirected(to: newID))
        }
    }
}

extension TelegramClient {
    /// Resends calls to migrated chats and reports each migration.
    public func followingMigrations(
        onMigration: @escaping @Sendable (_ from: Int64, _ to: Int64) async -> Void
    ) -> MigratingTelegramClient<Self> {
        MigratingTelegramClient(base: self, onMigration: onMigration)
    }
}
