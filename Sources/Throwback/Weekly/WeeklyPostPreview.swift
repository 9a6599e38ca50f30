import Foundation

/// A chat's weekly post as it would read now, without claiming or sending anything: for
/// `post-weekly --dry-run` and for `postnow` in a terminal.
public struct WeeklyPostPreview: Sendable {
    private let composer: WeeklyPostComposer
    private let store: BotStore

    public init(composer: WeeklyPostComposer, store: BotStore) {
        self.composer = composer
        self.store = store
    }

    /// The messages of `chat`'s post due at `instant`; empty when nobody is tracked.
    public func messages(chat: Int64, dueAt instant: Date, formatter: ChartFormatter) async throws -> [String] {
        let settings = try await store.settings(for: chat)
        let roster = try await store.roster(of: chat)
        guard !roster.isEmpty else { return [] }
        var sections: [String] = []
        for user in roster {
            sections.append(formatter.weeklySection(try await composer.entry(for: user, minimumPlayCount: settings.minimumPlayCount, at: instant)))
        }
        let header = formatter.weeklyHeader(for: WeeklyPostComposer.week(at: instant))
        return formatter.weeklyMessages(header: header, sections: sections).map(\.text)
    }
}
