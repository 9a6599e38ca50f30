import Foundation

/// A `multipart/form-data` body, parsed strictly: the fakes refuse a body that a lenient
/// parser would have guessed at, so that the client's encoding must be right.
public struct MultipartForm: Sendable, Equatable {
    public struct Part: Sendable, Equatable {
        public var name: String
        /// Set for a file part, nil for a form field.
        public var filename: String?
        public var contentType: String?
        public var data: Data
    }

    public var parts: [Part]

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Form fields as text, by name.
    public var fields: [String: String] {
        Dictionary(parts.filter { $0.filename == nil }.map { ($0.name, String(decoding: $0.data, as: UTF8.self)) }, uniquingKeysWith: { a, _ in a })
    }

    /// File parts' bytes, by name.
    public var files: [String: Data] {
        Dictionary(parts.filter { $0.filename != nil }.map { ($0.name, $0.data) }, uniquingKeysWith: { a, _ in a })
    }

    /// Whether a `Content-Type` header announces a multipart form.
    public static func isMultipart(_ contentType: String?) -> Bool {
        contentType?.lowercased().hasPrefix("multipart/form-data") == true
    }

    /// Parses `body` with the boundary that `contentType` names. Every part needs a
    /// `Content-Disposition: form-data` with a unique name; fields must be UTF-8; the body
    /// must start with the first delimiter and end with the closing one.
    public init(body: Data, contentType: String) throws {
        let boundary = try Self.boundary(in: contentType)
        // Searched as Data: its search runs optimized even in a debug build, which matters
        // for a photo of megabytes.
        let delimiter = Data("\r\n--\(boundary)".utf8)
        guard body.starts(with: delimiter.dropFirst(2)) else { throw ParseError(description: "the body does not start with the boundary") }
        var position = body.startIndex + delimiter.count - 2
        var parts: [Part] = []
        while !body[position...].starts(with: "--".utf8) {
            guard body[position...].starts(with: "\r\n".utf8) else {
                throw ParseError(description: "the boundary is not followed by a line break")
            }
            position += 2
            guard let headerEnd = body.range(of: Data("\r\n\r\n".utf8), in: position..<body.endIndex) else {
                throw ParseError(description: "a part's headers never end")
            }
            let headers = try Self.headers(body[position..<headerEnd.lowerBound])
            position = headerEnd.upperBound
            guard let end = body.range(of: delimiter, in: position..<body.endIndex) else {
                throw ParseError(description: "a part never ends")
            }
            let part = try Self.part(headers: headers, data: Data(body[position..<end.lowerBound]))
            if part.filename == nil, String(validating: part.data, as: UTF8.self) == nil {
                throw ParseError(description: "field \(part.name) is not UTF-8")
            }
            guard !parts.contains(where: { $0.name == part.name }) else { throw ParseError(description: "field \(part.name) twice") }
            parts.append(part)
            position = end.upperBound
        }
        let rest = body[(position + 2)...]
        guard rest.isEmpty || rest.elementsEqual("\r\n".utf8) else { throw ParseError(description: "data after the closing boundary") }
        self.parts = parts
    }

    private static func boundary(in contentType: String) throws -> String {
        guard isMultipart(contentType) else { throw ParseError(description: "not multipart/form-data") }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            // RFC 2046: 1–70 characters.
            guard (1...70).contains(value.utf8.count) else { throw ParseError(description: "a boundary of \(value.utf8.count) characters") }
            return value
        }
        throw ParseError(description: "no boundary")
    }

    /// Header fields of one part, names lowercased.
    private static func headers(_ bytes: Data) throws -> [String: String] {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw ParseError(description: "headers are not UTF-8") }
        var headers: [String: String] = [:]
        for line in text.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw ParseError(description: "a malformed header line")
            }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }

    private static func part(headers: [String: String], data: Data) throws -> Part {
        guard let disposition = headers["content-disposition"] else { throw ParseError(description: "a part without Content-Disposition") }
        let items = try Self.items(of: disposition)
        guard items.first?.lowercased() == "form-data" else { throw ParseError(description: "a part that is not form-data") }
        var name: String?
        var filename: String?
        for item in items.dropFirst() {
            let pair = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, pair[1].count >= 2, pair[1].hasPrefix("\""), pair[1].hasSuffix("\"") else {
                throw ParseError(description: "a malformed Content-Disposition")
            }
            let value = String(pair[1].dropFirst().dropLast())
            switch pair[0].trimmingCharacters(in: .whitespaces).lowercased() {
            case "name": name = value
            case "filename": filename = value
            default: break
            }
        }
        guard let name, !name.isEmpty else { throw ParseError(description: "a part without a name") }
        return Part(name: name, filename: filename, contentType: headers["content-type"], data: data)
    }

    /// The `;`-separated items of a header value; a `;` inside quotes belongs to its item.
    private static func items(of value: String) throws -> [String] {
        var items: [String] = []
        var current = ""
        var quoted = false
        for character in value {
            switch character {
            case "\"":
                quoted.toggle()
                current.append(character)
            case ";" where !quoted:
                items.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            default:
                current.append(character)
            }
        }
        guard !quoted else { throw ParseError(description: "an unclosed quote") }
        items.append(current.trimmingCharacters(in: .whitespaces))
        return items
    }
}
