import Testing
import Throwback

@Suite struct CommandParserTests {
    let parser = CommandParser(botUsername: "VinylogueBot")

    @Test(arguments: [
        ("throwback alice 3", ChatCommand.throwback(user: .lastFM("alice"), yearsAgo: 3)),
        ("/throwback alice 3", .throwback(user: .lastFM("alice"), yearsAgo: 3)),
        ("/throwback@VinylogueBot alice 3", .throwback(user: .lastFM("alice"), yearsAgo: 3)),
        ("/THROWBACK@vinyloguebot Alice 3y", .throwback(user: .lastFM("Alice"), yearsAgo: 3)),
        ("tb", .throwback(user: .me, yearsAgo: 1)),
        ("TB 2", .throwback(user: .me, yearsAgo: 2)),
        ("tb me 4y", .throwback(user: .me, yearsAgo: 4)),
        ("tb  rj   ", .throwback(user: .lastFM("rj"), yearsAgo: 1)),
        ("help", .help),
        ("/start", .help),
    ])
    func parsesCommands(text: String, expected: ChatCommand) {
        #expect(parser.parse(text) == .command(expected))
    }

    @Test(arguments: ["tb alice banana", "tb alice 3 extra", "tb 1alice", "tb alice 0", "tb alice -2", "tb alice 51", "tb 99999999999"])
    func badArgumentsGetUsage(text: String) {
        let result = parser.parse(text)
        #expect(result.usageMessage?.contains("Usage: throwback [user] [years]") == true, "\(result)")
    }

    @Test func usageNamesTheProblem() {
        #expect(parser.parse("tb alice banana").usageMessage == "“banana” is not a number of years. Usage: throwback [user] [years]")
        #expect(parser.parse("tb alice 0").usageMessage?.hasPrefix("0 years is out of range") == true)
    }

    @Test func otherTextAndOtherBots() {
        #expect(parser.parse("/throwback@OtherBot alice") == .addressedToAnotherBot)
        #expect(parser.parse("hello there") == .notACommand)
        #expect(parser.parse("   ") == .notACommand)
        #expect(parser.parse("/dance") == .unknownCommand("dance"))
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

    @Test func helpListsEveryCommand() {
        let help = HelpText.render()
        for spec in CommandSpec.all { #expect(help.contains(spec.usage)) }
    }
}
