import Networking

/// A Bot API type that reads itself from a JSON value directly: each answer and each update
/// is read once onto a tape and picked apart by these initialisers, with no `Decoder`, no
/// containers and no coding keys in between. Their `Decodable` conformances read the same
/// way (`JSONNode(decoding:)`), so there is one reading of each type.
///
/// Where `Decodable` would throw, these throw too: a required member that is missing, null
/// or of the wrong kind, and an optional member present with the wrong kind.
public protocol JSONReadable: Sendable {
    init(json: JSONNode) throws
}

extension Bool: JSONReadable {
    public init(json: JSONNode) throws {
        self = try json.bool ?? { throw JSONNode.Malformed(description: "expected a boolean") }()
    }
}

extension Array: JSONReadable where Element: JSONReadable {
    public init(json: JSONNode) throws {
        guard json.isArray else { throw JSONNode.Malformed(description: "expected an array") }
        self = try json.elements.map(Element.init(json:))
    }
}

extension JSONNode {
    /// The node a `Decoder` stands for: the value decoded generically and read onto a tape
    /// (`JSONDecoder` in tests, say). The bot itself reads answers with `init(json:)`.
    public init(decoding decoder: any Decoder) throws {
        self = try JSONNode(parsing: try JSONValue(from: decoder).jsonBytes)
    }

    /// Member `key`, which must be present and readable by `read`.
    func required<T>(_ key: StaticString, _ read: (JSONNode) throws -> T?) throws -> T {
        guard let member = self[key], !member.isNull else {
            throw Malformed(description: "missing \(key)")
        }
        guard let value = try read(member) else { throw Malformed(description: "unreadable \(key)") }
        return value
    }

    /// Member `key`: nil when missing or null, an error when present but unreadable by `read`.
    func optional<T>(_ key: StaticString, _ read: (JSONNode) throws -> T?) throws -> T? {
        guard let member = self[key], !member.isNull else { return nil }
        guard let value = try read(member) else { throw Malformed(description: "unreadable \(key)") }
        return value
    }

    func required<T: JSONReadable>(_ key: StaticString, as type: T.Type) throws -> T {
        try required(key) { try T(json: $0) }
    }

    func optional<T: JSONReadable>(_ key: StaticString, as type: T.Type) throws -> T? {
        try optional(key) { try T(json: $0) }
    }
}
