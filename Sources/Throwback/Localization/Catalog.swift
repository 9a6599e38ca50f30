import Foundation

/// The bot's words in every language, read once from the catalogs that ship next to the
/// binary (`vinylogue-bot_Throwback.resources/Catalogs/<code>.lproj`): sentences from
/// `Localizable.strings`, counted words from `Plurals.stringsdict` (see `PluralCategory`
/// for why neither goes through `Bundle`).
///
/// English is the text built into the binary (`Phrase.english`, `Counted.english`), which
/// `en.lproj` repeats for translators (a test keeps the two the same). Whatever another
/// language's catalog misses, the whole folder or a key, is said in English; `problem` says
/// what was missing, for one warning at start.
final class Catalog: Sendable {
    /// The catalogs found next to the running binary.
    static let shared = Catalog(folder: CatalogFolder.locate())

    private let phrases: [Language: [Phrase: Template]]
    private let plurals: [Language: [Counted: [PluralCategory: Template]]]
    /// What was missing, or nil when every language was read whole.
    let problem: String?

    init(folder: URL?) {
        let english = Self.english
        var phrases: [Language: [Phrase: Template]] = [.english: english.phrases]
        var plurals: [Language: [Counted: [PluralCategory: Template]]] = [.english: english.plurals]
        var missing: [String] = []
        for language in Language.supported where language != .english {
            guard let lproj = folder?.appendingPathComponent(language.catalogFolder),
                  let strings = Self.strings(at: lproj.appendingPathComponent("Localizable.strings"))
            else {
                missing.append(language.rawValue)
                continue
            }
            var table = english.phrases
            for phrase in Phrase.allCases {
                if let text = strings[phrase.rawValue] { table[phrase] = Template(text) }
            }
            phrases[language] = table
            plurals[language] = Self.plurals(at: lproj.appendingPathComponent("Plurals.stringsdict"), fallback: english.plurals)
        }
        self.phrases = phrases
        self.plurals = plurals
        problem = missing.isEmpty ? nil
            : "no catalogs for \(missing.joined(separator: ", ")) in \(folder?.path ?? "any folder next to the binary"); those chats are answered in English"
    }

    /// A `.strings` file, which is an old-style property list of strings. Read as one rather
    /// than through `Bundle`, which would keep a second copy of every language's sentences
    /// for the life of the process.
    private static func strings(at url: URL) -> [String: String]? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: String]
    }

    /// The English built into the binary.
    private static let english: (phrases: [Phrase: Template], plurals: [Counted: [PluralCategory: Template]]) = (
        Dictionary(uniqueKeysWithValues: Phrase.allCases.map { ($0, Template($0.english)) }),
        Dictionary(uniqueKeysWithValues: Counted.allCases.map { ($0, [.one: Template($0.english.one), .other: Template($0.english.other)]) })
    )

    /// A `.stringsdict` in Apple's plist format, one variable per entry (`%#@count@`).
    private static func plurals(at url: URL, fallback: [Counted: [PluralCategory: Template]]) -> [Counted: [PluralCategory: Template]] {
        guard let data = try? Data(contentsOf: url), let entries = try? PropertyListDecoder().decode([String: PluralEntry].self, from: data) else {
            return fallback
        }
        var table = fallback
        for counted in Counted.allCases {
            guard let entry = entries[counted.rawValue], let forms = entry.forms, forms[.other] != nil else { continue }
            table[counted] = forms.mapValues { form in Template(entry.format.replacingOccurrences(of: "%#@\(entry.variable)@", with: form)) }
        }
        return table
    }

    /// The pseudo-locale's, made from English when asked for: only tests and `--language`
    /// ask, and keeping it would cost as much memory as a language.
    func template(_ phrase: Phrase, in language: Language) -> Template {
        if language == .pseudo { return template(phrase, in: .english).pseudo }
        return phrases[language]?[phrase] ?? Template(phrase.english)
    }

    /// The form for `n`: its CLDR category's, or `other`'s where the catalog has none.
    func template(_ counted: Counted, _ n: Int, in language: Language) -> Template {
        if language == .pseudo { return template(counted, n, in: .english).pseudo }
        let forms = plurals[language]?[counted]
        return forms?[PluralCategory(n, in: language)] ?? forms?[.other] ?? Template(n == 1 ? counted.english.one : counted.english.other)
    }
}

/// One entry of a `.stringsdict`: the format with its variable, and the variable's forms.
private struct PluralEntry: Decodable {
    var format: String
    var variable: String
    var forms: [PluralCategory: String]?

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        format = try container.decode(String.self, forKey: Key(stringValue: "NSStringLocalizedFormatKey"))
        // `%#@count@`: the variable whose forms follow.
        let name = format.components(separatedBy: "%#@").dropFirst().first?.components(separatedBy: "@").first ?? ""
        variable = name
        let rules = try container.decode([String: String].self, forKey: Key(stringValue: name))
        forms = Dictionary(uniqueKeysWithValues: rules.compactMap { key, value in PluralCategory(rawValue: key).map { ($0, value) } })
    }
}
