import Foundation
import Logging
import Networking
import ServiceLifecycle
import WeeklyCharts

/// When weekly posts are due, and for which chats.
public struct WeeklyCalendar: Sendable {
    /// `THROWBACK_SCHEDULE` in `THROWBACK_TIMEZONE`, for chats without a schedule of their own.
    public var defaultTime: PostingTime
    /// `THROWBACK_CHAT_ID`: the one chat whose post is on until an admin turns it off.
    public var defaultChat: Int64?

    public init(defaultTime: PostingTime, defaultChat: Int64?) {
        self.defaultTime = defaultTime
        self.defaultChat = defaultChat
    }

    /// From `THROWBACK_SCHEDULE`, `THROWBACK_TIMEZONE` and `THROWBACK_CHAT_ID`.
    public init(_ configuration: BotConfiguration) {
        self.init(defaultTime: configuration.defaultPostingTime, defaultChat: configuration.throwbackChatID)
    }

    /// A chat's posting time: its own schedule and zone where set.
    public func time(for settings: ChatSettings) -> PostingTime {
        let schedule = settings.schedule.flatMap(WeeklySchedule.init) ?? defaultTime.schedule
        return settings.scheduleZone.flatMap { PostingTime(schedule: schedule, zoneNamed: $0) }
            ?? PostingTime(schedule: schedule, zone: defaultTime.zone, zoneName: defaultTime.zoneName)
    }

    /// The chats whose weekly post is on, with their settings.
    public func chatsWithPostOn(_ store: BotStore) async throws -> [ChatSettings] {
        var chats = try await store.allSettings().filter { $0.weeklyPostIsOn(defaultChat: defaultChat) }
        if let defaultChat, !chats.contains(where: { $0.id == defaultChat }) {
            let settings = try await store.settings(for: defaultChat)
            if settings.weeklyPostIsOn(defaultChat: defaultChat) { chats.append(settings) }
        }
        return chats
    }

    /// The instant a chat's post for the current week was due, if it was due in a Last.fm
    /// week that is not over yet, while the chat's post was on: the post to send (or catch
    /// up on) now. A post turned on, or rescheduled, after its time this week had passed was
    /// never missed: the first one comes at the next scheduled time.
    public func dueInstant(for settings: ChatSettings, now: Date) -> Date? {
        let due = time(for: settings).previous(atOrBefore: now)
        guard now < LastFMWeek.nextBoundary(after: due) else { return nil }
        if let since = settings.weeklySince, due.timeIntervalSince1970 < TimeInterval(since) { return nil }
        return due
    }
}

/// Wakes the scheduler when a chat's weekly settings change, so that a new schedule or a
/// `weekly on` takes effect at once.
public typealias ScheduleChanges = WakeSignal

/// The weekly post as a service in the bot's service group: it sleeps on its clock until the
/// next chat's post is due, posts every due chat (a few at a time, so one slow chat does not
/// hold up the others), and on start catches up on posts that fell due while the bot was
/// down, as long as their week is not over. It also finishes posts whose process stopped
/// while composing them, once their lease has run out. It ends with graceful shutdown; a
/// post cut short is finished after the restart.
public struct WeeklyScheduler: Service, CustomStringConvertible {
    private let poster: WeeklyPoster
    private let store: BotStore
    private let calendar: WeeklyCalendar
    private let changes: ScheduleChanges
    private let clock: ElapsedClock
    private let now: @Sendable () -> Date
    private let maxConcurrentChats: Int
    /// The longest sleep: settings made elsewhere and wall-clock changes are noticed by then.
    private let maxSleep: Duration
    /// Waits after a round in which some post could not go out, or the chats not be read.
    private let retry: RetryPolicy
    private let logger: Logger

    public init(
        poster: WeeklyPoster, store: BotStore, calendar: WeeklyCalendar, changes: ScheduleChanges,
        clock: any Clock<Duration>, now: @escaping @Sendable () -> Date, maxConcurrentChats: Int = 4,
        maxSleep: Duration = .seconds(3600),
        retry: RetryPolicy = RetryPolicy(maxAttempts: .max, initialDelay: .seconds(300), maxDelay: .seconds(900), jitter: 0.2),
        logger: Logger
    ) {
        self.poster = poster
        self.store = store
        self.calendar = calendar
        self.changes = changes
        self.clock = ElapsedClock(clock)
        self.now = now
        self.maxConcurrentChats = max(1, maxConcurrentChats)
        self.maxSleep = maxSleep
        self.retry = retry
        self.logger = logger
    }

