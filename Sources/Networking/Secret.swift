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

extension Secret {
    /// Whether `candidate` is this secret, in time that depends only on the lengths: a
    /// comparison that stopped at the first difference would tell a prober how much was right.
    public func matches(_ candidate: String) -> Bool {
        let (expected, given) = (Array(reveal().utf8), Array(candidate.utf8))
        var difference = UInt8(expected.count == given.count ? 0 : 1)
        for index in 0..<given.count { difference |= given[index] ^ expected[index % max(expected.count, 1)] }
        return difference == 0 && !expected.isEmpty
    }
}
