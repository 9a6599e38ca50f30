import Foundation

/// A chat's weekly post as it would go out now, without claiming, sending or recording
/// anything: for `post-weekly --dry-run` and for `postnow` in a terminal.
public struct WeeklyPostPreview: Sendable {
    /// What a post would be.
    public enum Draft: Sendable, Equatable {
        /// The chat tracks nobody: there is no post.
        case nobodyTracked
        /// Every user's source failed: nothing would be sent now.
        case lastFMDown
        /// These messages, in order, carrying this many users' sections.
        case messages([WeeklyPostMessage], users: Int)
    }

    private let composer: WeeklyPostComposer
    private let store: BotStore
    private let layout: WeeklyPostLayout

    /// - Parameter layout: the poster's, so that the preview is split as the post would be.
    public init(composer: WeeklyPostComposer, store: BotStore, layout: WeeklyPostLayout) {
        self.composer = composer
        self.store = store
        self.layout = layout
    }

    /// `chat`'s post due at `instant`, as the poster would compose it: in the chat's language,
    /// or `unchosen` where its admins chose none.
    public func draft(chat: Int64, dueAt instant: Date, unchosen: Language = .english) async throws -> Draft {
        let settings = try await store.settings(for: chat)
        let roster = try await store.roster(of: chat)
        guard !roster.isEmpty else { return .nobodyTracked }
        var entries: [WeeklyEntry] = []
        for user in roster {
            entries.append(try await composer.entry(for: user, minimumPlayCount: settings.minimumPlayCount, at: instant))
        }
        if entries.allSatisfy({ $0.content == .unavailable }) { return .lastFMDown }
        let language = settings.chosenLanguage ?? unchosen
        return .messages(await layout.messages(of: entries, dueAt: instant, covers: settings.covers, in: language), users: entries.count)
    }
}
