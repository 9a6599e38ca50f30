import Foundation
import Telegram
import Testing
@testable import Throwback
import TestLogging
import WeeklyCharts

/// Every language's replies, with the longest names and largest numbers, as Telegram takes
/// them: HTML that parses, text within 4096 units, captions within 1024 (the fake Telegram's
/// rules, `TelegramHTML`). The pseudo-locale, a third longer than English, finds replies that
/// only fit in English.
@Suite(.capturingLogs) struct LocalizedLengthTests {
    private static let week = WeeklyChartRange(fromUnix: 1_703_419_200, toUnix: 1_704_024_000) // across a new year
    private static let longName = String(repeating: "Ж&<ß>", count: 120)
    private static let largest = 2_000_000_000

    private static func chart(albums: Int, hidden: Int = 999_999) -> ChartSummary {
        ChartSummary(
            user: longName, range: week, yearsAgo: ThrowbackEngine.yearRange.upperBound,
            albums: (1...max(1, albums)).map { ChartAlbum(artist: longName, name: longName, playCount: largest - $0, rank: $0) }.prefix(albums).map { $0 },
            hiddenCount: hidden, minimumPlayCount: FilterCommand.range.upperBound
        )
    }

    /// Every command the catalogs describe, declared as the command set declares it.
    private static let commands: [any Command] = Phrase.allCases.compactMap { phrase in
        guard phrase.rawValue.hasPrefix("summary.") else { return nil }
        let name = String(phrase.rawValue.dropFirst("summary.".count))
        return Declared(spec: CommandSpec(
            name: name, aliases: name == "throwback" ? ["tb"] : [], arguments: Phrase(rawValue: "arguments.\(name)")?.english ?? "",
            summary: phrase.english, adminOnly: !["throwback", "link", "unlink", "id", "tracked", "help"].contains(name)
        ))
    }

    @Test(arguments: Language.allCases)
    func chartsAndCaptionsFitInEveryLanguage(language: Language) {
        let text = ChartFormatter.telegram.speaking(language)
        let caption = CollagePhotos.captionFormatter.speaking(language)
        for summary in [Self.chart(albums: 50), Self.chart(albums: 0), Self.chart(albums: 1, hidden: 0)] {
            #expect(TelegramHTML.problem(in: text.format(summary)) == nil, "\(language)")
            #expect(TelegramHTML.captionProblem(in: caption.format(summary)) == nil, "\(language)")
        }
        let outcomes: [ThrowbackOutcome] = [
            .noHistory(user: Self.longName),
            .beforeHistory(user: Self.longName, yearsAgo: 20, historyStart: Date(timeIntervalSince1970: 1_300_000_000), earliestYearsAgo: 15),
        ]
        for outcome in outcomes {
            #expect(TelegramHTML.problem(in: text.format(outcome)) == nil, "\(language)")
            #expect(TelegramHTML.captionProblem(in: caption.format(outcome)) == nil, "\(language)")
        }
    }

    @Test(arguments: Language.allCases)
    func everyWeeklyMessageFitsInEveryLanguage(language: Language) {
        let formatter = ChartFormatter.telegram.speaking(language)
        let contents: [WeeklyEntry.Content] = [
            .chart(Self.chart(albums: 50), anniversaries: [Self.chart(albums: 3), Self.chart(albums: 3)]),
            .chart(Self.chart(albums: 0), anniversaries: []), .quiet, .privateProfile, .accountGone, .unavailable,
        ]
        let sections = (0..<rosterLimit).map { index in
            formatter.weeklySection(WeeklyEntry(user: "lb:" + Self.longName, key: "\(index)", content: contents[index % contents.count]))
        }
        let header = formatter.weeklyHeader(for: Self.week)
        #expect(TelegramHTML.captionProblem(in: header) == nil, "\(language)")
        let messages = formatter.weeklyMessages(header: header, sections: sections)
        #expect(messages.flatMap(\.sections) == Array(sections.indices))
        for message in messages {
            #expect(TelegramHTML.problem(in: message.text) == nil, "\(language): \(message.text.utf16.count) units")
        }
    }

    /// Every sentence, its arguments as long as a name may be, as a reply is sent.
    @Test(arguments: Language.allCases)
    func everyTextReplyFitsInEveryLanguage(language: Language) {
        let formatter = ChartFormatter.telegram.speaking(language)
        for phrase in Phrase.allCases {
            let text = language.text(phrase, Self.longName, String(Self.largest), Self.longName, String(Self.largest))
            #expect(TelegramHTML.problem(in: BotReply.text(text).rendered(with: formatter) ?? "") == nil, "\(language): \(phrase.rawValue)")
        }
        let help = HelpCommand.render(Self.commands.map(\.spec), in: language)
        #expect(TelegramHTML.problem(in: BotReply.text(help).rendered(with: formatter) ?? "") == nil, "\(language)")
        #expect(help.utf16.count <= TelegramHTML.maxTextLength, "\(language): help is cut")
    }

    /// What a person sees before writing: Telegram's limits on menus and descriptions.
    @Test func menusAndDescriptionsFitTelegramsLimits() {
        let profile = BotProfile(commands: Self.commands)
        #expect(profile.languages.map(\.language) == Language.supported)
        for localized in profile.languages {
            #expect(localized.description.utf16.count <= 512, "\(localized.language)")
            #expect(localized.shortDescription.utf16.count <= 120, "\(localized.language)")
            for command in localized.adminMenu {
                #expect((1...256).contains(command.description.count), "\(localized.language): \(command.command)")
            }
        }
    }
}

/// A command that is only its declaration.
private struct Declared: Command {
    let spec: CommandSpec
    var guards: [any CommandGuard] { [] }

    func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> { .success(invocation) }
    func execute(_ invocation: CommandInvocation) async -> CommandResult { .reply(.silence) }
}
