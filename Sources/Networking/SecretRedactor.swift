import Foundation

/// Replaces secrets (the bot token, the Last.fm key) in any text before it is logged or shown,
/// in every form they are written in: as they are, percent-encoded in a URL (`123%3AABC`) and
/// escaped in JSON (`ab\/cd`).
public struct SecretRedactor: Sendable {
    /// The UTF-8 bytes of every form of every secret, longest first, so that a form containing
    /// another is replaced whole.
    private let forms: [[UInt8]]

    public init(secrets: [Secret]) {
        // Very short values are skipped: replacing every "a" would garble text without protecting anything.
        let values = secrets.map { $0.reveal() }.filter { $0.count >= 4 }
        var forms: [[UInt8]] = []
        for value in values {
            for form in [value] + Self.percentEncodedForms(of: value) + Self.jsonEscapedForms(of: value) {
                let bytes = Array(form.utf8)
                if !forms.contains(bytes) { forms.append(bytes) }
            }
        }
        self.forms = forms.sorted { $0.count > $1.count }
    }

    /// Whether there is nothing to redact.
    public var isEmpty: Bool { forms.isEmpty }

    /// `text` with every form of every secret replaced by `<redacted>`.
    public func redact(_ text: String) -> String {
        // It runs on every log line: a line without a secret is only scanned.
        guard forms.contains(where: { text.utf8.contains($0) }) else { return text }
        var text = text
        for form in forms {
            let secret = String(decoding: form, as: UTF8.self)
            if text.contains(secret) { text = text.replacingOccurrences(of: secret, with: "<redacted>") }
        }
        return text
    }

    /// The value as a URL's encoder writes it: every byte but RFC 3986's unreserved ones as
    /// `%XX`, in upper or lower hex, and a space also as a form's `+`.
    private static func percentEncodedForms(of value: String) -> [String] {
        func encoded(uppercase: Bool, space: String?) -> String {
            var form = ""
            for byte in value.utf8 {
                let scalar = Unicode.Scalar(byte)
                if ("0"..."9").contains(scalar) || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || "-._~".unicodeScalars.contains(scalar) {
                    form.unicodeScalars.append(scalar)
                } else if scalar == " ", let space {
                    form += space
                } else {
                    form += "%" + hex(UInt32(byte), digits: 2, uppercase: uppercase)
                }
            }
            return form
        }
        return [encoded(uppercase: true, space: nil), encoded(uppercase: false, space: nil),
                encoded(uppercase: true, space: "+"), encoded(uppercase: false, space: "+")]
    }

    /// The value inside a JSON string, as encoders write it: `/` as `\/` or as it is, with
    /// the characters JSON must escape in their short form; or every character an encoder may
    /// escape (`/`, `"`, `\`, controls, anything beyond ASCII) as `\uXXXX`, in either hex case.
    private static func jsonEscapedForms(of value: String) -> [String] {
        let short: [Unicode.Scalar: String] = ["\"": "\\\"", "\\": "\\\\", "\u{8}": "\\b", "\u{C}": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"]
        func shortForm(slash: String) -> String {
            var form = ""
            for scalar in value.unicodeScalars {
                if scalar == "/" {
                    form += slash
                } else if let escape = short[scalar] {
                    form += escape
                } else if scalar.value < 0x20 {
                    form += "\\u" + hex(scalar.value, digits: 4, uppercase: false)
                } else {
                    form.unicodeScalars.append(scalar)
                }
            }
            return form
        }
        func unicodeForm(uppercase: Bool) -> String {
            var form = ""
            for scalar in value.unicodeScalars {
                if scalar.value < 0x20 || scalar.value >= 0x80 || "\"\\/".unicodeScalars.contains(scalar) {
                    for unit in String(scalar).utf16 { form += "\\u" + hex(UInt32(unit), digits: 4, uppercase: uppercase) }
                } else {
                    form.unicodeScalars.append(scalar)
                }
            }
            return form
        }
        return [shortForm(slash: "\\/"), shortForm(slash: "/"), unicodeForm(uppercase: false), unicodeForm(uppercase: true)]
    }

    private static func hex(_ value: UInt32, digits: Int, uppercase: Bool) -> String {
        let text = String(value, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
