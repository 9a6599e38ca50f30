import Networking
import Telegram

/// Lets through the bot's admins (`ADMIN_USER_IDS`), a user managing their own private chat
/// with the bot, an anonymous admin managing their own group, and the Telegram
/// administrators of the chat being managed. Administrator lists are cached for a few minutes.
public actor AdminGuard: CommandGuard {
    private let globalAdmins: Set<Int64>
    private let telegram: (any TelegramClient)?
    private let clock: ElapsedClock
    private let cacheLifetime: Duration
    private let patience: Duration
    private var administrators: BoundedCache<Int64, Set<Int64>>

    /// - Parameters:
    ///   - telegram: the client to ask `getChatAdministrators`; nil in the console.
    ///   - patience: the longest a lookup may wait on flood waits and retries.
    public init(
        globalAdmins: [Int64], telegram: (any TelegramClient)?, clock: any Clock<Duration> = ContinuousClock(),
        cacheLifetime: Duration = .seconds(300), cachedChats: Int = 2048, patience: Duration = .seconds(10)
    ) {
        self.patience = patience
        self.globalAdmins = Set(globalAdmins)
        self.telegram = telegram
        self.clock = ElapsedClock(clock)
        self.cacheLifetime = cacheLifetime
        self.administrators = BoundedCache(capacity: cachedChats)
    }

    public func check(_ invocation: CommandInvocation) async -> GuardDecision {
        // Only a group's admins can post on its behalf, and only there does that make them admins.
        if let group = invocation.senderChatID {
            return group == invocation.targetChatID ? .allow(invocation) : .deny(invocation.language.text(.adminOnly))
        }
        if globalAdmins.contains(invocation.userID) { return .allow(invocation) }
        // A private chat's id is its user's id: people manage their own chat with the bot.
        if invocation.targetChatID == invocation.userID { return .allow(invocation) }
        guard let admins = await administrators(of: invocation.targetChatID) else {
            return .deny(invocation.language.text(.adminCannotSee, String(invocation.targetChatID)))
        }
        return admins.contains(invocation.userID) ? .allow(invocation) : .deny(invocation.language.text(.adminOnly))
    }

    private func administrators(of chat: Int64) async -> Set<Int64>? {
        let now = clock.elapsed()
        if let cached = administrators.value(forKey: chat, now: now) { return cached }
        guard let telegram, chat < 0,
              let members = try? await telegram.send(TelegramRequest<[ChatMember]>.getChatAdministrators(chatID: chat).patient(for: patience))
        else { return nil }
        let ids = Set(members.map(\.user.id))
        administrators.set(ids, forKey: chat, expiresAt: now + cacheLifetime)
        return ids
    }

    /// The same check, applied only when a command names another chat than its own; in its
    /// own chat anyone may use it (`tracked`).
    public nonisolated var forOtherChats: some CommandGuard { OtherChatGuard(admin: self) }
}

/// `AdminGuard.forOtherChats`.
private struct OtherChatGuard: CommandGuard {
    let admin: AdminGuard

    func check(_ invocation: CommandInvocation) async -> GuardDecision {
        invocation.targetChatID == invocation.chatID ? .allow(invocation) : await admin.check(invocation)
    }
}
