import Foundation

/// `postnow` in Telegram: posts to the chat (forced, so it counts as the week's post) and
/// answers the admin only when there is something to say.
public struct TelegramWeeklyPosting: WeeklyPosting {
    private let poster: WeeklyPoster
    private let now: @Sendable () -> Date

    public init(poster: WeeklyPoster, now: @escaping @Sendable () -> Date) {
        self.poster = poster
        self.now = now
    }

    public func postNow(_ invocation: CommandInvocation) async -> BotReply {
        let chat = invocation.targetChatID
        switch await poster.post(chat: chat, dueAt: now(), force: true) {
        case .posted(let messages, _):
            // In the chat itself the post speaks for itself.
            return chat == invocation.chatID ? .silence : .text("Posted the weekly throwbacks to chat \(chat) (\(WeekDescription.count(messages, "message"))).")
        case .inProgress:
            return .text("The weekly post is going out right now.")
        case .alreadyPosted:
            return .text("This week's post has already gone out.")
        case .nobodyTracked:
            return .text(TrackedCommand.emptyRoster(of: invocation))
        case .chatGone:
            return .text("I can’t post in chat \(chat) any more, so its weekly post is now off.")
        case .lastFMDown:
            return .text("Last.fm is having trouble, try again in a minute.")
        case .interrupted:
            return .text("Telegram did not take the whole post. Send postnow again to finish it.")
        case .storageFailed:
            return .text(StorageFailure.message)
        }
    }
}

/// `postnow` in a terminal: the post is the reply, in plain text; nothing is recorded.
public struct TerminalWeeklyPosting: WeeklyPosting {
    private let preview: WeeklyPostPreview
    private let now: @Sendable () -> Date

    public init(preview: WeeklyPostPreview, now: @escaping @Sendable () -> Date) {
        self.preview = preview
        self.now = now
    }

    public func postNow(_ invocation: CommandInvocation) async -> BotReply {
        do {
            let messages = try await preview.messages(chat: invocation.targetChatID, dueAt: now(), formatter: .plain)
            guard !messages.isEmpty else { return .text(TrackedCommand.emptyRoster(of: invocation)) }
            return .text(messages.joined(separator: "\n\n"))
        } catch {
            return .text("The weekly post could not be put together just now. Try again in a minute.")
        }
    }
}
