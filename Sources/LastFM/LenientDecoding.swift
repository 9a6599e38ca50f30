import Foundation
import WeeklyCharts

// Last.fm's JSON is an XML API translated mechanically. These wrappers absorb its quirks
// so that the models below can be plain structs.

/// An integer that may arrive as a number, as a numeric string, or as `""`.
struct LenientInt: Decodable {
    var value: Int?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let int = try? container.decode(Int.self) {
            value = int
        } else if let string = try? container.decode(String.self) {
            value = Int(string.trimmingCharacters(in: .whitespaces))
        } else if let double = try? container.decode(Double.self) {
            value = Int(exactly: double.rounded(.towardZero))
        } else {
            value = nil
        }
    }
}

/// A list that may be an array, a single bare object, missing, `null`, or `""`.
struct OneOrMany<Element: Decodable>: Decodable {
    var items: [Element]

    init(items: [Element] = []) {
        self.items = items
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            items = []
        } else if let array = try? container.decode([Element].self) {
            items = array
        } else if let string = try? container.decode(String.self), string.trimmingCharacters(in: .whitespaces).isEmpty {
            items = []
        } else {
            items = [try container.decode(Element.self)]
        }
    }
}

/// A name that may be a plain string or an object whose text sits under `#text`.
struct TextNode: Decodable {
    var text: String

    private enum CodingKeys: String, CodingKey {
        case text = "#text"
        case name
    }

    init(from decoder: any Decoder) throws {
        if let string = try? decoder.singleValueContainer().decode(String.self) {
            text = string
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        text = try container.decodeIfPresent(String.self, forKey: .text)
            ?? container.decodeIfPresent(String.self, forKey: .name)
            ?? ""
    }
}

extension KeyedDecodingContainer {
    func lenientInt(_ key: Key) -> Int? {
        (try? decodeIfPresent(LenientInt.self, forKey: key))?.flatMap(\.value)
    }

    func list<Element: Decodable>(_ type: Element.Type, _ key: Key) throws -> [Element] {
        try decodeIfPresent(OneOrMany<Element>.self, forKey: key)?.items ?? []
    }

    func text(_ key: Key) -> String? {
        (try? decodeIfPresent(TextNode.self, forKey: key))?.flatMap(\.text)
    }
}

/// An image list entry: `{"#text": "https://…", "size": "large"}`.
struct LastFMImage: Decodable {
    var url: String
    var size: String

    private enum CodingKeys: String, CodingKey {
        case url = "#text"
        case size
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = (try? container.decodeIfPresent(String.self, forKey: .url)) ?? ""
        size = (try? container.decodeIfPresent(String.self, forKey: .size)) ?? ""
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
