import ArgumentParser
import Foundation
import Throwback

/// `vinylogue-bot chats`: the chats the bot knows, each with its roster, its settings and its
/// weekly post. It reads the database as it is, beside the running bot, and changes nothing.
struct ChatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chats",
        abstract: "List the chats the bot knows: who each tracks, its settings, and when its weekly post is due.",
        discussion: """
            A chat is listed once it has a roster or a setting of its own, and THROWBACK_CHAT_ID always. \
            It reads the database read-only, so it is safe while the bot runs, and creates none.
            """
    )

    func run() async throws {
        let environment = try await Environment.load()
        let path = environment.configuration.databasePath
        guard let store = try await environment.openStoreForReading() else {
            print("There is no database at \(path) (DATABASE_PATH) yet: the bot knows no chat.")
            return
        }
        let calendar = WeeklyCalendar(environment.configuration)
        var chats = try await store.knownChats()
        if let chat = calendar.defaultChat, !chats.contains(chat) { chats = (chats + [chat]).sorted() }
        guard !chats.isEmpty else {
            print("The bot knows no chat yet: none has a roster or a setting of its own (\(path)).")
            return
        }
        let now = Date()
        print("\(WeekDescription.count(chats.count, "chat")) in \(path):")
        for chat in chats {
            let settings = try await store.settings(for: chat)
            let roster = try await store.roster(of: chat)
            print("")
            for line in try await describe(settings, roster: roster, calendar: calendar, store: store, now: now) {
                print(TerminalText.printable(line))
            }
        }
    }

    /// A chat's lines: its id, then its roster, settings and weekly post, indented.
    private func describe(
        _ settings: ChatSettings, roster: [RosterEntry], calendar: WeeklyCalendar, store: BotStore, now: Date
    ) async throws -> [String] {
        let time = calendar.time(for: settings)
        let schedule = "\(time) (\(settings.schedule == nil ? "the default schedule" : "its own schedule"))"
        let weekly = switch try await calendar.status(of: settings, in: store, at: now) {
        case .off: "off, \(schedule)"
        case .due(let since): "on, \(schedule); due since \(time.moment(since)), not posted yet"
        case .posted(_, let next): "on, \(schedule); posted this week, next due \(time.moment(next))"
        case .upcoming(let next): "on, \(schedule); next due \(time.moment(next))"
        }
        var lines = [
            "chat \(settings.id)",
            "  tracks: \(roster.isEmpty ? "nobody" : roster.map(\.lastFMName).joined(separator: ", "))",
            "  filter: \(settings.minimumPlayCount <= 1 ? "none, every album shows" : "albums with at least \(settings.minimumPlayCount) plays")",
            "  covers: \(settings.covers ? "on" : "off")",
            "  weekly post: \(weekly)",
        ]
        if let topic = settings.weeklyTopicID { lines.append("  weekly post goes to topic \(topic)") }
        if !settings.active { lines.append("  inactive: Telegram refused a message there (the bot was blocked or removed)") }
        return lines
    }
}
