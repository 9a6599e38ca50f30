/// A parsed chat command.
public enum ChatCommand: Sendable, Equatable {
    /// `throwback [user] [years]`.
    case throwback(user: UserReference, yearsAgo: Int)
    /// `help` or `start`.
    case help
}

/// Whose throwback: the sender's linked account, or a Last.fm name.
public enum UserReference: Sendable, Equatable {
    case me
    case lastFM(String)
}

/// The declaration of a command: its words, arguments and help line. The parser, `help`
/// and the Telegram command menu are all generated from these.
public struct CommandSpec: Sendable, Equatable {
    /// The command word, as typed and as registered in the command menu.
    public var name: String
    public var aliases: [String]
    /// The argument synopsis, e.g. `[user] [years]`.
    public var arguments: String
    /// One line for `help` and the command menu.
    public var summary: String

    public init(name: String, aliases: [String] = [], arguments: String = "", summary: String) {
        self.name = name
        self.aliases = aliases
        self.arguments = arguments
        self.summary = summary
    }

    /// `throwback [user] [years]`.
    public var usage: String {
        arguments.isEmpty ? name : "\(name) \(arguments)"
    }

    public static let throwback = CommandSpec(
        name: "throwback", aliases: ["tb"], arguments: "[user] [years]",
        summary: "the albums a Last.fm user played most this week, N years ago (default 1)"
    )
    public static let help = CommandSpec(name: "help", aliases: ["start"], summary: "what I can do")

    /// Every command, in the order `help` lists them.
    public static let all: [CommandSpec] = [.throwback, .help]
}
