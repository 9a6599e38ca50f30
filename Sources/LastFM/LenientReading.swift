import Foundation
import Networking
import WeeklyCharts

// Last.fm's JSON is an XML API translated mechanically (and GNU FM's, for Libre.fm, more so).
// These readers absorb its quirks so that the models can be plain structs: a member of the
// wrong kind is read as missing wherever a default will do, and only what a model cannot do
// without fails the answer.

extension JSONNode {
    /// An integer that may arrive as a number, as a numeric string (spaces around it allowed),
    /// or as anything else, which is no integer: `""`, `"x"`, `true`, an object. A number with
    /// a fraction is cut toward zero; one that does not fit in an `Int` is no integer.
    var lenientInt: Int? {
        if let exact = int64 { return Int(exactly: exact) }
        if let string { return Int(string.trimmingCharacters(in: .whitespaces)) }
        if let double { return Int(exactly: double.rounded(.towardZero)) }
        return nil
    }

    /// Member `key` as a lenient integer; nil when missing, null or no integer.
    func lenientInt(_ key: StaticString) -> Int? {
        self[key]?.lenientInt
    }

    /// Member `key` as a string; nil when missing or of another kind.
    func string(_ key: StaticString) -> String? {
        self[key]?.string
    }

    /// Member `key` if it is an object whose keys are text; nil for anything else.
    func object(_ key: StaticString) -> JSONNode? {
        guard let member = self[key], member.isReadableObject else { return nil }
        return member
    }

    /// A name that may be a plain string or an object whose text sits under `#text` (or, in
    /// GNU FM's artists, `name`); an object with neither is the empty name. Nil for anything
    /// else, and for an object whose `#text` (or, without one, `name`) is not a string or
    /// whose keys are not all text.
    func text(_ key: StaticString) -> String? {
        guard let member = self[key] else { return nil }
        if let string = member.string { return string }
        guard member.isReadableObject else { return nil }
        for inner: StaticString in ["#text", "name"] {
            if let value = member[inner], !value.isNull { return value.string }
        }
        return ""
    }

    /// Member `key` as a list that may be an array, a single bare object, missing, `null`, or
    /// a blank string. Each element is read by `read`; should one fail, the member is read as
    /// a single element instead, which fails too for readers that need an object.
    func list<Element>(_ key: StaticString, _ read: (JSONNode) throws -> Element) throws -> [Element] {
        guard let member = self[key] else { return [] }
        return try member.oneOrMany(read)
    }

    /// This value as a list (see `list(_:_:)`).
    func oneOrMany<Element>(_ read: (JSONNode) throws -> Element) throws -> [Element] {
        if isNull { return [] }
        if isArray, let all = try? elements.map(read) { return all }
        if let string, string.trimmingCharacters(in: .whitespaces).isEmpty { return [] }
        return [try read(self)]
    }

    /// Where Last.fm writes an empty list as something other than its object: `""`, `null`,
    /// a string, or an array of strings. Anything else there is no answer of this method.
    func requireEmptyList(_ key: StaticString) throws {
        guard let member = self[key] else { throw Malformed(description: "missing \(key)") }
        _ = try member.oneOrMany { try $0.string ?? { throw Malformed(description: "unreadable \(key)") }() }
    }

    /// This value if it is an object whose keys are text, else the error an answer of the
    /// wrong shape is.
    func requireObject() throws -> JSONNode {
        guard isReadableObject else { throw Malformed(description: "expected an object") }
        return self
    }
}

/// An image list entry: `{"#text": "https://…", "size": "large"}`.
struct LastFMImage {
    var url: String
    var size: String

    /// Any object is an image, its missing or odd members empty; anything else is not.
    init(json: JSONNode) throws {
        let image = try json.requireObject()
        url = image.string("#text") ?? ""
        size = image.string("size") ?? ""
    }

    /// The largest non-empty image of a list, the way Last.fm orders sizes. Last.fm's grey
    /// star placeholder is no cover, so it is never chosen.
    static func largest(in images: [LastFMImage]) -> URL? {
        let order = ["small", "medium", "large", "extralarge", "mega"]
        return images
            .filter { !$0.url.isEmpty && !LastFMPlaceholder.isPlaceholder($0.url) }
            .max { (order.firstIndex(of: $0.size) ?? -1) < (order.firstIndex(of: $1.size) ?? -1) }
            .flatMap { URL(string: $0.url) }
    }
}
