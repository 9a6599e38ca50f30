import ArgumentParser
import Throwback

/// `--language de`: any code the bot speaks, in any case, and the pseudo-locale `qps-ploc`,
/// for checking that replies fit in longer languages.
extension Language: ExpressibleByArgument {
    public init?(argument: String) {
        if argument.lowercased() == Language.pseudo.rawValue {
            self = .pseudo
        } else if let language = Language(code: argument) {
            self = language
        } else {
            return nil
        }
    }

    public static var allValueStrings: [String] { supported.map(\.rawValue) }
}
