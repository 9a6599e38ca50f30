import Foundation
import LastFM
import Logging
import Networking
import Synchronization
import Telegram

/// What became of one chat's weekly post.
public enum WeeklyPostOutcome: Sendable, Equatable {
    /// Sent: this many messages carrying this many users' sections.
    case posted(messages: Int, users: Int)
    /// This week's post had already gone out.
    case alreadyPosted
    /// The chat tracks nobody.
    case nobodyTracked
    /// Another run is posting to this chat right now.
    case inProgress
    /// Telegram says the chat is gone or the bot was removed: its weekly post is now off.
    case chatGone
    /// Last.fm failed for every user: nothing was sent; it will be tried again.
    case lastFMDown
    /// Sending stopped (shutdown, or Telegram kept failing); the rest goes out on resume.
    case interrupted
    /// The chat's settings or roster could not be read.
    case storageFailed

    /// For metrics and logs: `posted`, `already_posted`, …
    public var name: String {
        switch self {
        case .posted: "posted"
        case .alreadyPosted: "already_posted"
        case .nobodyTracked: "nobody_tracked"
        case .inProgress: "in_progress"
        case .chatGone: "chat_gone"
        case .lastFMDown: "lastfm_down"
        case .interrupted: "interrupted"
        case .storageFailed: "storage_failed"
        }
    }
}

/// Sends a chat's weekly post exactly once per Last.fm week, on fmbot's autopost model: the
/// post is claimed per (chat, week) with one conditional write before anything is sent;
/// each message is recorded as going out before it is sent and with its message id after;
/// a restart in the middle resumes with the users not yet posted, and never posts one twice.
///
/// Where the chat has covers on, the post opens with one collage of the chat's week: the
/// roster's combined top albums, plays summed across users, with the post's header as its
/// caption. Without a picture, the header opens the first text message instead.
public struct WeeklyPoster: Sendable {
    private let composer: WeeklyPostComposer
    private let store: BotStore
    private let telegram: any TelegramClient
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let locks = ChatLocks()
    private let formatter: ChartFormatter
    private let metrics: BotMetrics
    private let photos: CollagePhotos?

    /// - Parameter formatter: Telegram HTML within 4096 units; tests pass a shorter limit to
    ///   make a post take several messages.
    public init(
        composer: WeeklyPostComposer, store: BotStore, telegram: any TelegramClient, now: @escaping @Sendable () -> Date,
        photos: CollagePhotos? = nil, formatter: ChartFormatter = .telegram, metrics: BotMetrics = .none, logger: Logger
    ) {
        self.photos = photos
        self.composer = composer
        self.store = store
        self.telegram = telegram
        self.now = now
        self.formatter = formatter
        self.metrics = metrics
        self.logger = logger
    }

    /// Posts `chat`'s weekly post for the Last.fm week that holds `instant`, the moment it
    /// was due. `force` posts again even if this week's post went out.
    public func post(chat: Int64, dueAt instant: Date, force: Bool = false) async -> WeeklyPostOutcome {
        var logger = logger
        logger[metadataKey: "chat"] = "\(chat)"
        guard locks.take(chat) else { return .inProgress }
        defer { locks.release(chat) }
        let outcome = await postLocked(chat: chat, dueAt: instant, force: force, logger: logger)
        metrics.increment("vinylogue_weekly_posts_total", [("outcome", outcome.name)])
        switch outcome {
        case let .posted(messages, users):
            logger.info("weekly post sent", metadata: ["messages": "\(messages)", "users": "\(users)"])
        case .alreadyPosted, .nobodyTracked, .inProgress:
            logger.info("weekly post skipped", metadata: ["reason": "\(outcome.name)"])
        case .chatGone, .lastFMDown, .interrupted, .storageFailed:
            logger.notice("weekly post not sent", metadata: ["reason": "\(outcome.name)"])
        }
        return outcome
    }

