import Foundation

/// The wirings without Telegram: a terminal session, and the weekly post's dry run.
extension BotAssembly {
    /// What a terminal session needs: the commands, and collages for `--collage`.
    public struct TerminalSession: Sendable {
        public let commands: BotCommands
        public let photos: CollagePhotos
    }

    /// A terminal session: no Telegram, state in `store` (covers are not kept on disk);
    /// `postnow` prints the post.
    public func terminal(store: BotStore) -> TerminalSession {
        let breaker = breaker()
        let lastFM = lastFM(breaker: breaker, store: store)
        let listening = listening(lastFM: lastFM, store: store)
        let preview = WeeklyPostPreview(
            composer: WeeklyPostComposer(engine: ThrowbackEngine(history: listening, now: options.now)), store: store,
            layout: WeeklyPostLayout(formatter: .plain, photos: nil)
        )
        let weekly = WeeklyPostControls(
            calendar: calendar, changes: ScheduleChanges(), posting: TerminalWeeklyPosting(preview: preview, now: options.now), now: options.now
        )
        return TerminalSession(
            commands: commands(lastFM: lastFM, listening: listening, breaker: breaker, store: store, telegram: nil, weekly: weekly),
            photos: collagePhotos(lastFM: lastFM, store: store, keepCovers: false)
        )
    }

    /// How the bot splits a weekly post: Telegram HTML in messages of `weeklyMessageLength`,
    /// opening with the collage `photos` draws where the chat has covers on.
    func weeklyLayout(photos: CollagePhotos?) -> WeeklyPostLayout {
        WeeklyPostLayout(formatter: ChartFormatter(markup: .telegramHTML, maxLength: options.weeklyMessageLength), photos: photos)
    }

    /// The weekly post exactly as the bot would send it, for `post-weekly --dry-run`: over the
    /// same Last.fm chain and layout, with no Telegram, no outbox and no covers kept on disk.
    /// Given a read-only `store`, it records nothing (the Last.fm cache's writes fail quietly).
    public func weeklyPreview(store: BotStore) -> WeeklyPostPreview {
        let lastFM = lastFM(breaker: breaker(), store: store)
        let composer = WeeklyPostComposer(engine: ThrowbackEngine(history: listening(lastFM: lastFM, store: store), now: options.now))
        let layout = weeklyLayout(photos: collagePhotos(lastFM: lastFM, store: store, keepCovers: false))
        return WeeklyPostPreview(composer: composer, store: store, layout: layout)
    }
}
