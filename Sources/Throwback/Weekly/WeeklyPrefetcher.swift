import Foundation
import Logging
import Networking
import ServiceLifecycle
import WeeklyCharts

/// Fetches the weeks of the weekly posts due in the next day ahead of time, so that at the due
/// minute the posts are composed from the cache and go out as fast as Telegram takes them. A
/// post's content is known early: the weeks it shows (one year, five and ten before) are past,
/// and a past week's chart is kept for good.
///
/// It asks through the weekly post's own composer, so it fills exactly the caches the post
/// reads, and as background work (`RequestPriority.background`): the rate limiters give
/// commands and inline queries their slots first. The work is spread over the time left
/// before each post, one user at a time. A user whose week could not be fetched (the source
/// failing, its breaker open) is left for later, after a wait that grows while failures go on:
/// the post fetches what is still missing at its minute, as it would without prefetching.
///
/// A week's list of weeks is kept only until the Last.fm week ends (Sunday 12:00 UTC), so a
/// post is prefetched only once the week it falls in has begun.
public struct WeeklyPrefetcher: Service, CustomStringConvertible {
    /// How far ahead posts are prefetched.
    public static let horizon: TimeInterval = 24 * 3600

    private let composer: WeeklyPostComposer
    private let layout: WeeklyPostLayout
    private let store: BotStore
    private let calendar: WeeklyCalendar
    private let clock: ElapsedClock
    private let now: @Sendable () -> Date
    /// The longest wait between two looks at the chats: chats and rosters changed meanwhile
    /// are prefetched from then on.
    private let replanEvery: Duration
    /// Waits after a user's week could not be fetched.
    private let retry: RetryPolicy
    private let metrics: BotMetrics
    private let logger: Logger

    public init(
        composer: WeeklyPostComposer, layout: WeeklyPostLayout, store: BotStore, calendar: WeeklyCalendar, clock: any Clock<Duration>,
        now: @escaping @Sendable () -> Date, replanEvery: Duration = .seconds(900),
        retry: RetryPolicy = RetryPolicy(maxAttempts: .max, initialDelay: .seconds(300), maxDelay: .seconds(1800), jitter: 0.2),
        metrics: BotMetrics = .none, logger: Logger
    ) {
        self.composer = composer
        self.layout = layout
        self.store = store
        self.calendar = calendar
        self.clock = ElapsedClock(clock)
        self.now = now
        self.replanEvery = replanEvery
        self.retry = retry
        self.metrics = metrics
        self.logger = logger
    }

    public var description: String { "WeeklyPrefetcher" }

    /// One post due within the horizon, and whether its week has begun (it can be fetched).
    public struct Post: Sendable {
        public var settings: ChatSettings
        public var dueAt: Date
        public var roster: [RosterEntry]
        public var fetchable: Bool

