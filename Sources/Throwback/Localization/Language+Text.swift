import Foundation

extension Language {
    /// `phrase` in this language, with `arguments` put in, in order (`%1$@`, `%2$@`, …).
    func text(_ phrase: Phrase, _ arguments: String...) -> String {
        Catalog.shared.template(phrase, in: self).filled(arguments)
    }

    /// "1 play", "2 plays"; "1 прослушивание", "5 прослушиваний".
    func count(_ n: Int, _ counted: Counted) -> String {
        Catalog.shared.template(counted, n, in: self).filled([number(n)])
    }

    /// "3 years ago", "vor 3 Jahren".
    func yearsAgo(_ years: Int) -> String {
        count(years, .yearsAgo)
    }

    /// What was missing of the catalogs next to the binary, for one warning at start; nil
    /// when every language was read whole.
    public static var catalogProblem: String? { Catalog.shared.problem }

    /// Names joined as the language lists them: "alice, bob and carol", "alice, bob и carol".
    func list(_ names: [String]) -> String {
        names.formatted(.list(type: .and).locale(locale))
    }

    /// A choice of several, listed: "de Deutsch, es Español, …".
    static var choices: String {
        supported.map { "\($0.rawValue) \($0.nativeName)" }.joined(separator: ", ")
    }
}

extension Language {
    /// A count as the language writes it: "1.234" in German, "1 234" in French and Russian.
    /// English keeps its digits ungrouped, as the bot always wrote them; below a thousand
    /// every language writes the same digits, without a formatter.
    func number(_ n: Int) -> String {
        guard let style = Self.numberStyles[self], n.magnitude >= 1000 else { return String(n) }
        return style.format(n)
    }

    private static let numberStyles: [Language: IntegerFormatStyle<Int>] = Dictionary(
        uniqueKeysWithValues: supported.filter { $0 != .english }.map { ($0, IntegerFormatStyle<Int>(locale: $0.locale)) }
    )
}
