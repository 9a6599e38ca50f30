/// A configuration value that is missing or malformed. Its description is one line for the
/// operator; several of them, one line each.
public enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case missing(key: String, hint: String)
    case invalid(key: String, value: String, expected: String)
    /// A secret that cannot be what it should be. `problem` says why without showing it, and
    /// follows the key's name: "is too short (…)".
    case malformed(key: String, problem: String)
    /// A value refused for a reason its own one line gives, without repeating the value.
    case refused(reason: String)
    /// Every problem with the keys a command needs, so that one attempt shows them all.
    case several([ConfigurationError])

    public var description: String {
        switch self {
        case let .missing(key, hint):
            "\(key) is not set: set it in the environment or in .env (see .env.example); \(hint)."
        case let .invalid(key, value, expected):
            "\(key)=“\(value)” is not valid: expected \(expected)."
        case let .malformed(key, problem):
            "\(key) \(problem)."
        case .refused(let reason):
            "\(reason)."
        case .several(let errors):
            errors.map(\.description).joined(separator: "\n")
        }
    }
}
