/// CLDR's plural categories (unicode.org/cldr/charts/latest/supplemental/language_plural_rules.html),
/// for whole numbers: the key a `.stringsdict` form is filed under.
///
/// Chosen here rather than by Foundation: on Linux, Foundation crashes on any
/// `Localizable.stringsdict`, so plurals are read from `Plurals.stringsdict` by this project.
enum PluralCategory: String, CaseIterable, Sendable, Decodable {
    case zero, one, two, few, many, other

    /// The category of `n` in `language`, by CLDR's rules for integers.
    init(_ n: Int, in language: Language) {
        let n = n.magnitude
        switch language {
        case .english, .german, .pseudo:
            self = n == 1 ? .one : .other
        case .spanish:
            self = n == 1 ? .one : Self.isWholeMillions(n) ? .many : .other
        case .french, .brazilianPortuguese:
            // i = 0,1: "0 écoute", "1 écoute", "2 écoutes".
            self = n <= 1 ? .one : Self.isWholeMillions(n) ? .many : .other
        case .russian:
            let (mod10, mod100) = (n % 10, n % 100)
            if mod10 == 1, mod100 != 11 {
                self = .one
            } else if (2...4).contains(mod10), !(12...14).contains(mod100) {
                self = .few
            } else {
                self = .many
            }
        }
    }

    /// "1 000 000 d’écoutes", "1.000.000 de reproducciones": whole millions take "de".
    private static func isWholeMillions(_ n: UInt) -> Bool {
        n != 0 && n % 1_000_000 == 0
    }
}