    private func postLocked(chat: Int64, dueAt instant: Date, force: Bool, logger: Logger) async -> WeeklyPostOutcome {
        let week = Int64(LastFMWeek.start(of: instant).timeIntervalSince1970)
        let settings: ChatSettings
        let roster: [RosterEntry]
        var progress: WeeklyPostProgress
        do {
            settings = try await store.settings(for: chat)
            roster = try await store.roster(of: chat)
            guard !roster.isEmpty else { return .nobodyTracked }
            guard let claimed = try await store.claimWeeklyPost(chat: chat, week: week, force: force, now: now()) else { return .alreadyPosted }
            progress = claimed
        } catch {
            logger.error("could not read or claim the weekly post", metadata: ["error": "\(error)"])
            return .storageFailed
        }
        if !progress.postedUsers.isEmpty {
            logger.notice("resuming a weekly post", metadata: ["alreadyPosted": "\(progress.postedUsers.count)", "of": "\(roster.count)"])
        }
        let remaining = roster.filter { !progress.postedUsers.contains($0.nameKey) }
        var entries: [WeeklyEntry] = []
        do {
            for user in remaining {
                entries.append(try await composer.entry(for: user, minimumPlayCount: settings.minimumPlayCount, at: instant))
            }
        } catch {
            return .interrupted
        }
        if progress.messageCount == 0, !entries.isEmpty, entries.allSatisfy({ $0.content == .unavailable }) {
            try? await store.releaseWeeklyPost(progress, at: now())
            return .lastFMDown
        }
        var header = progress.messageCount == 0 ? formatter.weeklyHeader(for: WeeklyPostComposer.week(at: instant)) : nil
        let firstSequence = progress.messageCount
        var sequence = firstSequence
        if let caption = header, settings.covers, let photos,
           let collage = await photos.collage(of: Self.combinedTopAlbums(of: entries)) {
            let photo = PhotoSource.upload(InputFile(filename: "week.jpg", contentType: "image/jpeg", data: collage.jpeg))
            let request = TelegramRequest<SentMessage>.sendPhoto(
                chatID: progress.chatID, photo: photo, captionHTML: caption, topic: settings.weeklyTopicID
            )
            switch await send(request, users: [], sequence: sequence, progress: &progress, logger: logger) {
            case .sent, .maybeSent:
                sequence += 1
                header = nil
            case .refused: sequence += 1
            case .notSent: return .interrupted
            case .gone: return .chatGone
            }
        }
        let messages = formatter.weeklyMessages(header: header, sections: entries.map(formatter.weeklySection))
        for message in messages {
            let users = message.sections.map { entries[$0].key }
            let request = TelegramRequest<SentMessage>.sendMessage(chatID: progress.chatID, html: message.text, topic: settings.weeklyTopicID)
            switch await send(request, users: users, sequence: sequence, progress: &progress, logger: logger) {
            case .sent, .maybeSent, .refused: sequence += 1
            case .notSent: return .interrupted
            case .gone: return .chatGone
            }
        }
        do {
            try await store.completeWeeklyPost(progress, at: now())
        } catch {
            logger.error("could not record a weekly post as complete", metadata: ["error": "\(error)"])
        }
        return .posted(messages: sequence - firstSequence, users: entries.count)
    }

    private enum Delivery {
        case sent, maybeSent, refused, notSent, gone
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

    /// Sends one message of the post, recording it before and after.
    private func send(
        _ request: TelegramRequest<SentMessage>, users: [String], sequence: Int, progress: inout WeeklyPostProgress, logger: Logger
    ) async -> Delivery {
        do {
            try await store.recordWeeklyMessage(progress, sequence: sequence, users: users)
        } catch {
            logger.error("could not record a weekly message before sending; stopping", metadata: ["error": "\(error)"])
            return .notSent
        }
        do {
            let message = try await telegram.send(request)
            // A group that became a supergroup: its records moved with it.
            progress.chatID = message.chatID
            try? await store.recordWeeklyMessageSent(progress, sequence: sequence, messageID: message.messageID, at: now())
            return .sent
        } catch let error where error.certainlyNotSent {
            do { try store.forgetWeeklyMessage(progress, sequence: sequence) } catch {
                logger.error("could not forget an unsent weekly message", metadata: ["error": "\(error)"])
            }
            logger.notice("weekly message not sent; the rest goes out on resume", metadata: ["error": "\(error)"])
            return .notSent
        } catch let error as TelegramError where error.meansChatIsGone {
            logger.notice("the chat is gone or removed the bot; turning its weekly post off", metadata: ["error": "\(error)"])
            try? store.forgetWeeklyMessage(progress, sequence: sequence)
            try? await store.markInactive(progress.chatID)
            return .gone
        } catch let error as TelegramError where error.isRefusal {
            // Telegram read it and said no (a deleted topic, HTML it cannot parse): sending it
            // again would be refused again. Say so plainly rather than call it posted.
            logger.error("Telegram refused a weekly message; it is not sent again this week", metadata: ["error": "\(error)"])
            return .refused
        } catch {
            // It may have reached Telegram: its users count as posted.
            logger.warning("a weekly message may not have arrived; not sending it again", metadata: ["error": "\(error)"])
            return .maybeSent
        }
    }
}

/// The chats being posted to in this process: the scheduler and `postnow` never post to
/// the same chat at once.
private final class ChatLocks: Sendable {
    private let busy = Mutex<Set<Int64>>([])

    func take(_ chat: Int64) -> Bool {
        busy.withLock { $0.insert(chat).inserted }
    }

    func release(_ chat: Int64) {
        _ = busy.withLock { $0.remove(chat) }
    }
}
