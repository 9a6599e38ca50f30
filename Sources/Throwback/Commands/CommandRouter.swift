/// Answers messages: finds the command, checks its guards (its can-execute signal), parses
/// its arguments and runs it. Every message for the bot, a ◀ ▶ press included, is first
/// admitted by the rate limit when it arrives, so that a flood is judged as it comes, not
/// as its chat's queue reaches it. It never throws: every failure becomes a reply.
public struct CommandRouter: Sendable {
    public let commands: [any Command]
    /// The commands' specs, gathered once: every message is parsed against them.
    public let specs: [CommandSpec]
    private let parser: CommandParser
    /// The guard every message for the bot passes on arrival: the rate limit.
    private let admission: (any CommandGuard)?
    private let store: BotStore

    /// Told about every command that was asked for, and how it went: for metrics and logs.
    private let observe: @Sendable (CommandOutcome) -> Void

    public init(
        commands: [any Command], store: BotStore, botUsername: String? = nil, admission: (any CommandGuard)? = nil,
        observe: @escaping @Sendable (CommandOutcome) -> Void = { _ in }
    ) {
        self.commands = commands
        self.specs = commands.map(\.spec)
        self.store = store
        self.parser = CommandParser(botUsername: botUsername)
        self.admission = admission
        self.observe = observe
    }

    /// The same commands, answering to `@username`.
    public func named(_ username: String?) -> CommandRouter {
        CommandRouter(commands: commands, store: store, botUsername: username, admission: admission, observe: observe)
    }

    /// What `text` is in this chat: in groups only text that starts with `/` is a command.
    public func parse(_ text: String, context: CommandInvocation) -> ParsedMessage {
        parser.parse(text, specs: specs, requireSlash: !context.isPrivateChat)
    }

    /// The verdict of the rate limit on a message for the bot.
    public enum Admission: Sendable, Equatable {
        case admitted
        /// Refused: this reply says why (or is `.silence` for someone already told).
        case refused(BotReply)
    }

    /// Judges a message as it arrives; nil for a message that is not for this bot (group
    /// chatter, another bot's command), which costs nobody anything.
    public func admission(for message: ParsedMessage, context: CommandInvocation) async -> Admission? {
        switch message {
        case .command, .tooLong: await admit(context)
        case .unknownCommand, .notACommand: context.isPrivateChat ? await admit(context) : nil
        case .addressedToAnotherBot: nil
        }
    }

    /// Judges a message for the bot, or a button press, as it arrives.
    public func admit(_ context: CommandInvocation) async -> Admission {
        guard let admission else { return .admitted }
        switch await admission.check(context) {
        case .allow: return .admitted
        case .deny(let reason): return .refused(.text(reason))
        case .ignore: return .refused(.silence)
        }
    }

    /// What answers a message admitted (or refused) on arrival, and how its command went.
    public func result(for message: ParsedMessage, context: CommandInvocation, admission: Admission) async -> Routed {
        let command: (any Command)? = if case .command(let spec, _) = message { commands.first { $0.spec == spec } } else { nil }
        if case .refused(let reply) = admission {
            let outcome = command.map { CommandOutcome(command: $0.spec.name, chatID: context.chatID, result: .refused(by: admissionName)) }
            return observed(Routed(result: reply == .silence ? nil : .reply(reply), outcome: outcome))
        }
        switch message {
        case let .command(_, arguments):
            guard let command else { return Routed(result: nil, outcome: nil) }
            var invocation = context
            invocation.arguments = arguments
            return observed(await run(command, invocation))
        case .tooLong(let spec):
            let language = context.language
            let usage = CommandResult.reply(.text(language.text(.commandTooLong, spec.usageMessage(UsageError(), in: language))))
            return observed(Routed(result: usage, outcome: CommandOutcome(command: spec.name, chatID: context.chatID, result: .usage)))
        case .unknownCommand(let word):
            let hint = context.isPrivateChat ? CommandResult.reply(.text(context.language.text(.commandUnknown, String(word.prefix(32))))) : nil
            return Routed(result: hint, outcome: nil)
        case .notACommand:
            return Routed(result: context.isPrivateChat ? .reply(.text(context.language.text(.commandNotACommand))) : nil, outcome: nil)
        case .addressedToAnotherBot:
            return Routed(result: nil, outcome: nil)
        }
    }

    /// What answers a message, and how the command it names went.
    public struct Routed: Sendable {
        /// Nil when there is nothing to say.
        public var result: CommandResult?
        /// Nil for a message that names no command of this bot.
        public var outcome: CommandOutcome?
    }

    /// The reply to `text` with its changes committed at once, or nil when the text is not for
    /// this bot: for a terminal, where nothing else needs to commit with it.
    ///
    /// - Parameter context: the chat and sender; in private chats (and the console) ordinary
    ///   text and unknown commands get a hint, in groups silence.
    public func reply(to text: String, context: CommandInvocation) async -> BotReply? {
        let message = parse(text, context: context)
        guard let admission = await admission(for: message, context: context),
              let reply = await result(for: message, context: context, admission: admission).result?.committed(to: store, in: context.language)
        else { return nil }
        return reply == .silence ? nil : reply
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
            return .failure(RefusalReply(reply: error.reply, guardName: error.guardName))
        }
    }

    /// Checks the guards and runs the command.
    private func run(_ command: any Command, _ invocation: CommandInvocation) async -> Routed {
        func outcome(_ result: CommandOutcome.Result) -> CommandOutcome {
            CommandOutcome(command: command.spec.name, chatID: invocation.chatID, result: result)
        }
        do {
            var invocation = try await Self.check(command.guards, invocation, beforeParsing: true)
            switch command.parse(invocation) {
            case .success(let parsed): invocation = parsed
            case .failure(let error):
                return Routed(result: .reply(.text(command.spec.usageMessage(error, in: invocation.language))), outcome: outcome(.usage))
            }
            invocation = try await Self.check(command.guards, invocation, beforeParsing: false)
            return Routed(result: await command.execute(invocation), outcome: outcome(.ran))
        } catch {
            return Routed(result: .reply(error.reply), outcome: outcome(.refused(by: error.guardName)))
        }
    }

    /// Tells the observer how the command went.
    private func observed(_ routed: Routed) -> Routed {
        if let outcome = routed.outcome { observe(outcome) }
        return routed
    }

    /// The name a refusal on arrival is counted under.
    var admissionName: String { admission.map { "\(type(of: $0))" } ?? "" }

    /// Runs guards in order (only those that run before parsing, or only the others, if
    /// `beforeParsing` says which); the first refusal ends the command.
    private static func check(
        _ guards: [any CommandGuard], _ invocation: CommandInvocation, beforeParsing: Bool? = nil
    ) async throws(Refusal) -> CommandInvocation {
        var invocation = invocation
        for guardian in guards where beforeParsing.map({ guardian.runsBeforeParsing == $0 }) ?? true {
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

/// A guard's refusal: a line to show, or `.silence`, and the guard that refused.
public struct RefusalReply: Error, Sendable, Equatable {
    public var reply: BotReply
    public var guardName: String
}
