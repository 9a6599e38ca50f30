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
            """
    )

    @Flag(help: "Print the messages instead of sending them; nothing is recorded.")
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
        // A dry run sends nothing, so it works without a token.
        let token = try dryRun
            ? environment.configuration.telegramToken ?? Secret("dry-run")
            : environment.require { try environment.configuration.requireTelegramToken() }
        let store = try environment.openStore()
        let services = try environment.assembly(demo: false).services(telegramTransport: environment.transport, token: token, store: store)
        let now = Date()
        let due = try await services.scheduler.due(at: now, includingPosted: force, only: chat)
        guard !due.isEmpty else {
            print(chat.map { "Chat \($0) has no weekly post due (it is off, not due yet, or already posted this week; --force posts again)." }
                ?? "No chat has a weekly post due.")
            return
        }
        var failed = false
        // One bound for the whole run: past it, the bot sends what is left.
        let deadline = ContinuousClock.now + .seconds(seconds)
        for (index, item) in due.enumerated() {
            let progress = "[\(index + 1)/\(due.count)] chat \(item.chat)"
            if dryRun {
                let messages = try await services.preview.messages(chat: item.chat, dueAt: item.instant, formatter: .plain)
                print("\(progress): \(messages.isEmpty ? "nobody is tracked" : WeekDescription.count(messages.count, "message"))")
                for message in messages { print("\n" + message + "\n") }
                continue
            }
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
