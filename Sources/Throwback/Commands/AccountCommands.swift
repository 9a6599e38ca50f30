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
        let language = invocation.language
        guard let name = invocation.lastFMUser else { return .reply(.text(spec.usageMessage(UsageError(), in: language))) }
        guard invocation.senderChatID == nil else { return .reply(.text(language.text(.linkAnonymous))) }
        return .change { transaction in
            try transaction.link(telegramUser: invocation.userID, to: name)
            return .text(language.text(.linkDone, Self.describe(name, in: language)))
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
        let language = invocation.language
        guard invocation.senderChatID == nil else { return .reply(.text(language.text(.linkAnonymous))) }
        return .change { transaction in
            guard let name = try transaction.unlink(telegramUser: invocation.userID) else {
                return .text(language.text(.unlinkNone))
            }
            return .text(language.text(.unlinkDone, LinkCommand.describe(name, in: language)))
        }
    }
}

extension LinkCommand {
    /// “Last.fm user alice”, “ListenBrainz user lb:bob”.
    static func describe(_ stored: String, in language: Language) -> String {
        language.text(.listenerDescribed, (ListenerName(parsing: stored)?.source ?? .lastFM).serviceName, stored)
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
            return .reply(.text(invocation.language.text(.idPrivate, String(invocation.userID))))
        }
        return .reply(.text(invocation.language.text(.idGroup, String(invocation.chatID))))
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
        let language = invocation.language
        if inlineMode, invocation.arguments == [Self.linkStart] { return .reply(.text(language.text(.helpLinking))) }
        return .reply(.text(Self.render(otherSpecs, inlineMode: inlineMode, in: language)))
    }

    public static func render(_ specs: [CommandSpec], inlineMode: Bool = true, in language: Language = .english) -> String {
        var lines = [language.text(.helpIntro)]
        for spec in specs.filter({ !$0.adminOnly }) {
            lines.append("• \(line(spec, in: language))")
        }
        let admin = specs.filter(\.adminOnly)
        if !admin.isEmpty {
            lines.append(language.text(.helpAdmins))
            lines += admin.map { "• \(line($0, in: language))" }
        }
        lines.append(language.text(.helpExample))
        if inlineMode {
            lines.append(language.text(.helpInline))
        }
        return lines.joined(separator: "\n")
    }

    private static func line(_ spec: CommandSpec, in language: Language) -> String {
        let aliases = spec.aliases.isEmpty ? "" : language.text(.helpAliases, spec.aliases.joined(separator: ", "))
        return "\(spec.usage(in: language))\(aliases): \(spec.summaryText(in: language))"
    }
}

/// What the user hears when the database fails.
enum StorageFailure {
    static func message(in language: Language) -> String {
        language.text(.commandStorageFailure)
    }
}
