import Foundation
import LastFM

/// Answers one line of chat: parses it, runs the command, and says what went wrong in
/// one short line when something did. It never throws: every failure becomes a reply.
public struct CommandResponder: Sendable {
    private let engine: ThrowbackEngine
    private let parser: CommandParser

    public init(engine: ThrowbackEngine, parser: CommandParser = CommandParser()) {
        self.engine = engine
        self.parser = parser
    }

    /// The reply to `text`, or `nil` when the text is not for this bot.
    ///
    /// - Parameter answerUnknownText: whether ordinary text and unknown commands get a hint
    ///   (private chats, the console) or silence (groups).
    public func reply(to text: String, answerUnknownText: Bool = true) async -> BotReply? {
        switch parser.parse(text) {
        case .command(let command):
            return await run(command)
        case .usage(let spec, let problem):
            return .text(ParseResult.usage(spec: spec, problem: problem).usageMessage ?? spec.usage)
        case .unknownCommand(let word):
            // In a group, an unknown /command is most likely meant for another bot.
            return answerUnknownText ? .text("I don’t know “/\(word.prefix(32))”. Send help to see what I can do.") : nil
        case .notACommand:
            return answerUnknownText ? .text("I didn’t get that. Send help to see what I can do.") : nil
        case .addressedToAnotherBot:
            return nil
        }
    }

    /// Runs a parsed command.
    public func run(_ command: ChatCommand) async -> BotReply {
        switch command {
        case .help:
            return .text(HelpText.render())
        case let .throwback(user, years):
            guard case .lastFM(let name) = user else {
                return .text("Whose week? Say \(CommandSpec.throwback.name) <lastfm-user> [years].")
            }
            return await throwback(user: name, yearsAgo: years)
        }
    }

    /// A throwback, with errors turned into their user-facing line.
    public func throwback(user: String, yearsAgo: Int, minimumPlayCount: Int = 1) async -> BotReply {
        do {
            return .throwback(try await engine.throwback(user: user, yearsAgo: yearsAgo, minimumPlayCount: minimumPlayCount))
        } catch let error as LastFMError {
            return .text(error.userMessage)
        } catch let error as ThrowbackError {
            return .text(error.userMessage)
        } catch {
            return .text("Something went wrong. Try again in a minute.")
        }
    }
}
