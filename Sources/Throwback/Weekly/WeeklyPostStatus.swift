import Foundation

/// Where a chat's weekly post stands at a moment: what the scheduler would do, and what the
/// operator's commands say.
public enum WeeklyPostStatus: Sendable, Equatable {
    /// Off (by default, by an admin, or since the bot was removed); were it on, the next
    /// would be due at `next`.
    case off(next: Date)
    /// Due at `since` and not posted yet: the running bot, or `post-weekly`, posts it now.
    case due(since: Date)
    /// This week's post, due at `due`, went out; the next is due at `next`.
    case posted(due: Date, next: Date)
    /// Not due yet: the next is due at `next`.
    case upcoming(next: Date)
}

extension WeeklyCalendar {
    /// `settings`' chat's weekly post at `now`, with `store` telling whether this week's went out.
    public func status(of settings: ChatSettings, in store: BotStore, at now: Date) async throws -> WeeklyPostStatus {
        let next = time(for: settings).next(after: now)
        guard settings.weeklyPostIsOn(defaultChat: defaultChat) else { return .off(next: next) }
        guard let due = dueInstant(for: settings, now: now) else { return .upcoming(next: next) }
        let posted = try await store.weeklyPostIsComplete(chat: settings.id, week: WeeklyPoster.week(dueAt: due))
        return posted ? .posted(due: due, next: next) : .due(since: due)
    }
}
