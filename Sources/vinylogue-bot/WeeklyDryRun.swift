import ArgumentParser
import Foundation
import Throwback

/// `post-weekly --dry-run`: prints each message of a weekly post as the bot would send it,
/// split as it would be. It reads the database read-only, creates none, and records nothing:
/// no claim, no outbox row, no cached answer.
struct WeeklyDryRun {
    /// One chat: shown whatever its post's state. Nil: the chats that are due.
    var chat: Int64?
    /// Shows a chat posted this week as it would be posted again, and, without `chat`, every
    /// chat whose post is on.
    var force: Bool

    func run(_ environment: Environment) async throws {
        let path = environment.configuration.databasePath
        guard let store = try await environment.openStoreForReading() else {
            print("There is no database at \(path) (DATABASE_PATH), so nobody is tracked and there is nothing to post.")
            return
        }
        let assembly = try environment.assembly(demo: false)
        let calendar = assembly.calendar
        let preview = assembly.weeklyPreview(store: store)
        let now = Date()
        var shown: [(settings: ChatSettings, status: WeeklyPostStatus)] = []
        if let chat {
            let settings = try await store.settings(for: chat)
            shown = [(settings, try await calendar.status(of: settings, in: store, at: now))]
        } else {
            for settings in try await calendar.chatsWithPostOn(store).sorted(by: { $0.id < $1.id }) {
                let status = try await calendar.status(of: settings, in: store, at: now)
                if force || status.isDue { shown.append((settings, status)) }
            }
        }
        guard !shown.isEmpty else {
            print(force
                ? "No chat has its weekly post on; --chat ID shows any chat's post."
                : "No chat has a weekly post due; --force shows every chat whose post is on, --chat ID any chat's.")
            return
        }
        for (index, (settings, status)) in shown.enumerated() {
            let time = calendar.time(for: settings)
            let instant = status.instant(forced: force)
            let heading = "[\(index + 1)/\(shown.count)] chat \(settings.id): \(describe(status, time: time))"
            switch try await preview.draft(chat: settings.id, dueAt: instant) {
            case .nobodyTracked:
                print("\(heading); nobody is tracked, so there is nothing to post.")
            case .lastFMDown:
                print("\(heading); Last.fm failed for every user, so nothing would be sent now.")
            case let .messages(messages, users):
                print("\(heading); \(WeekDescription.count(messages.count, "message")) for \(WeekDescription.count(users, "user")):")
                for (number, message) in messages.enumerated() {
                    print("\nmessage \(number + 1) of \(messages.count) (\(Self.kind(of: message))):")
                    print(TerminalText.printable(message.text))
                }
            }
            if index < shown.count - 1 { print("") }
        }
    }

    /// What the post shown is, in the chat's zone.
    private func describe(_ status: WeeklyPostStatus, time: PostingTime) -> String {
        switch status {
        case .due(let since): "due since \(time.moment(since))"
        case .upcoming(let next): "due \(time.moment(next))"
        case .posted(_, let next):
            force ? "already posted this week; with --force it would go out again" : "already posted this week; the next post, due \(time.moment(next))"
        case .off(let next): "weekly post is off; were it on, it would post this \(time.moment(next))"
        }
    }

    /// "photo with caption", "text, 3012 characters": the length Telegram's limit applies to.
    private static func kind(of message: WeeklyPostMessage) -> String {
        switch message {
        case .collage: "photo with caption"
        case .text(let html): "text, \(html.utf16.count) characters"
        }
    }
}

extension WeeklyPostStatus {
    /// Whether the post is due and not posted: what `post-weekly` posts.
    var isDue: Bool {
        if case .due = self { true } else { false }
    }

    /// The moment the post shown was, or will be, due: this week's if it is due (or, `forced`,
    /// was posted), else the next.
    func instant(forced: Bool) -> Date {
        switch self {
        case .due(let since): since
        case let .posted(due, next): forced ? due : next
        case .upcoming(let next), .off(let next): next
        }
    }
}
