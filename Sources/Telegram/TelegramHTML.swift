/// Telegram's HTML parse mode rejects a whole message over one stray `<`, `>` or `&`.
public enum TelegramHTML {
    /// Escapes by Unicode scalar, not by Character: a `<` followed by a combining mark is one
    /// Character that is not equal to "<", yet Telegram still reads the `<`.
    public static func escape(_ text: String) -> String {
        // Most names have nothing to escape: they are returned as they are.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// The UTF-16 length of `scalar` once escaped.
    public static func escapedLength(_ scalar: Unicode.Scalar) -> Int {
        switch scalar {
        case "&": 5
        case "<", ">": 4
        default: scalar.utf16.count
        }
    }

    /// The longest message text, in UTF-16 units once entities are parsed.
    public static let maxTextLength = 4096
    /// The longest photo caption, in UTF-16 units once entities are parsed.
    public static let maxCaptionLength = 1024

    /// What Telegram would say about `html` in parse mode HTML, or nil if it takes it: only
    /// Telegram's tags, properly nested; every `<`, `>` and `&` escaped; 1–4096 UTF-16 units
    /// of text once parsed. The fake Telegram and the fuzz harnesses hold replies to it.
    public static func problem(in html: String) -> String? {
        switch parse(html) {
        case .invalid(let problem): problem
        case .text(units: 0): "message text is empty"
        case .text(let units) where units > maxTextLength: "message is too long"
        case .text: nil
        }
    }

    /// What Telegram would say about `html` as a photo caption, or nil if it takes it: the
    /// same rules as `problem(in:)`, except that a caption may be empty and holds at most
    /// `maxCaptionLength` units.
    public static func captionProblem(in html: String) -> String? {
        switch parse(html) {
        case .invalid(let problem): problem
        case .text(let units) where units > maxCaptionLength: "message caption is too long"
        case .text: nil
        }
    }

    private enum Parsed {
        case text(units: Int)
        case invalid(String)
    }

    private static func parse(_ html: String) -> Parsed {
        let allowed: Set<String> = ["b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "a", "code", "pre", "tg-spoiler", "span", "blockquote"]
        var open: [String] = []
        var textUnits = 0
        var scalars = html.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "<":
                guard let end = scalars.firstIndex(of: ">") else { return .invalid("can't parse entities: unclosed start tag") }
                let inside = String(scalars[..<end])
                scalars = scalars[scalars.index(after: end)...]
                let closing = inside.hasPrefix("/")
                let name = String((closing ? inside.dropFirst() : inside[...]).prefix { $0 != " " && $0 != "=" }).lowercased()
                guard allowed.contains(name) else { return .invalid("can't parse entities: unsupported start tag \"\(name)\"") }
                if closing {
                    guard open.popLast() == name else { return .invalid("can't parse entities: unmatched end tag \"\(name)\"") }
                } else {
                    open.append(name)
                }
            case ">":
                return .invalid("can't parse entities: character '>' is reserved")
            case "&":
                guard let end = scalars.prefix(10).firstIndex(of: ";") else { return .invalid("can't parse entities: unescaped '&'") }
                let entity = String(scalars[..<end])
                scalars = scalars[scalars.index(after: end)...]
                let named = ["amp", "lt", "gt", "quot"].contains(entity)
                let numeric = entity.hasPrefix("#") && entity.dropFirst().allSatisfy(\.isNumber) && entity.count > 1
                guard named || numeric else { return .invalid("can't parse entities: unsupported entity \"&\(entity);\"") }
                textUnits += 1
            default:
                textUnits += scalar.utf16.count
            }
        }
        guard open.isEmpty else { return .invalid("can't parse entities: can't find end tag corresponding to start tag \"\(open.last!)\"") }
        return .text(units: textUnits)
    }
}
