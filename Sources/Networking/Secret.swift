/// A secret value, such as the bot token or the Last.fm API key.
///
/// Its description, debug description and reflection never show the value, so a secret
/// can sit inside any struct that a library prints (a service group logs its services'
/// descriptions at debug level) without leaking. Only `reveal()` gives the value, for the
/// one place that puts it on the wire.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable, ExpressibleByStringLiteral {
    private let value: String

    public init(_ value: String) {
        self.value = value
    }

    public init(stringLiteral value: String) {
        self.value = value
    }

    /// The value itself. Call it only to build a request, never to log.
    public func reveal() -> String {
        value
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
