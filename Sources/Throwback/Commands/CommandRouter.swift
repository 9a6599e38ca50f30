/// Answers one message: finds the command, checks its guards (its can-execute signal),
/// parses its arguments and runs it. It never throws: every failure becomes a reply.
public struct CommandRouter: Sendable {
    public let commands: [any Command]
    private let parser: CommandParser
    /// Guards for replies that are not commands (hints), so flooding with nonsense is limited too.
    private let hintGuards: [any CommandGuard]

    /// Told about every command that was asked for, and how it went: for metrics and logs.
    private let observe: @Sendable (CommandOutcome) -> Void

    public init(
        commands: [any Command], botUsername: String? = nil, hintGuards: [any CommandGuard] = [],
        observe: @escaping @Sendable (CommandOutcome) -> Void = { _ in }
    ) {
        self.commands = commands
        self.parser = CommandParser(botUsername: botUsername)
        self.hintGuards = hintGuards
        self.observe = observe
    }

    /// The same commands, answering to `@username`.
    public func named(_ username: String?) -> CommandRouter {
        CommandRouter(commands: commands, botUsername: username, hintGuards: hintGuards, observe: observe)
    }

    public var specs: [CommandSpec] { commands.map(\.spec) }

    /// The reply to `text`, or nil when the text is not for this bot.
    ///
    /// - Parameter context: the chat and sender; in private chats (and the console) ordinary
    ///   text and unknown commands get a hint, in groups silence.
    public func reply(to text: String, context: CommandInvocation) async -> BotReply? {
        await reply(to: parse(text, context: context), context: context)
    }

    /// What `text` is in this chat: in groups only text that starts with `/` is a command.
    public func parse(_ text: String, context: CommandInvocation) -> ParsedMessage {
        parser.parse(text, specs: specs, requireSlash: !context.isPrivateChat)
    }

    /// The reply to a message already parsed, or nil when it is not for this bot.
    public func reply(to message: ParsedMessage, context: CommandInvocation) async -> BotReply? {
        switch message {
        case let .command(spec, arguments):
            guard let command = commands.first(where: { $0.spec == spec }) else { return nil }
            var invocation = context
            invocation.arguments = arguments
            let reply = await run(command, invocation)
            return reply == .silence ? nil : reply
        case .tooLong(let spec):
            return await hint("That is a lot of text for a command. \(spec.usageMessage(UsageError()))", context)
        case .unknownCommand(let word):
            return context.isPrivateChat ? await hint("I don’t know “/\(word.prefix(32))”. Send help to see what I can do.", context) : nil
        case .notACommand:
            return context.isPrivateChat ? await hint("I didn’t get that. Send help to see what I can do.", context) : nil
        case .addressedToAnotherBot:
            return nil
        }
    }

    private func hint(_ text: String, _ context: CommandInvocation) async -> BotReply? {
        do {
            _ = try await Self.check(hintGuards, context)
            return .text(text)
        } catch {
            return error.reply == .silence ? nil : error.reply
        }
    }

    /// Checks every guard of `command` for an invocation whose arguments are already known
    /// (a ◀ ▶ press), without running it: the refined invocation, or the refusal to show.
    public func authorize(_ command: any Command, _ invocation: CommandInvocation) async -> Result<CommandInvocation, RefusalReply> {
        do {
            let allowed = try await Self.check(command.guards, invocation)
            observe(CommandOutcome(command: command.spec.name, chatID: invocation.chatID, result: .ran))
            return .success(allowed)
        } catch {
            observe(CommandOutcome(command: command.spec.name, chatID: invocation.chatID, result: .refused(by: error.guardName)))
            return .failure(RefusalReply(reply: error.reply))
        }
    }

    /// Checks the guards and runs the command.
    public func run(_ command: any Command, _ invocation: CommandInvocation) async -> BotReply {
        do {
            var invocation = try await Self.check(command.guards.filter(\.runsBeforeParsing), invocation)
            switch command.parse(invocation) {
            case .success(let parsed): invocation = parsed
            case .failure(let error):
                observe(CommandOutcome(command: command.spec.name, chatID: invocation.chatID, result: .usage))
                return .text(command.spec.usageMessage(error))
            }
            invocation = try await Self.check(command.guards.filter { !$0.runsBeforeParsing }, invocation)
            observe(CommandOutcome(command: command.spec.name, chatID: invocation.chatID, result: .ran))
            return await command.execute(invocation)
        } catch {
            observe(CommandOutcome(command: command.spec.name, chatID: invocation.chatID, result: .refused(by: error.guardName)))
            return error.reply
        }
    }

    /// Runs guards in order; the first refusal ends the command.
    private static func check(_ guards: [any CommandGuard], _ invocation: CommandInvocation) async throws(Refusal) -> CommandInvocation {
        var invocation = invocation
        for guardian in guards {
            switch await guardian.check(invocation) {
            case .allow(let refined): invocation = refined
            case .deny(let reason): throw Refusal(reply: .text(reason), guardName: "\(type(of: guardian))")
            case .ignore: throw Refusal(reply: .silence, guardName: "\(type(of: guardian))")
            }
        }
        return invocation
    }

    private struct Refusal: Error {
        var reply: BotReply
        var guardName: String
    }
}

/// How a command went, for metrics and logs.
public struct CommandOutcome: Sendable, Equatable {
    public enum Result: Sendable, Equatable {
        /// Every guard allowed it and it ran.
        case ran
        /// Its arguments did not fit; a usage line was the answer.
        case usage
        /// A guard refused it (with a reason or in silence).
        case refused(by: String)
    }

    public var command: String
    public var chatID: Int64
    public var result: Result

    /// For metrics: `ran`, `usage` or `refused`, and the guard that refused.
    public var labels: (outcome: String, guardName: String) {
        switch result {
        case .ran: ("ran", "")
        case .usage: ("usage", "")
        case .refused(let guardName): ("refused", guardName)
        }
    }
}

/// A guard's refusal: a line to show, or `.silence`.
public struct RefusalReply: Error, Sendable, Equatable {
    public var reply: BotReply
}
