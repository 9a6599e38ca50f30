import Logging
import Telegram

/// What a person sees of the bot before sending it anything: the description in an empty
/// chat, the short description on its profile, and the command menus. Everyone's menu has
/// the member commands; group admins' menu adds the admin ones.
public struct BotProfile: Sendable {
    public var description: String
    public var shortDescription: String
    public var memberMenu: [BotCommand]
    public var adminMenu: [BotCommand]

    public static let standardDescription = """
        I bring back your music history from Last.fm. Send /throwback and a Last.fm name, \
        e.g. /throwback alice 3, and I show the albums they played most in this week 3 years ago. \
        Add me to a group: members /link their Last.fm accounts, admins /track them, and a \
        weekly throwback of the group can post itself. In any chat, type my username and a name \
        (e.g. alice 3) to share a throwback there. /help lists every command.
        """

    public static let standardShortDescription = "Your Last.fm charts of this week, years ago. Works in groups."

    public init(commands: [any Command], description: String = Self.standardDescription, shortDescription: String = Self.standardShortDescription) {
        func menu(_ specs: [CommandSpec]) -> [BotCommand] {
            specs.map { BotCommand(command: $0.name, description: String($0.summary.prefix(256))) }
        }
        let specs = commands.map(\.spec)
        self.description = description
        self.shortDescription = shortDescription
        memberMenu = menu(specs.filter { !$0.adminOnly })
        adminMenu = menu(specs)
    }

    /// Sets the menus, and the descriptions where they differ from what Telegram has, since
    /// Telegram limits how often they may change. Best effort: a failure is logged, and the
    /// bot serves anyway. Only cancellation ends it early.
    public func publish(with telegram: any TelegramClient, logger: Logger) async throws {
        do {
            try await telegram.setMyCommands(memberMenu, scope: .default)
            try await telegram.setMyCommands(adminMenu, scope: .allChatAdministrators)
            if try await telegram.send(.getMyDescription()).description != description {
                _ = try await telegram.send(.setMyDescription(description))
            }
            if try await telegram.send(.getMyShortDescription()).shortDescription != shortDescription {
                _ = try await telegram.send(.setMyShortDescription(shortDescription))
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            logger.warning("could not set the bot's menu or description; serving anyway", metadata: ["error": "\(error)"])
        }
    }
}
