import Foundation
import Logging
import Networking
import Telegram
import WeeklyCharts

/// What became of one chat's weekly post.
public enum WeeklyPostOutcome: Sendable, Equatable {
    /// Handed to the outbox: these messages (by outbox id), carrying this many users' sections.
    case posted(messages: [Int64], users: Int)
    /// This week's post had already gone out.
    case alreadyPosted
    /// The chat tracks nobody.
    case nobodyTracked
    /// A process is composing this chat's post right now.
    case inProgress
    /// Last.fm failed for every user: nothing was sent; it will be tried again.
    case lastFMDown
    /// Composing stopped (shutdown); the post is finished after the restart.
    case interrupted
    /// The chat's settings or roster could not be read, or the post not recorded.
    case storageFailed

    /// For metrics and logs: `posted`, `already_posted`, …
    public var name: String {
        switch self {
        case .posted: "posted"
        case .alreadyPosted: "already_posted"
        case .nobodyTracked: "nobody_tracked"
        case .inProgress: "in_progress"
        case .lastFMDown: "lastfm_down"
        case .interrupted: "interrupted"
        case .storageFailed: "storage_failed"
        }
    }
}

/// Posts a chat's weekly post exactly once per Last.fm week, on fmbot's autopost model: the
/// post is claimed per (chat, week) with one conditional write, under a lease that makes it
/// this process's alone; its users' weeks are composed; and all its messages are handed to
/// the outbox in the transaction that completes the claim. The outbox then sends each
/// message once. A process that stops while composing leaves its claim to be taken over once
/// the lease runs out, and nothing was enqueued, so nobody is posted twice or skipped.
///
/// Where the chat has covers on, the post opens with one collage of the chat's week: the
/// roster's combined top albums, plays summed across users, with the post's header as its
/// caption. Without a picture, the header opens the first text message instead.
public struct WeeklyPoster: Sendable {
    /// How long a claim is this process's without a renewal; it is renewed after every user.
    public static let lease = Duration.seconds(120)

    private let composer: WeeklyPostComposer
    private let store: BotStore
    private let outbox: OutboxDeliverer?
    private let now: @Sendable () -> Date
    private let logger: Logger
    /// How the post is split into messages; the preview shares it.
    public let layout: WeeklyPostLayout
    private let metrics: BotMetrics
    private let lifetimes: OutboxLifetimes
    /// Names this process on the claims it holds.
    public let owner = UUID().uuidString

    /// - Parameters:
    ///   - outbox: told of the messages once they are committed; nil where another process
    ///     (the bot) will find them.
    ///   - layout: Telegram HTML within 4096 units, with the collage where the chat has covers
    ///     on; tests pass a shorter limit to make a post take several messages.
    public init(
        composer: WeeklyPostComposer, store: BotStore, outbox: OutboxDeliverer?, now: @escaping @Sendable () -> Date,
        layout: WeeklyPostLayout = WeeklyPostLayout(formatter: .telegram, photos: nil), lifetimes: OutboxLifetimes = OutboxLifetimes(),
        metrics: BotMetrics = .none, logger: Logger
    ) {
        self.lifetimes = lifetimes
        self.composer = composer
        self.store = store
        self.outbox = outbox
        self.now = now
        self.layout = layout
        self.metrics = metrics
        self.logger = logger
    }

    /// The Last.fm week of a post due at `instant`.
    public static func week(dueAt instant: Date) -> Int64 {
        Int64(LastFMWeek.start(of: instant).timeIntervalSince1970)
    }

    /// Posts `chat`'s weekly post for the Last.fm week that holds `instant`, the moment it
    /// was due, or finishes one a stopped process claimed. `force` posts again even if this
    /// week's post went out.
    public func post(chat: Int64, dueAt instant: Date, force: Bool = false) async -> WeeklyPostOutcome {
        let claim: WeeklyClaim?
        do {
            claim = try await store.write { [owner, now] transaction in
                guard !(try transaction.roster(of: chat)).isEmpty else { return nil }
                return try transaction.claimWeeklyPost(
                    chat: chat, week: Self.week(dueAt: instant), dueAt: instant, force: force, owner: owner, lease: Self.lease, now: now()
                )
            }
        } catch {
            return report(Task.isCancelled ? .interrupted : .storageFailed, chat: chat, error: error)
        }
        switch claim {
        case nil: return report(.nobodyTracked, chat: chat)
        case .alreadyPosted?: return report(.alreadyPosted, chat: chat)
        case .heldElsewhere?: return report(.inProgress, chat: chat)
        case .claimed(let progress)?: return await compose(progress)
        }
    }

