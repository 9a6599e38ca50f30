import Testing
import Throwback
import TestLogging

@Suite(.capturingLogs) struct CommandParserTests {
    let parser = CommandParser(botUsername: "VinylogueBot")
    let throwback = try! ThrowbackCommand(engine: ThrowbackEngine(lastFM: NoLastFM()), store: .inMemory(), guards: [])
    let specs = [
        CommandSpec(name: "throwback", aliases: ["tb"], arguments: "[user] [years]", summary: "t"),
        CommandSpec(name: "help", aliases: ["start"], summary: "h"),
    ]

    private func parsed(_ text: String) -> Result<CommandInvocation, UsageError>? {
        guard case let .command(spec, arguments) = parser.parse(text, specs: specs), spec.name == "throwback" else { return nil }
        var invocation = CommandInvocation(chatID: 1, isPrivateChat: true, userID: 1)
        invocation.arguments = arguments
        return throwback.parse(invocation)
    }

    @Test(arguments: [
        ("throwback alice 3", "alice", 3),
        ("/throwback alice 3", "alice", 3),
        ("/throwback@VinylogueBot alice 3", "alice", 3),
        ("/THROWBACK@vinyloguebot Alice 3y", "Alice", 3),
        ("tb  rj   ", "rj", 1),
    ])
    func parsesNamedThrowbacks(text: String, user: String, years: Int) throws {
        let invocation = try #require(try parsed(text)?.get())
        #expect(invocation.lastFMUser == user)
        #expect(invocation.yearsAgo == years)
    }

    @Test(arguments: [("tb", 1), ("TB 2", 2), ("tb me 4y", 4)])
    func meAndOmittedUsersWaitForTheLink(text: String, years: Int) throws {
        let invocation = try #require(try parsed(text)?.get())
        #expect(invocation.lastFMUser == nil)
        #expect(invocation.yearsAgo == years)
    }

    @Test(arguments: ["tb alice banana", "tb alice 3 extra", "tb 1alice", "tb alice 0", "tb alice -2", "tb alice 51", "tb 99999999999"])
    func badArgumentsAreUsageErrors(text: String) {
        guard case .failure = parsed(text) else { Issue.record("\(text) parsed"); return }
    }

    @Test func usageNamesTheProblem() {
        guard case .failure(let error) = parsed("tb alice banana") else { Issue.record("parsed"); return }
        #expect(throwback.spec.usageMessage(error) == "“banana” is not a number of years. Usage: throwback [user] [years]")
        guard case .failure(let range) = parsed("tb alice 51") else { Issue.record("parsed"); return }
        #expect(throwback.spec.usageMessage(range) == "51 years is out of range: pick 1 to 50 years. Usage: throwback [user] [years]")
        guard case .failure(let absurd) = parsed("tb alice 99999999999999999999") else { Issue.record("parsed"); return }
        #expect(throwback.spec.usageMessage(absurd) == "That many years is out of range: pick 1 to 50 years. Usage: throwback [user] [years]")
    }

    @Test func helpAndOtherText() {
        #expect(parser.parse("/start", specs: specs) == .command(specs[1], arguments: []))
        #expect(parser.parse("/throwback@OtherBot alice", specs: specs) == .addressedToAnotherBot)
        #expect(parser.parse("hello there", specs: specs) == .notACommand)
        #expect(parser.parse("   ", specs: specs) == .notACommand)
        #expect(parser.parse("/dance", specs: specs) == .unknownCommand("dance"))
        #expect(parser.parse("tb " + String(repeating: "a", count: 5000), specs: specs) == .tooLong(specs[0]))
    }

    @Test func lastFMNameRules() {
        #expect(LastFMName.isValid("rj"))
        #expect(LastFMName.isValid("Some_User-99"))
        #expect(!LastFMName.isValid("r"))
        #expect(!LastFMName.isValid("1abc"))
        #expect(!LastFMName.isValid("sixteen_chars_xx"))
        #expect(!LastFMName.isValid("bad name"))
        #expect(!LastFMName.isValid("émile"))
    }

    @Test func helpListsEveryCommandFromItsDeclaration() {
        let help = HelpCommand.render(specs + [CommandSpec(name: "track", arguments: "<user>", summary: "x", adminOnly: true)])
        #expect(help.contains("throwback [user] [years] (also tb)"))
        #expect(help.contains("track <user> [chat-id]"))
    }
}
