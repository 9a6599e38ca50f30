#if PostgreSQL
import Synchronization

/// The store's SQL as PostgreSQL takes it: SQLite's `?` placeholders numbered `$1`, `$2`, …
/// Each text is numbered once and kept: the store's statements are a fixed set written in its
/// code (statements made anew for each call are numbered without being kept), so this holds
/// as many entries as the code has statements.
final class PostgresStatementTexts: Sendable {
    private let numberedTexts = Mutex<[String: String]>([:])

    func numbered(_ sql: String) -> String {
        if let known = numberedTexts.withLock({ $0[sql] }) { return known }
        let numbered = Self.numbering(sql)
        numberedTexts.withLock { $0[sql] = numbered }
        return numbered
    }

    /// `sql` with each `?` outside quotes (`'…'` literals and `"…"` names) replaced by `$n`.
    static func numbering(_ sql: String) -> String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 8)
        var count = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "?" {
                count += 1
                result += "$\(count)"
            } else {
                result.append(character)
            }
        }
        return result
    }
}
#endif
