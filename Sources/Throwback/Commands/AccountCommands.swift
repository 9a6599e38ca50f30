/// `link <user>`: links the sender's Telegram account to a listener's name (`alice` on
/// Last.fm, `lb:bob`, `librefm:carol`).
public struct LinkCommand: Command {
    public let spec = CommandSpec(
        name: "link", arguments: "<user>", summary: "link your Telegram account to your Last.fm name (or lb:name, librefm:name)"
    )
    public let guards: [any CommandGuard]

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        guard invocation.arguments.count == 1 else { return .failure(UsageError()) }
        var parsed = invocation
        parsed.lastFMUser = invocation.arguments[0]
        return .success(parsed)
    }

    public func execute(_ invocation: CommandInvocation) async -> CommandResult {
        guard let name = invocation.lastFMUser else { return .reply(.text(spec.usageMessage(UsageError()))) }
        guard invocation.senderChatID == nil else { return .reply(.text(anonymousSender)) }
        return .change { transaction in
            try transaction.link(telegramUser: invocation.userID, to: name)
            return .text("Linked you to \(Self.describe(name)). Now “throwback” alone shows your week.")
        }
    }
}

/// `unlink`: removes the sender's link.
public struct UnlinkCommand: Command {
    public let spec = CommandSpec(name: "unlink", summary: "forget your linked account")
    public let guards: [any CommandGuard]

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        invocation.arguments.isEmpty ? .success(invocation) : .failure(UsageError())
    }

    public func execute(_ invocation: CommandInvocation) async -> CommandResult {
        guard invocation.senderChatID == nil else { return .reply(.text(anonymousSender)) }
        return .change { transaction in
            guard let name = try transaction.unlink(telegramUser: invocation.userID) else {
                return .text("You have no linked Last.fm account.")
            }
            return .text("Unlinked you from \(LinkCommand.describe(name)).")
        }
    }
}

extension LinkCommand {
    /// “Last.fm user alice”, “ListenBrainz user lb:bob”.
    static func describe(_ stored: String) -> String {
        "\((ListenerName(parsing: stored)?.source ?? .lastFM).serviceName) user \(stored)"
    }
}

/// `id`: the numbers the configuration asks for. In a private chat, the sender's Telegram
/// user id (`ADMIN_USER_IDS`); in a group or a channel, for its admins, the chat's id
/// (`THROWBACK_CHAT_ID`, and the chat id admin commands take).
public struct IDCommand: Command {
    public static let name = "id"
    public let spec = CommandSpec(name: IDCommand.name, summary: "your Telegram user id; in a group or channel, its chat id (for admins)")
    public let guards: [any CommandGuard]

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        invocation.arguments.isEmpty ? .success(invocation) : .failure(UsageError())
    }

    public func execute(_ invocation: CommandInvocation) async -> CommandResult {
        guard !invocation.isPrivateChat else {
            return .reply(.text("Your Telegram user id is \(invocation.userID). Put it in ADMIN_USER_IDS to be an admin of the bot in every chat."))
        }
        return .reply(.text(
            "This chat’s id is \(invocation.chatID). Use it as THROWBACK_CHAT_ID, or after an admin command to manage this chat from a private chat with me."
        ))
    }
}

/// `help` (alias `start`): the command list, generated from the declarations.
public struct HelpCommand: Command {
    public let spec = CommandSpec(name: "help", aliases: ["start"], summary: "what I can do")
    public let guards: [any CommandGuard]
    private let otherSpecs: [CommandSpec]

    /// Whether people can reach the bot in inline mode: not in a terminal, where "type my
    /// username" means nothing.
    private let inlineMode: Bool

    public init(guards: [any CommandGuard], otherSpecs: [CommandSpec], inlineMode: Bool = true) {
        self.guards = guards
        self.otherSpecs = otherSpecs
        self.inlineMode = inlineMode
    }

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        .success(invocation)
    }

    /// What the inline mode's button sends (`/start link`): how to link an account.
    public static let linkStart = "link"

    public func execute(_ invocation: CommandInvocation) async -> CommandResult {
        if inlineMode, invocation.arguments == [Self.linkStart] { return .reply(.text(Self.linking)) }
        return .reply(.text(Self.render(otherSpecs, inlineMode: inlineMode)))
    }

    static let linking = """
        Link your account: send link <your Last.fm name> here, e.g. link alice \
        (or link lb:name for ListenBrainz, link librefm:name for Libre.fm). \
        Then type my username and a space in any chat to share a throwback: nothing after it means yours, 1 year ago; \
        add a number of years, or another name: alice 3.
        """

    public static func render(_ specs: [CommandSpec], inlineMode: Bool = true) -> String {
        var lines = [
            "I bring back your music history from Last.fm, ListenBrainz (lb:name) or Libre.fm (librefm:name). Commands (in groups, start them with /):",
        ]
        for spec in specs.filter({ !$0.adminOnly }) {
            lines.append("• \(line(spec))")
        }
        let admin = specs.filter(\.adminOnly)
        if !admin.isEmpty {
            lines.append("For admins (add a chat id at the end to manage another chat, e.g. a channel):")
            lines += admin.map { "• \(line($0))" }
        }
        lines.append("Example: throwback alice 3")
        if inlineMode {
            lines.append("In any chat, type my username, a space and a name (e.g. alice 3) to share a throwback there.")
        }
        return lines.joined(separator: "\n")
    }

    private static func line(_ spec: CommandSpec) -> String {
        let aliases = spec.aliases.isEmpty ? "" : " (also \(spec.aliases.joined(separator: ", ")))"
        return "\(spec.usage)\(aliases): \(spec.summary)"
    }
}

/// A link belongs to a person; an anonymous admin posts as the group.
private let anonymousSender = "You are posting as the group. Send this as yourself to link your own Last.fm account."

/// What the user hears when the database fails.
enum StorageFailure {
    static let message = "I couldn’t save that just now. Try again in a minute."
}
