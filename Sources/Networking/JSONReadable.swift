/// A type that reads itself from a JSON value directly: every API answer (Telegram's, Last.fm's,
/// Libre.fm's, ListenBrainz's) is read once onto a tape and picked apart by these initialisers,
/// with no `Decoder`, no containers and no coding keys in between, so there is one reading of
/// each answer.
///
/// The helpers below throw where `Decodable` would: a required member that is missing, null or
/// of the wrong kind, and an optional member present with the wrong kind. A reader that is
/// more lenient than that (Last.fm's) says so itself.
public protocol JSONReadable: Sendable {
    init(json: JSONNode) throws
}

extension Bool: JSONReadable {
    public init(json: JSONNode) throws {
        self = try json.bool ?? { throw JSONNode.Malformed(description: "expected a boolean") }()
    }
}

extension Array: JSONReadable where Element: JSONReadable {
    /// Every element must be readable: one that is not fails the whole array, as in `Decodable`.
    public init(json: JSONNode) throws {
        guard json.isArray else { throw JSONNode.Malformed(description: "expected an array") }
        self = try json.elements.map(Element.init(json:))
    }
}

// Inlinable, so that each reader in another module gets a copy made for its own types: called
// generically, every member read looked its type's `Optional` up at run time (a profile of a
// burst put that at 5% of the bot's instructions).
extension JSONNode {
    /// Member `key`, which must be present and readable by `read`.
    @inlinable
    public func required<T>(_ key: StaticString, _ read: (JSONNode) throws -> T?) throws -> T {
        guard let member = self[key], !member.isNull else {
            throw Malformed(description: "missing \(key)")
        }
        guard let value = try read(member) else { throw Malformed(description: "unreadable \(key)") }
        return value
    }

    /// Member `key`: nil when missing or null, an error when present but unreadable by `read`.
    @inlinable
    public func optional<T>(_ key: StaticString, _ read: (JSONNode) throws -> T?) throws -> T? {
        guard let member = self[key], !member.isNull else { return nil }
        guard let value = try read(member) else { throw Malformed(description: "unreadable \(key)") }
        return value
    }

    /// Member `key`, which must be present and readable as a `T`.
    @inlinable
    public func required<T: JSONReadable>(_ key: StaticString, as type: T.Type) throws -> T {
        try required(key) { try T(json: $0) }
    }

    /// Member `key` as a `T`: nil when missing or null, an error when present but unreadable.
    @inlinable
    public func optional<T: JSONReadable>(_ key: StaticString, as type: T.Type) throws -> T? {
        try optional(key) { try T(json: $0) }
    }
}