    public var description: String { "WeeklyScheduler" }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                // A round that left something undone goes again after the backoff, or at the
                // next post if that is sooner.
                let next = try? await retry.run(
                    sleep: { try await rest(for: $0) },
                    wait: { error, attempt in (error as? UnfinishedRound).map { min(retry.delay(beforeRetry: attempt), untilNow($0.next)) } }
                ) {
                    let wake = await tick()
                    if wake.failed { throw UnfinishedRound(next: wake.at) }
                    return wake.at
                }
                guard let next else { return }
                try? await rest(for: untilNow(next))
            }
        }
    }

    /// A round that left something undone, and when the next post is due.
    private struct UnfinishedRound: Error {
        var next: Date
    }

    /// How long from now until `date`.
    private func untilNow(_ date: Date) -> Duration {
        .seconds(max(0, date.timeIntervalSince(now())))
    }

    /// Sleeps at most `maxSleep`, and no longer than until a chat's weekly settings change;
    /// throws once cancelled.
    private func rest(for duration: Duration) async throws {
        await changes.wait(for: min(duration, maxSleep), on: clock)
        try Task.checkCancellation()
    }

    /// The chats whose post is due at `now` (or still due, for a post missed while the bot was
    /// down), with the instant each was due, in chat order.
    ///
    /// - Parameters:
    ///   - includingPosted: also chats whose post for that week already went out (`--force`).
    ///   - only: limit to one chat.
    public func due(at now: Date, includingPosted: Bool = false, only: Int64? = nil) async throws -> [(chat: Int64, instant: Date)] {
        var due: [(chat: Int64, instant: Date)] = []
        for settings in try await calendar.chatsWithPostOn(store).sorted(by: { $0.id < $1.id }) where only == nil || settings.id == only {
            switch try await calendar.status(of: settings, in: store, at: now) {
            case .due(let instant): due.append((settings.id, instant))
            case .posted(let instant, _) where includingPosted: due.append((settings.id, instant))
            case .posted, .off, .upcoming: continue
            }
        }
        return due
    }

    /// When the scheduler wakes next, and whether this round left something undone.
    public struct Wake: Sendable {
        public var at: Date
        public var failed: Bool
    }

    /// Posts every chat that is due now, and finishes posts left open by a stopped process;
    /// returns when the next post is due.
    @discardableResult
    public func tick() async -> Wake {
        let now = now()
        var work: [(chat: Int64, instant: Date)]
        var upcoming: Date
        do {
            work = try await due(at: now)
            upcoming = try await calendar.chatsWithPostOn(store).map { calendar.time(for: $0).next(after: now) }.min()
                ?? now.addingTimeInterval(7 * 24 * 3600)
            for (progress, freeAt) in try await store.openWeeklyPosts(since: WeeklyPoster.week(dueAt: now)) {
                if freeAt > now {
                    upcoming = min(upcoming, freeAt)
                } else if !work.contains(where: { $0.chat == progress.chatID }) {
                    work.append((progress.chatID, progress.dueAt))
                }
            }
        } catch {
            // Shutdown cancels what was in progress: that is no error.
            if !Task.isCancelled { logger.error("could not read the chats for the weekly post", metadata: ["error": "\(error)"]) }
            return Wake(at: now.addingTimeInterval(retry.delay(beforeRetry: 1).seconds), failed: true)
        }
        var failed = false
        await withTaskGroup(of: WeeklyPostOutcome.self) { group in
            var next = work.makeIterator()
            for _ in 0..<maxConcurrentChats {
                guard let (chat, instant) = next.next() else { break }
                group.addTask { await poster.post(chat: chat, dueAt: instant) }
            }
            for await outcome in group {
                if [.lastFMDown, .interrupted, .storageFailed].contains(outcome) { failed = true }
                guard !Task.isCancelled, let (chat, instant) = next.next() else { continue }
                group.addTask { await poster.post(chat: chat, dueAt: instant) }
            }
        }
        return Wake(at: upcoming, failed: failed)
    }
}
