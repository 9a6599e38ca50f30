/// A chat command object: its declaration, its guards (the can-execute signal), how it reads
/// its arguments, and what it does. `help` and the Telegram command menu come from `spec`.
public protocol Command: Sendable {
    var spec: CommandSpec { get }
    /// Checked in order; the first that denies decides. Guards with `runsBeforeParsing`
    /// run before `parse`, the others after it.
    var guards: [any CommandGuard] { get }
    /// Reads the arguments into the invocation, or says what is wrong with them.
    func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError>
    /// Runs the command; every failure becomes a reply.
    func execute(_ invocation: CommandInvocation) async -> CommandResult
}

/// What a command did: its reply, and the changes it makes, which commit together with the
/// update that asked for them and the reply itself, or not at all. A replayed update thus
/// never repeats a change.
public enum CommandResult: Sendable {
    /// Nothing to change.
    case reply(BotReply)
    /// Changes to commit; they decide the reply. `then` runs once they are committed (a
    /// post that `postnow` claimed goes out).
    case change(_ commit: @Sendable (StoreTransaction) throws -> BotReply, then: (@Sendable () async -> Void)? = nil)

    /// The reply, with the changes committed on their own: for a terminal, where nothing else
    /// commits with them. A change that cannot be saved is answered with an apology, in `language`.
    public func committed(to store: BotStore, in language: Language = .english) async -> BotReply {
        switch self {
        case .reply(let reply):
            return reply
        case let .change(commit, then):
            let reply: BotReply
            do {
                reply = try await store.write(commit)
            } catch {
                return .text(StorageFailure.message(in: language))
            }
            await then?()
            return reply
        }
    }
}

/// Arguments that do not fit a command; `problem` says which, if known.
public struct UsageError: Error, Sendable, Equatable {
    public var problem: String?

    public init(_ problem: String? = nil) {
        self.problem = problem
    }
}

/// The declaration of a command: its words, arguments and help line.
public struct CommandSpec: Sendable, Equatable {
    /// The command word, as typed and as registered in the command menu.
    public var name: String
    public var aliases: [String]
    /// The argument synopsis, e.g. `[user] [years]`.
    public var arguments: String
    /// One line for `help` and the command menu.
    public var summary: String
    /// Admin commands manage a chat and take its id as an optional last argument.
    public var adminOnly: Bool

    public init(name: String, aliases: [String] = [], arguments: String = "", summary: String, adminOnly: Bool = false) {
        self.name = name
        self.aliases = aliases
        self.arguments = arguments
        self.summary = summary
        self.adminOnly = adminOnly
    }

    /// `throwback [user] [years]`; admin commands show their optional chat id. The command
    /// word is the same in every language; the arguments' names are translated.
    public func usage(in language: Language = .english) -> String {
        let own = argumentsText(in: language)
        let arguments = adminOnly ? [own, language.text(.argumentsChatID)].filter { !$0.isEmpty }.joined(separator: " ") : own
        return arguments.isEmpty ? name : "\(name) \(arguments)"
    }

    /// The help line's description, in `language` where the catalogs have one for this command.
    public func summaryText(in language: Language) -> String {
        Phrase(rawValue: "summary.\(name)").map { language.text($0) } ?? summary
    }

    /// The argument synopsis, in `language` where the catalogs have one for this command.
    func argumentsText(in language: Language) -> String {
        guard !arguments.isEmpty else { return "" }
        return Phrase(rawValue: "arguments.\(name)").map { language.text($0) } ?? arguments
    }

    /// Whether `word` (lowercased) names this command.
    public func matches(_ word: String) -> Bool {
        name == word || aliases.contains(word)
    }

    /// The short reply for a usage error.
    public func usageMessage(_ error: UsageError, in language: Language = .english) -> String {
        let hint = language.text(.commandUsage, usage(in: language))
        return error.problem.map { "\($0) \(hint)" } ?? hint
    }
}

extension CommandInvocation {
    /// Takes a chat id given as the last argument, for admin commands with at most
    /// `maxArguments` arguments of their own.
    func takingTargetChat(maxArguments: Int) -> Result<CommandInvocation, UsageError> {
        var copy = self
        if arguments.count == maxArguments + 1 {
            guard let chat = Int64(arguments[arguments.count - 1]) else {
                return .failure(UsageError(language.text(.commandNotAChatID, String(arguments[arguments.count - 1].prefix(40)))))
            }
            copy.targetChatID = chat
            copy.arguments.removeLast()
        } else if arguments.count > maxArguments + 1 {
            return .failure(UsageError())
        }
        return .success(copy)
    }

    /// For admin commands of exactly `count` arguments plus an optional chat id.
    func takingTargetChat(andExactly count: Int) -> Result<CommandInvocation, UsageError> {
        takingTargetChat(maxArguments: count).flatMap { $0.arguments.count == count ? .success($0) : .failure(UsageError()) }
    }

    /// For admin commands whose one argument names a Last.fm user, plus an optional chat id.
    func takingTargetChatAndUser() -> Result<CommandInvocation, UsageError> {
        takingTargetChat(andExactly: 1).map { parsed in
            var named = parsed
            named.lastFMUser = parsed.arguments[0]
            return named
        }
    }
}
