import Foundation

/// A language the bot speaks. A private chat and inline mode follow the person's Telegram
/// `language_code`; a group or channel its admins' `language` setting, English until then.
public enum Language: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    case english = "en"
    case german = "de"
    case spanish = "es"
    case french = "fr"
    case brazilianPortuguese = "pt-BR"
    case russian = "ru"
    /// English lengthened by a third, with accents: for tests that look for replies which only
    /// fit in English. Not offered to chats.
    case pseudo = "qps-ploc"

    /// The languages chats can choose, in the order `language` lists them.
    public static let supported: [Language] = [.english, .german, .spanish, .french, .brazilianPortuguese, .russian]

    /// The language's code, as `language <code>` takes it and the catalogs are named.
    public var description: String { rawValue }

    /// The language a Telegram `language_code` (an IETF tag such as `de`, `pt-br`) asks for:
    /// the tag itself, then its language alone (`pt-PT` → `pt`, served in Brazilian
    /// Portuguese), then English.
    public init(telegramCode code: String?) {
        self = code.flatMap(Self.init(code:)) ?? .english
    }

    /// The language a code names, in any case, with `-` or `_`; nil for a language the bot
    /// does not speak.
    public init?(code: String) {
        // Nearly every code Telegram sends is one of ours as written ("en", "de"): a string
        // switch, before any text is made anew (this runs for every private message).
        if let exact = Language(rawValue: code), exact != .pseudo {
            self = exact
            return
        }
        let tag = code.lowercased().replacingOccurrences(of: "_", with: "-")
        if let exact = Self.supported.first(where: { $0.rawValue.lowercased() == tag }) {
            self = exact
            return
        }
        let primary = tag.prefix { $0 != "-" }
        guard let language = Self.supported.first(where: { $0.rawValue.prefix(2) == primary }) else { return nil }
        self = language
    }

    /// The code Telegram keys menus and descriptions by (ISO 639-1, two letters); nil for
    /// English, which is the menu of everyone whose language has none of its own.
    public var menuCode: String? {
        switch self {
        case .english, .pseudo: nil
        default: String(rawValue.prefix(2))
        }
    }

    /// The language's own name, as `language` lists it.
    public var nativeName: String {
        switch self {
        case .english: "English"
        case .german: "Deutsch"
        case .spanish: "Español"
        case .french: "Français"
        case .brazilianPortuguese: "Português (Brasil)"
        case .russian: "Русский"
        case .pseudo: "Ƥşéûðö"
        }
    }

    /// The folder of its catalogs.
    var catalogFolder: String { "\(rawValue).lproj" }

    /// The locale its dates and numbers are written in.
    var locale: Locale {
        switch self {
        case .english, .pseudo: Locale(identifier: "en_GB")
        case .german: Locale(identifier: "de_DE")
        case .spanish: Locale(identifier: "es_ES")
        case .french: Locale(identifier: "fr_FR")
        case .brazilianPortuguese: Locale(identifier: "pt_BR")
        case .russian: Locale(identifier: "ru_RU")
        }
    }
}
