import Networking

extension JSONNode {
    /// The node a `Decoder` stands for: the value decoded generically and read onto a tape
    /// (`JSONDecoder` in tests, or an update the store kept), so that a Bot API type's
    /// `Decodable` conformance reads it as `init(json:)` does.
    public init(decoding decoder: any Decoder) throws {
        self = try JSONNode(parsing: try JSONValue(from: decoder).jsonBytes)
    }
}
