import Networking

// The bot's command menu and its descriptions, as set at start and read back to compare.

/// An entry of the command menu.
public struct BotCommand: Codable, Sendable, Equatable {
    public var command: String
    public var description: String

    public init(command: String, description: String) {
        self.command = command
        self.description = description
    }
}

/// Who sees a command menu.
public enum BotCommandScope: String, Sendable {
    case `default`
    case allPrivateChats = "all_private_chats"
    case allGroupChats = "all_group_chats"
    case allChatAdministrators = "all_chat_administrators"
}

public struct BotDescription: JSONReadable, Sendable, Equatable {
    public var description: String

    public init(json: JSONNode) throws {
        description = try json.required("description") { $0.string }
    }
}

public struct BotShortDescription: JSONReadable, Sendable, Equatable {
    public var shortDescription: String

    public init(json: JSONNode) throws {
        shortDescription = try json.required("short_description") { $0.string }
    }
}
