import Foundation
import Testing
import TestLogging

/// The demo console and the CLI in other languages, as a person runs them.
@Suite(.capturingLogs) struct LanguageConsoleTests {
    @Test func theGermanDemoConsoleShowsAGermanThrowback() async throws {
        let result = try await Executable.run(["console", "--demo", "--language", "de"], input: "throwback alice 3\n")
        #expect(result.status == 0, "\(result.stderr)")
        let text = result.stdout
        #expect(text.hasPrefix("alice · Woche vom "), "\(text)")
        #expect(text.contains(", vor 3 Jahren\n"), "\(text)")
        let months = ["Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez."]
        #expect(months.contains { text.contains($0) }, "\(text)")
        #expect(text.contains(" Wiedergaben)"), "\(text)")
        #expect(text.contains("◀ vor 4 Jahren") && text.contains("vor 2 Jahren ▶"), "\(text)")
        #expect(!text.contains("plays") && !text.contains("week of"), "\(text)")
    }

    @Test func theRussianDemoConsoleChoosesEachPluralForm() async throws {
        let input = "throwback alice 3\nthrowback bob 2\nfilter 21\nfilter 2\nfilter 5\nfilter 11\n"
        let result = try await Executable.run(["console", "--demo", "--language", "ru"], input: input)
        #expect(result.status == 0, "\(result.stderr)")
        let text = result.stdout
        #expect(text.contains("Скрываю альбомы ниже порога в 21 прослушивание."), "\(text)")
        #expect(text.contains("Скрываю альбомы ниже порога в 2 прослушивания."), "\(text)")
        #expect(text.contains("Скрываю альбомы ниже порога в 5 прослушиваний."), "\(text)")
        #expect(text.contains("Скрываю альбомы ниже порога в 11 прослушиваний."), "\(text)")
        // Every chart row's count takes the form CLDR gives its number.
        let rows = text.split(separator: "\n").compactMap { line -> (Int, String)? in
            guard let open = line.lastIndex(of: "("), line.hasSuffix(")") else { return nil }
            let words = line[line.index(after: open)..<line.index(before: line.endIndex)].split(separator: " ")
            guard words.count == 2, let n = Int(words[0]) else { return nil }
            return (n, String(words[1]))
        }
        #expect(rows.count >= 10, "\(text)")
        for (n, word) in rows {
            let expected = n % 10 == 1 && n % 100 != 11 ? "прослушивание"
                : (2...4).contains(n % 10) && !(12...14).contains(n % 100) ? "прослушивания" : "прослушиваний"
            #expect(word == expected, "\(n) \(word)")
        }
        #expect(rows.contains { $0.0 == 1 }, "\(text)")
    }

    @Test(arguments: ["de", "es", "fr", "pt-BR", "ru", "qps-ploc"])
    func theDemoWorksInEveryLanguage(code: String) async throws {
        let console = try await Executable.run(
            ["console", "--demo", "--language", code], input: "help\nthrowback alice 3\nthrowback alice 30\ntrack alice\npostnow\nnonsense\n"
        )
        #expect(console.status == 0, "\(console.stderr)")
        for english in ["week of", "plays)", "years ago", "This week one year ago", "I didn’t get that", "Commands (in groups"] {
            #expect(!console.stdout.contains(english), "\(code): \(english)\n\(console.stdout)")
        }
        let throwback = try await Executable.run(["throwback", "bob", "2", "--demo", "--language", code])
        #expect(throwback.status == 0, "\(throwback.stderr)")
        #expect(!throwback.stdout.contains("week of") && throwback.stdout.hasPrefix("bob · "), "\(throwback.stdout)")
    }

    @Test func anUnknownLanguageIsRefusedWithTheChoices() async throws {
        let result = try await Executable.run(["console", "--demo", "--language", "xx"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("pt-BR"), "\(result.stderr)")
    }
}
