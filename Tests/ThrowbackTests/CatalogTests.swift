import Foundation
import Testing
@testable import Throwback
import TestLogging

/// The catalogs: complete in every language, their placeholders as the English ones, their
/// plurals by CLDR's rules, and English when they are missing.
@Suite(.capturingLogs) struct CatalogTests {
    private static func folder() throws -> URL {
        try #require(CatalogFolder.locate(), "the catalogs are not next to the test binary")
    }

    @Test func theCatalogsShipNextToTheBinary() {
        #expect(Language.catalogProblem == nil)
    }

    @Test(arguments: Language.supported)
    func everyKeyIsTranslatedWithTheSamePlaceholders(language: Language) throws {
        let bundle = try #require(Bundle(path: try Self.folder().appendingPathComponent(language.catalogFolder).path))
        for phrase in Phrase.allCases {
            let text = bundle.localizedString(forKey: phrase.rawValue, value: "\u{0}", table: "Localizable")
            #expect(text != "\u{0}", "\(language): \(phrase.rawValue) is missing")
            #expect(Template(text).placeholders == Template(phrase.english).placeholders, "\(language): \(phrase.rawValue)")
        }
    }

    @Test(arguments: Language.supported)
    func noCatalogHasAKeyTheBotDoesNotKnow(language: Language) throws {
        let url = try Self.folder().appendingPathComponent(language.catalogFolder).appendingPathComponent("Localizable.strings")
        let text = try String(contentsOf: url, encoding: .utf8)
        // Each entry is `"key" = "value";` on a line of its own.
        let keys = text.split(separator: "\n").filter { $0.hasPrefix("\"") }.compactMap { $0.split(separator: "\"").first.map(String.init) }
        #expect(keys.count == Phrase.allCases.count, "\(language)")
        #expect(Set(keys) == Set(Phrase.allCases.map(\.rawValue)), "\(language)")
    }

    @Test func theEnglishCatalogIsTheEnglishBuiltIn() throws {
        let bundle = try #require(Bundle(path: try Self.folder().appendingPathComponent("en.lproj").path))
        for phrase in Phrase.allCases {
            #expect(bundle.localizedString(forKey: phrase.rawValue, value: nil, table: "Localizable") == phrase.english, "\(phrase.rawValue)")
        }
        // The bot reads no English catalog: what it says is the built-in text.
        let url = try Self.folder().appendingPathComponent("en.lproj").appendingPathComponent("Plurals.stringsdict")
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: [String: Any]])
        for counted in Counted.allCases {
            #expect(plist[counted.rawValue]?["NSStringLocalizedFormatKey"] as? String == "%#@count@", "\(counted)")
            let forms = try #require(plist[counted.rawValue]?["count"] as? [String: String], "\(counted)")
            #expect(forms["one"] == counted.english.one && forms["other"] == counted.english.other, "\(counted)")
            #expect(Set(forms.keys).subtracting(["NSStringFormatSpecTypeKey", "NSStringFormatValueTypeKey"]) == ["one", "other"], "\(counted)")
            #expect(Language.english.count(2, counted) == counted.english.other.replacingOccurrences(of: "%ld", with: "2"), "\(counted)")
        }
    }

    /// Each counted word has every form its language's rules choose, with one number in it.
    @Test(arguments: Language.supported)
    func everyPluralHasItsLanguagesForms(language: Language) throws {
        let url = try Self.folder().appendingPathComponent(language.catalogFolder).appendingPathComponent("Plurals.stringsdict")
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: [String: Any]])
        #expect(Set(plist.keys) == Set(Counted.allCases.map(\.rawValue)), "\(language)")
        let categories = Set((0...1_000_000).lazy.filter { $0 < 200 || $0 % 1_000_000 == 0 }.map { PluralCategory($0, in: language) })
        for counted in Counted.allCases {
            let forms = try #require(plist[counted.rawValue]?["count"] as? [String: String], "\(language) \(counted)")
            for category in categories.union([.other]) {
                let form = try #require(forms[category.rawValue], "\(language) \(counted) has no \(category) form")
                #expect(Template(form).placeholders == ["1$ld"], "\(language) \(counted) \(category)")
            }
        }
    }

    @Test func russianPlaysTakeOneFewAndMany() {
        let forms = [1, 2, 5, 21, 11, 12, 111, 22, 25, 0, 101, 1_000].map { Language.russian.count($0, .plays) }
        #expect(forms == [
            "1 прослушивание", "2 прослушивания", "5 прослушиваний", "21 прослушивание", "11 прослушиваний", "12 прослушиваний",
            "111 прослушиваний", "22 прослушивания", "25 прослушиваний", "0 прослушиваний", "101 прослушивание", "1 000 прослушиваний",
        ].map { $0.replacingOccurrences(of: "1 000", with: "1\u{A0}000") })
        #expect(Language.russian.yearsAgo(3) == "3 года назад")
    }

    @Test func otherLanguagesCountAsTheirSpeakersDo() {
        #expect(Language.english.count(1, .plays) == "1 play" && Language.english.count(1500, .plays) == "1500 plays")
        #expect(Language.german.count(1, .plays) == "1 Wiedergabe" && Language.german.count(1234, .plays) == "1.234 Wiedergaben")
        #expect(Language.french.count(0, .plays) == "0 écoute" && Language.french.count(2, .plays) == "2 écoutes")
        #expect(Language.french.count(1_000_000, .plays) == "1\u{202F}000\u{202F}000 d’écoutes")
        #expect(Language.spanish.count(1_000_000, .plays) == "1.000.000 de reproducciones")
        #expect(Language.brazilianPortuguese.count(1, .albums) == "1 álbum" && Language.brazilianPortuguese.count(0, .albums) == "0 álbum")
        #expect(Language.german.yearsAgo(3) == "vor 3 Jahren" && Language.spanish.yearsAgo(1) == "hace 1 año")
    }

    @Test func telegramLanguageCodesFallBackToALanguageTheBotSpeaks() {
        #expect(Language(telegramCode: "pt-br") == .brazilianPortuguese)
        #expect(Language(telegramCode: "pt") == .brazilianPortuguese)
        #expect(Language(telegramCode: "pt-PT") == .brazilianPortuguese)
        #expect(Language(telegramCode: "de-AT") == .german)
        #expect(Language(telegramCode: "RU") == .russian)
        #expect(Language(telegramCode: "zh-hans") == .english)
        #expect(Language(telegramCode: "") == .english)
        #expect(Language(telegramCode: nil) == .english)
        // The pseudo-locale is for tests: no chat can choose it.
        #expect(Language(code: "qps-ploc") == nil)
    }

    /// A binary whose catalogs are missing says so once, and speaks English to everyone.
    @Test func withoutItsCatalogsTheBotSpeaksEnglish() {
        let bare = Catalog(folder: URL(fileURLWithPath: "/nonexistent"))
        #expect(bare.problem?.contains("de, es, fr, pt-BR, ru") == true, "\(bare.problem ?? "")")
        #expect(bare.template(.chartNoScrobbles, in: .german).filled([]) == "No scrobbles that week.")
        #expect(bare.template(.plays, 2, in: .russian).filled(["2"]) == "2 plays")
    }

    @Test func thePseudoLocaleIsLongerAndAccented() {
        let english = Language.english.text(.chartNoScrobbles)
        let pseudo = Language.pseudo.text(.chartNoScrobbles)
        #expect(pseudo.count >= english.count * 4 / 3)
        #expect(pseudo.hasPrefix("Ñó šçróbblé"), "\(pseudo)")
        #expect(Language.pseudo.text(.trackDone, "alice").contains("alice"))
    }
}
