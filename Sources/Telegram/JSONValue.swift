import Networking

/// A JSON value, for Bot API request parameters. Requests are plain dictionaries of these,
/// so an adaptor can rewrite a parameter (a migrated `chat_id`) without knowing the method.
public enum JSONValue: Codable, Sendable, Equatable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .int(value) }
        else if let value = try? container.decode(Double.self) { self = .double(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    public var intValue: Int64? {
        if case .int(let value) = self { return value }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// A value read from a JSON document: a number written as an integer that fits is an
    /// `int`, any other a `double`; a member whose key is not valid UTF-8 is left out.
    public init(node: JSONNode) {
        if node.isObject {
            var members: [String: JSONValue] = [:]
            for (key, value) in node.members {
                if let key, members[key] == nil { members[key] = JSONValue(node: value) }
            }
            self = .object(members)
        } else if node.isArray {
            self = .array(node.elements.map(JSONValue.init(node:)))
        } else if let bool = node.bool {
            self = .bool(bool)
        } else if let string = node.string {
            self = .string(string)
        } else if let int = node.integer {
            self = .int(int)
        } else if let double = node.double {
            self = .double(double)
        } else {
            self = .null
        }
    }
}

extension JSONValue {
    /// The value as JSON text, written directly: a request body is built for every reply,
    /// and going through `JSONEncoder` cost more than the rest of the request. Non-ASCII
    /// text stays UTF-8; numbers that JSON cannot hold (NaN, infinities) become `null`.
    public var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .string(let value): JSONString.append(value, to: &out)
        case .int(let value): out.append(contentsOf: String(value).utf8)
        case .double(let value): out.append(contentsOf: (value.isFinite ? "\(value)" : "null").utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONString.append(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
