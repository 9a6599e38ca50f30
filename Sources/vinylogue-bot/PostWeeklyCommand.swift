import ArgumentParser
import Foundation
import Networking
import Throwback

/// `vinylogue-bot post-weekly [--dry-run] [--force] [--chat ID]`: runs the weekly post once
/// for the chats that are due, then exits.
struct PostWeeklyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "post-weekly",
        abstract: "Post the weekly throwbacks once, to every chat whose post is due, then exit.",
        discussion: """
            A chat is due when its weekly post is on and its day and time have passed in the current \
            Last.fm week without a post. Each chat gets its post once a week, however often this runs.

            --dry-run prints each message as the bot would send it, split as it would be, and records \
            nothing. With --chat it shows that chat's next post whether or not it is due or on; without \
            it, the chats that are due (with --force, every chat whose post is on).
            """
    )

    @Flag(help: "Print the messages instead of sending them; nothing is recorded and no database is created.")
    var dryRun = false

    @Flag(help: "Post again to chats whose post already went out this week.")
    var force = false

    // Unconditional, so that a group's negative id is read as the value, not as a flag.
    @Option(parsing: .unconditional, help: "Only this chat id (groups and channels have negative ids, e.g. -1001234567890).")
    var chat: Int64?

    @Option(help: ArgumentHelp(
        "How long to keep sending, e.g. 10m or 90s; what is left then stays in the outbox for the bot to send.",
        valueName: "time"
    ))
    var wait = "10m"

    func run() async throws {
        guard let seconds = BotConfiguration.duration(wait), seconds > 0 else {
            throw ValidationError("--wait takes a time such as 10m, 90s or 600 (seconds), not “\(wait)”.")
        }
        let environment = try await Environment.load()
        if dryRun { return try await WeeklyDryRun(chat: chat, force: force).run(environment) }
        let token = try environment.require { try environment.configuration.requireTelegramToken() }
        let store = try await environment.openStore()
        let assembly = try environment.assembly(demo: false)
        let services = assembly.services(telegramTransport: environment.transport, token: token, store: store)
        let now = Date()
        let due = try await services.scheduler.due(at: now, includingPosted: force, only: chat)
        guard !due.isEmpty else {
            if let chat {
                let settings = try await store.settings(for: chat)
                let status = try await assembly.calendar.status(of: settings, in: store, at: now)
                print("Chat \(chat): nothing posted; \(Self.why(status, time: assembly.calendar.time(for: settings))).")
            } else {
                print("No chat has a weekly post due.")
            }
            return
        }
        var failed = false
        // One bound for the whole run: past it, the bot sends what is left.
        let deadline = ContinuousClock.now + .seconds(seconds)
        for (index, item) in due.enumerated() {
            let progress = "[\(index + 1)/\(due.count)] chat \(item.chat)"
            print("\(progress): posting…")
            let outcome = await services.poster.post(chat: item.chat, dueAt: item.instant, force: force)
            guard case let .posted(messages, users) = outcome else {
                print("\(progress): \(Self.describe(outcome))")
                if outcome != .alreadyPosted && outcome != .nobodyTracked && outcome != .inProgress { failed = true }
                continue
            }
            // The post is in the outbox: send it, and say what became of each message.
            let done = await services.outbox.idle(stoppingAfter: max(.zero, ContinuousClock.now.duration(to: deadline)))
            let states = try await store.outboxStates(of: messages)
            let sent = states.values.filter { $0 == .sent }.count
            let summary = "\(WeekDescription.count(messages.count, "message")) for \(WeekDescription.count(users, "user"))"
            guard sent < messages.count else {
                print("\(progress): posted \(summary)")
                continue
            }
            let waiting = states.values.filter { $0 == .pending || $0 == .sending }.count
            let unsent = messages.count - sent - waiting
            if done {
                print("\(progress): sent \(sent) of \(summary); \(waiting) wait in the outbox for the bot (or the next post-weekly), "
                    + "\(unsent) could not be sent (see the log)")
            } else {
                print("\(progress): sent \(sent) of \(summary) within --wait \(wait); \(waiting) left in the outbox for the bot to send"
                    + (unsent > 0 ? ", \(unsent) could not be sent (see the log)" : ""))
            }
            if unsent > 0 || !done { failed = true }
        }
        if failed { throw ExitCode.failure }
    }

    /// Why a chat that is not due gets nothing now: `force` posts a chat that was posted, so
    /// the answer never suggests a flag that was given.
    static func why(_ status: WeeklyPostStatus, time: PostingTime) -> String {
        switch status {
        case .off: "its weekly post is off (an admin turns it on there with “weekly on”)"
        case .upcoming(let next): "its weekly post is not due until \(time.moment(next))"
        // It fell due between the two looks.
        case .due: "its weekly post fell due just now; run again"
        case .posted(_, let next): "this week's post already went out (--force posts it again); the next is due \(time.moment(next))"
        }
    }

    static func describe(_ outcome: WeeklyPostOutcome) -> String {
        switch outcome {
        case let .posted(messages, users): "posted \(WeekDescription.count(messages.count, "message")) for \(WeekDescription.count(users, "user"))"
        case .alreadyPosted: "already posted this week (use --force to post again)"
        case .nobodyTracked: "nobody is tracked; nothing to post"
        case .inProgress: "another process is posting there right now; skipped"
        case .lastFMDown: "Last.fm failed for every user; nothing sent, try again later"
        case .interrupted: "stopped part-way; run again to send the rest"
        case .storageFailed: "the database could not be read or written"
        }
    }
}
