import Logging
import Telegram

/// What a person sees of the bot before sending it anything: the description in an empty
/// chat, the short description on its profile, and the command menus, in each language the
/// bot speaks. Everyone's menu has the member commands; group admins' menu adds the admin
/// ones. Command words are the same in every language; their descriptions are translated.
public struct BotProfile: Sendable {
    /// What people whose Telegram is in one language see.
    public struct Localized: Sendable {
        public var language: Language
        public var description: String
        public var shortDescription: String
        public var memberMenu: [BotCommand]
        public var adminMenu: [BotCommand]
    }

    /// English first: the menu and descriptions of everyone whose language has none of its own.
    public var languages: [Localized]

    public static let standardDescription = Language.english.text(.profileDescription)

    public static let standardShortDescription = Language.english.text(.profileShortDescription)

    public init(commands: [any Command]) {
        let specs = commands.map(\.spec)
        languages = Language.supported.map { language in
            func menu(_ specs: [CommandSpec]) -> [BotCommand] {
                specs.map { BotCommand(command: $0.name, description: String($0.summaryText(in: language).prefix(256))) }
            }
            return Localized(
                language: language, description: language.text(.profileDescription), shortDescription: language.text(.profileShortDescription),
                memberMenu: menu(specs.filter { !$0.adminOnly }), adminMenu: menu(specs)
            )
        }
    }

    /// Sets the menus, and the descriptions where they differ from what Telegram has, since
    /// Telegram limits how often they may change. Best effort: a failure is logged, and the
    /// bot serves anyway. Only cancellation ends it early.
    public func publish(with telegram: any TelegramClient, logger: Logger) async throws {
        do {
            for localized in languages {
                let code = localized.language.menuCode
                try await telegram.setMyCommands(localized.memberMenu, scope: .default, languageCode: code)
                try await telegram.setMyCommands(localized.adminMenu, scope: .allChatAdministrators, languageCode: code)
                if try await telegram.send(.getMyDescription(languageCode: code)).description != localized.description {
                    _ = try await telegram.send(.setMyDescription(localized.description, languageCode: code))
                }
                if try await telegram.send(.getMyShortDescription(languageCode: code)).shortDescription != localized.shortDescription {
                    _ = try await telegram.send(.setMyShortDescription(localized.shortDescription, languageCode: code))
                }
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            logger.warning("could not set the bot's menu or description; serving anyway", metadata: ["error": "\(error)"])
        }
    }
}
