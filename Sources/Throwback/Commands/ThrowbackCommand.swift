import LastFM
import Networking

/// `throwback [user] [years]` (alias `tb`): a user's top albums this week, N years ago.
/// `me` or no user means the sender's linked account.
public struct ThrowbackCommand: Command {
    public let spec = CommandSpec(
        name: "throwback", aliases: ["tb"], arguments: "[user] [years]",
        summary: "the albums a listener played most this week, N years ago (default 1); lb:name for ListenBrainz, librefm:name for Libre.fm"
    )
    public let guards: [any CommandGuard]
    private let engine: ThrowbackEngine
    private let store: BotStore
    private let unknownUserHint: (@Sendable (Language) -> String)?

    public init(engine: ThrowbackEngine, store: BotStore, guards: [any CommandGuard], unknownUserHint: (@Sendable (Language) -> String)? = nil) {
        self.unknownUserHint = unknownUserHint
        self.engine = engine
        self.store = store
        self.guards = guards
    }

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        var parsed = invocation
        var rest = invocation.arguments[...]
        // A bare number is years: Last.fm names start with a letter, the others with a prefix.
        if let first = rest.first, CommandParser.years(first) == nil {
            if first.lowercased() != "me" {
                guard let listener = ListenerName(parsing: first) else {
                    return .failure(UsageError(ListenerName.syntaxHelp(first, in: invocation.language)))
                }
                parsed.lastFMUser = listener.qualified
            }
            rest = rest.dropFirst()
        }
        var years = 1
        if let next = rest.first {
            guard let value = CommandParser.years(next) else {
                return .failure(UsageError(invocation.language.text(.yearsNotANumber, String(next.prefix(40)))))
            }
            years = value
            rest = rest.dropFirst()
        }
        guard rest.isEmpty else { return .failure(UsageError()) }
        guard ThrowbackEngine.yearRange.contains(years) else {
            return .failure(UsageError(ThrowbackError.yearsOutOfRange(years).userMessage(in: invocation.language)))
        }
        parsed.yearsAgo = years
        return .success(parsed)
    }

    public func execute(_ invocation: CommandInvocation) async -> CommandResult {
        guard let user = invocation.lastFMUser else { return .reply(.text(invocation.language.text(.linkRequired))) }
        let minimum = (try? await store.settings(for: invocation.chatID).minimumPlayCount) ?? 1
        return .reply(await throwback(user: user, yearsAgo: invocation.yearsAgo ?? 1, minimumPlayCount: minimum, in: invocation.language))
    }

    /// A throwback, with errors turned into their user-facing line in `language`.
    public func throwback(user: String, yearsAgo: Int, minimumPlayCount: Int, in language: Language = .english) async -> BotReply {
        do {
            return .throwback(try await engine.throwback(user: user, yearsAgo: yearsAgo, minimumPlayCount: minimumPlayCount))
        } catch let error as ListeningError {
            return .text(error.userMessage(hint: unknownUserHint, in: language))
        } catch let error as ThrowbackError {
            return .text(error.userMessage(in: language))
        } catch {
            return .text(language.text(.commandFailed))
        }
    }
}