    /// Claims a chat's post in a `postnow` command's transaction, forced, so that it counts
    /// as this week's. The reply says why it could not be, or is silence; `finish` then
    /// composes it, once the command has committed.
    public func claimNow(
        chat: Int64, dueAt instant: Date, reply: ReplyTarget, language: Language = .english, in transaction: StoreTransaction
    ) throws -> BotReply {
        guard !(try transaction.roster(of: chat)).isEmpty else {
            return .text(TrackedCommand.emptyRoster(chat, askedIn: reply.chatID, in: language))
        }
        switch try transaction.claimWeeklyPost(
            chat: chat, week: Self.week(dueAt: instant), dueAt: instant, force: true, owner: owner, lease: Self.lease, reply: reply, now: now()
        ) {
        case .claimed: return .silence
        case .heldElsewhere, .alreadyPosted: return .text(language.text(.weeklyGoingOut))
        }
    }

    /// Composes and enqueues a post this process claimed in `claimNow`, if it still holds it.
    public func finish(chat: Int64, dueAt instant: Date) async {
        let week = Self.week(dueAt: instant)
        let open = try? await store.openWeeklyPosts(since: week).first { $0.progress.chatID == chat && $0.progress.week == week }
        guard let open, open.freeAt > now() else { return }
        _ = await compose(open.progress)
    }

    private func compose(_ progress: WeeklyPostProgress) async -> WeeklyPostOutcome {
        var logger = logger
        logger[metadataKey: "chat"] = "\(progress.chatID)"
        let settings: ChatSettings
        let roster: [RosterEntry]
        do {
            settings = try await store.settings(for: progress.chatID)
            roster = try await store.roster(of: progress.chatID)
        } catch {
            return await give(up: progress, as: Task.isCancelled ? .interrupted : .storageFailed, error: error, logger: logger)
        }
        var entries: [WeeklyEntry] = []
        do {
            for user in roster {
                entries.append(try await composer.entry(for: user, minimumPlayCount: settings.minimumPlayCount, at: progress.dueAt))
                guard try await store.write({ [owner, now] in
                    try $0.renewLease(progress, owner: owner, lease: Self.lease, now: now())
                }) else {
                    return report(.inProgress, chat: progress.chatID)
                }
            }
        } catch {
            return await give(up: progress, as: Task.isCancelled || error is CancellationError ? .interrupted : .storageFailed, error: error, logger: logger)
        }
        if !entries.isEmpty, entries.allSatisfy({ $0.content == .unavailable }) {
            return await give(up: progress, as: .lastFMDown, logger: logger)
        }
        let messages = await messages(of: entries, progress: progress, settings: settings)
        var confirmation: OutboxMessage?
        if let reply = progress.reply, reply.chatID != progress.chatID {
            let language = await language(of: reply)
            confirmation = answer(language.text(.weeklyPosted, String(progress.chatID), language.count(messages.count, .messages)), to: reply)
        }
        do {
            let enqueued = try await store.write { [owner, now, confirmation] transaction -> [OutboxMessage]? in
                guard try transaction.completeWeeklyPost(progress, owner: owner, at: now()) else { return nil }
                return try transaction.enqueue(messages + (confirmation.map { [$0] } ?? []), at: now())
            }
            guard let enqueued else { return report(.inProgress, chat: progress.chatID) }
            outbox?.accept(enqueued)
            return report(.posted(messages: enqueued.prefix(messages.count).map(\.id), users: entries.count), chat: progress.chatID)
        } catch {
            return report(.storageFailed, chat: progress.chatID, error: error)
        }
    }

    /// The post's messages, as `layout` splits them, for the outbox.
    private func messages(of entries: [WeeklyEntry], progress: WeeklyPostProgress, settings: ChatSettings) async -> [OutboxMessage] {
        let expiry = LastFMWeek.nextBoundary(after: Date(timeIntervalSince1970: TimeInterval(progress.week) + 1))
        let chat = progress.chatID
        let topic = settings.weeklyTopicID
        let language = settings.chosenLanguage ?? .english
        return await layout.messages(of: entries, dueAt: progress.dueAt, covers: settings.covers, in: language).map { message in
            switch message {
            case let .collage(jpeg, caption):
                let photo = PhotoSource.upload(InputFile(filename: "week.jpg", contentType: "image/jpeg", data: jpeg))
                // A picture Telegram refuses still leaves the post its header, as the caption alone.
                return OutboxMessage(
                    chatID: chat, kind: .weekly, request: TelegramRequest<SentMessage>.sendPhoto(chatID: chat, photo: photo, captionHTML: caption, topic: topic),
                    expiresAt: expiry
                )
            case .text(let html):
                return OutboxMessage(
                    chatID: chat, kind: .weekly, request: TelegramRequest<SentMessage>.sendMessage(chatID: chat, html: html, topic: topic),
                    expiresAt: expiry
                )
            }
        }
    }

