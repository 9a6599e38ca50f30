import Foundation

/// `postnow` in Telegram: claims the chat's post (forced, so it counts as the week's post)
/// in the command's own transaction, then composes it for the outbox. In the chat itself the
/// post speaks for itself; from another chat, the admin hears how it went.
public struct TelegramWeeklyPosting: WeeklyPosting {
    private let poster: WeeklyPoster
    private let now: @Sendable () -> Date

    public init(poster: WeeklyPoster, now: @escaping @Sendable () -> Date) {
        self.poster = poster
        self.now = now
    }

    public func postNow(_ invocation: CommandInvocation) async -> CommandResult {
        let chat = invocation.targetChatID
        let reply = ReplyTarget(chatID: invocation.chatID, messageID: invocation.messageID, topicID: invocation.topicID)
        let instant = now()
        return .change({ [poster] transaction in
            try poster.claimNow(chat: chat, dueAt: instant, reply: reply, language: invocation.language, in: transaction)
        }, then: { [poster] in
            await poster.finish(chat: chat, dueAt: instant)
        })
    }
}

/// `postnow` in a terminal: the post is the reply, in plain text (give `preview` a plain
/// layout); nothing is recorded.
public struct TerminalWeeklyPosting: WeeklyPosting {
    private let preview: WeeklyPostPreview
    private let now: @Sendable () -> Date

    public init(preview: WeeklyPostPreview, now: @escaping @Sendable () -> Date) {
        self.preview = preview
        self.now = now
    }

    public func postNow(_ invocation: CommandInvocation) async -> CommandResult {
        do {
            // In a terminal the console's language stands for the chat's.
            switch try await preview.draft(chat: invocation.targetChatID, dueAt: now(), unchosen: invocation.language) {
            case .nobodyTracked: return .reply(.text(TrackedCommand.emptyRoster(of: invocation)))
            case .lastFMDown: return .reply(.text(invocation.language.text(.weeklyLastFMDown)))
            case .messages(let messages, _): return .reply(.text(messages.map(\.text).joined(separator: "\n\n")))
            }
        } catch {
            return .reply(.text(invocation.language.text(.weeklyNotComposed)))
        }
    }
}