        /// Names one user of this post among those fetched.
        func key(for user: RosterEntry) -> String {
            "\(settings.id)|\(Int64(dueAt.timeIntervalSince1970))|\(user.nameKey)"
        }
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var done: Set<String> = []
            var failures = 0
            while !Task.isCancelled {
                let pause: Duration
                do {
                    let posts = try await Self.upcoming(at: now(), calendar: calendar, store: store)
                    done = done.intersection(posts.flatMap { post in post.roster.map(post.key) })
                    switch try await prefetch(posts, done: &done, failures: &failures) {
                    case .finished: pause = untilNextPlan(posts)
                    case .replan: pause = .zero
                    }
                } catch {
                    if Task.isCancelled { return }
                    logger.warning("could not read the chats to prefetch their weekly posts", metadata: ["error": "\(error)"])
                    failures += 1
                    pause = retry.delay(beforeRetry: failures)
                }
                try? await clock.sleep(pause)
            }
        }
    }

    /// The posts due within the horizon from `now`, soonest first, with their rosters.
    public static func upcoming(at now: Date, calendar: WeeklyCalendar, store: BotStore) async throws -> [Post] {
        var posts: [Post] = []
        for settings in try await calendar.chatsWithPostOn(store) {
            let due = calendar.time(for: settings).next(after: now)
            guard due.timeIntervalSince(now) <= Self.horizon else { continue }
            let roster = try await store.roster(of: settings.id)
            guard !roster.isEmpty else { continue }
            posts.append(Post(settings: settings, dueAt: due, roster: roster, fetchable: Self.isFetchable(dueAt: due, now: now)))
        }
        return posts.sorted { ($0.dueAt, $0.settings.id) < ($1.dueAt, $1.settings.id) }
    }

    /// How a round of prefetching ended.
    enum Round {
        /// Every fetchable post is fetched.
        case finished
        /// `replanEvery` has passed: the chats are looked at again before going on.
        case replan
    }

    /// Whether a post's weeks can be fetched at `now` and still be in the cache at its minute:
    /// the list of a user's weeks is kept only until the Last.fm week ends.
    static func isFetchable(dueAt due: Date, now: Date) -> Bool {
        now >= LastFMWeek.start(of: due)
    }

    /// Fetches the users of fetchable posts not `done` yet, one at a time, spread over the time
    /// left before each post. A user whose week could not be fetched is left to the post's
    /// minute (and the next round), after a wait that grows while the source keeps failing.
    private func prefetch(_ posts: [Post], done: inout Set<String>, failures: inout Int) async throws -> Round {
        let started = clock.elapsed()
        let snapshot = done
        var pending = posts.filter { post in post.fetchable && post.roster.contains { !snapshot.contains(post.key(for: $0)) } }
        var usersLeft = pending.reduce(0) { total, post in total + post.roster.filter { !snapshot.contains(post.key(for: $0)) }.count }
        report(posts, done: done)
        while !pending.isEmpty {
            let post = pending.removeFirst()
            var entries: [WeeklyEntry] = []
            // A user fetched in an earlier round (its post had a failure) costs no request and no wait.
            for (index, user) in post.roster.enumerated() where !snapshot.contains(post.key(for: user)) {
                // The post's own fetch: a user fetched before answers from the cache.
                let entry = try await RequestPriority.$current.withValue(.background) {
                    try await composer.entry(for: user, minimumPlayCount: post.settings.minimumPlayCount, at: post.dueAt)
                }
                usersLeft -= 1
                guard entry.content != .unavailable else {
                    failures += 1
                    logger.notice("could not prefetch a user's week; waiting before the next", metadata: ["chat": "\(post.settings.id)"])
                    try await clock.sleep(retry.delay(beforeRetry: failures))
                    continue
                }
                failures = 0
                entries.append(entry)
                done.insert(post.key(for: user))
                // Spread over the time left before the soonest post still to fetch.
                let soonest = index + 1 < post.roster.count ? post.dueAt : pending.first?.dueAt
                if let soonest { try await clock.sleep(gap(before: soonest, users: usersLeft)) }
            }
            await RequestPriority.$current.withValue(.background) {
                await layout.fetchCovers(of: entries, covers: post.settings.covers)
            }
            report(posts, done: done)
            if !pending.isEmpty, clock.elapsed() - started >= replanEvery { return .replan }
        }
        return .finished
    }

    /// The wait before the next user: three quarters of the time left before `due` shared by
    /// the `users` still to fetch (the last quarter is the margin for failures and for users
    /// that take long), and no longer than until the next look at the chats.
    private func gap(before due: Date, users: Int) -> Duration {
        guard users > 0 else { return .zero }
        let left = due.timeIntervalSince(now()) * 0.75
        return min(.seconds(max(0, left) / Double(users)), replanEvery)
    }

    /// How long until the chats are looked at again: at the next replan, or as soon as the
    /// week of a post within the horizon begins.
    private func untilNextPlan(_ posts: [Post]) -> Duration {
        let now = now()
        guard let begins = posts.filter({ !$0.fetchable }).map({ LastFMWeek.start(of: $0.dueAt).timeIntervalSince(now) }).min() else {
            return replanEvery
        }
        return min(replanEvery, .seconds(max(1, begins)))
    }

    /// Publishes how many of the users in posts due within the horizon have their weeks fetched.
    private func report(_ posts: [Post], done: Set<String>) {
        let due = posts.reduce(0) { $0 + $1.roster.count }
        let fetched = posts.reduce(0) { total, post in total + post.roster.filter { done.contains(post.key(for: $0)) }.count }
        metrics.record("vinylogue_weekly_prefetch_due_users", Double(due))
        metrics.record("vinylogue_weekly_prefetch_fetched_users", Double(fetched))
    }
}
