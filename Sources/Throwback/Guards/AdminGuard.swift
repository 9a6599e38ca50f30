import Networking
import Telegram

/// Lets through the bot's admins (`ADMIN_USER_IDS`), a user managing their own private chat
/// with the bot, and the Telegram administrators of the chat being managed. Administrator
/// lists are cached for a few minutes.
public actor AdminGuard: CommandGuard {
    private let globalAdmins: Set<Int64>
    private let telegram: (any TelegramClient)?
    private let clock: ElapsedClock
    private let cacheLifetime: Duration
    private var administrators: [Int64: (ids: Set<Int64>, until: Duration)] = [:]

    /// - Parameter telegram: the client to ask `getChatAdministrators`; nil in the console.
    public init(
        globalAdmins: [Int64], telegram: (any TelegramClient)?, clock: any Clock<Duration> = ContinuousClock(),
        cacheLifetime: Duration = .seconds(300)
    ) {
        self.globalAdmins = Set(globalAdmins)
        self.telegram = telegram
        self.clock = ElapsedClock(clock)
        self.cacheLifetime = cacheLifetime
    }

    public func check(_ invocation: CommandInvocation) async -> GuardDecision {
        if globalAdmins.contains(invocation.userID) { return .allow(invocation) }
        // A private chat's id is its user's id: people manage their own chat with the bot.
        if invocation.targetChatID == invocation.userID { return .allow(invocation) }
        guard let admins = await administrators(of: invocation.targetChatID) else {
            return .deny("I can’t see the admins of chat \(invocation.targetChatID); is the bot a member there?")
        }
        return admins.contains(invocation.userID) ? .allow(invocation) : .deny("Only admins of this chat can do that.")
    }

    private func administrators(of chat: Int64) async -> Set<Int64>? {
        let now = clock.elapsed()
        if let cached = administrators[chat], now < cached.until { return cached.ids }
        guard let telegram, chat < 0, let members = try? await telegram.getChatAdministrators(chatID: chat) else { return nil }
        let ids = Set(members.map(\.user.id))
        administrators[chat] = (ids, now + cacheLifetime)
        return ids
    }
}