    /// Ends a claim nothing was enqueued under: open for another try where that may help, and
    /// with a word to whoever asked for it.
    private func give(up progress: WeeklyPostProgress, as outcome: WeeklyPostOutcome, error: (any Error)? = nil, logger: Logger) async -> WeeklyPostOutcome {
        var apology: OutboxMessage?
        if let reply = progress.reply, [.lastFMDown, .storageFailed].contains(outcome) {
            let language = await language(of: reply)
            apology = answer(outcome == .lastFMDown ? language.text(.weeklyLastFMDown) : StorageFailure.message(in: language), to: reply)
        }
        do {
            // A forced post that failed is not retried by itself: whoever forced it hears why.
            let retry = outcome == .interrupted || progress.reply == nil
            let enqueued = try await store.write { [owner, now, apology] transaction in
                try transaction.releaseWeeklyPost(progress, owner: owner, retry: retry, at: now())
                return try transaction.enqueue(apology.map { [$0] } ?? [], at: now())
            }
            outbox?.accept(enqueued)
        } catch {
            logger.error("could not release a weekly post's claim; it is taken over once its lease ends", metadata: ["error": "\(error)"])
        }
        return report(outcome, chat: progress.chatID, error: error)
    }

    /// A one-line answer to `reply`, which waits no longer than replies do.
    /// The language of the chat that asked for a post: its admins' choice, else English.
    private func language(of reply: ReplyTarget) async -> Language {
        (try? await store.settings(for: reply.chatID).chosenLanguage) ?? .english
    }

    private func answer(_ text: String, to reply: ReplyTarget) -> OutboxMessage {
        let html = ChartFormatter.telegram.fitted(text, limit: ChartFormatter.telegram.maxLength)
        return OutboxMessage(
            chatID: reply.chatID, kind: .reply,
            request: TelegramRequest<SentMessage>.sendMessage(chatID: reply.chatID, html: html, replyTo: reply.messageID, topic: reply.topicID),
            expiresAt: lifetimes.replyExpiry(askedAt: now())
        )
    }

    private func report(_ outcome: WeeklyPostOutcome, chat: Int64, error: (any Error)? = nil) -> WeeklyPostOutcome {
        var logger = logger
        logger[metadataKey: "chat"] = "\(chat)"
        metrics.increment("vinylogue_weekly_posts_total", [("outcome", outcome.name)])
        switch outcome {
        case let .posted(messages, users):
            logger.info("weekly post handed to the outbox", metadata: ["messages": "\(messages.count)", "users": "\(users)"])
        case .alreadyPosted, .nobodyTracked, .inProgress:
            logger.info("weekly post skipped", metadata: ["reason": "\(outcome.name)"])
        case .lastFMDown, .interrupted:
            logger.notice("weekly post not sent", metadata: ["reason": "\(outcome.name)"])
        case .storageFailed:
            logger.error("weekly post not sent", metadata: ["reason": "\(outcome.name)", "error": "\(error.map { "\($0)" } ?? "")"])
        }
        return outcome
    }

    /// The albums the roster played most that week together: plays summed across users (an
    /// album counts as the same whatever the case of its names), most played first.
    static func combinedTopAlbums(of entries: [WeeklyEntry], limit: Int = CollageMaker.maxAlbums) -> [ChartAlbum] {
        var totals: [String: (album: ChartAlbum, order: Int)] = [:]
        for case .chart(let summary, _) in entries.map(\.content) {
            for album in summary.albums {
                let key = "\(album.artist.lowercased())\u{0}\(album.name.lowercased())"
                if var seen = totals[key] {
                    seen.album.playCount = seen.album.playCount.addingReportingOverflow(album.playCount).overflow
                        ? .max : seen.album.playCount + album.playCount
                    totals[key] = seen
                } else {
                    totals[key] = (album, totals.count)
                }
            }
        }
        let ranked = totals.values.sorted {
            $0.album.playCount != $1.album.playCount ? $0.album.playCount > $1.album.playCount : $0.order < $1.order
        }
        return ranked.prefix(limit).enumerated().map { index, entry in
            ChartAlbum(artist: entry.album.artist, name: entry.album.name, playCount: entry.album.playCount, rank: index + 1)
        }
    }
}
