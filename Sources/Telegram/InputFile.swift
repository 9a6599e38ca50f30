import Foundation

/// A file to upload with a Bot API call, as one part of a `multipart/form-data` body.
public struct InputFile: Sendable, Equatable {
    /// The name Telegram shows for the file; it also tells Telegram the kind of file.
    public var filename: String
    /// The part's `Content-Type`, such as `image/jpeg`.
    public var contentType: String
    public var data: Data

    public init(filename: String, contentType: String, data: Data) {
        self.filename = filename
        self.contentType = contentType
        self.data = data
    }
}

/// Where a photo comes from: uploaded with the call, or one Telegram already has.
public enum PhotoSource: Sendable, Equatable {
    case upload(InputFile)
    /// A `file_id` from an earlier answer (`SentMessage.photoFileID`): nothing is uploaded again.
    case fileID(String)
}

/// A `multipart/form-data` body: one form field per parameter, one file part per attachment.
struct MultipartBody {
    let boundary: String
    let data: Data

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// Text parameters go as their raw text, everything else as JSON text, which is how the
    /// Bot API reads objects such as `reply_markup` from a form.
    init(parameters: [String: JSONValue], files: [String: InputFile]) {
        let fields = parameters.sorted { $0.key < $1.key }.map { key, value -> (String, [UInt8]) in
            if case .string(let text) = value { return (key, Array(text.utf8)) }
            return (key, value.jsonBytes)
        }
        let parts = files.sorted { $0.key < $1.key }
        var boundary = Self.randomBoundary()
        // 128 random bits all but rule a collision out; checking makes it certain.
        while fields.contains(where: { Self.contains(Data($0.1), boundary) }) || parts.contains(where: { Self.contains($0.value.data, boundary) }) {
            boundary = Self.randomBoundary()
        }
        var out = Data()
        out.reserveCapacity(parts.reduce(1024) { $0 + $1.value.data.count })
        for (name, value) in fields {
            out.append(contentsOf: "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quoted(name))\"\r\n\r\n".utf8)
            out.append(contentsOf: value)
            out.append(contentsOf: "\r\n".utf8)
        }
        for (name, file) in parts {
            out.append(contentsOf: "--\(boundary)\r\n".utf8)
            out.append(contentsOf: "Content-Disposition: form-data; name=\"\(Self.quoted(name))\"; filename=\"\(Self.quoted(file.filename))\"\r\n".utf8)
            out.append(contentsOf: "Content-Type: \(file.contentType.filter { $0 != "\r" && $0 != "\n" })\r\n\r\n".utf8)
            out.append(file.data)
            out.append(contentsOf: "\r\n".utf8)
        }
        out.append(contentsOf: "--\(boundary)--\r\n".utf8)
        self.boundary = boundary
        self.data = out
    }

    private static func randomBoundary() -> String {
        let bits = (0..<2).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }
        return "vinylogue-" + bits.joined(separator: "-")
    }

    private static func contains(_ bytes: Data, _ boundary: String) -> Bool {
        bytes.range(of: Data(boundary.utf8)) != nil
    }

    /// Escapes a name for a quoted header parameter as browsers do, so that no name can end
    /// the header line or the quotes early.
    private static func quoted(_ name: String) -> String {
        var result = ""
        for character in name.unicodeScalars {
            switch character {
            case "\"": result += "%22"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
