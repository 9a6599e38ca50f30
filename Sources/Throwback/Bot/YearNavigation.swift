import Foundation
import Telegram

/// The ◀ / ▶ buttons under a throwback: an earlier or later year of the same user, each shown
/// only when that year has chart data.
///
/// Callback data is `tb|<years>|<user>`: the name goes last, so that any name the server
/// returns (a `|` in it included) reads back whole. A name that would push the data past
/// Telegram's 64 bytes is stored, and the button carries `tb|<years>|#<key>` instead.
/// Data is validated on the way back in, because anyone can send any callback data.
public struct YearNavigation: Sendable {
    public struct Target: Sendable, Equatable {
        public var user: String
        public var yearsAgo: Int

        public init(user: String, yearsAgo: Int) {
            self.user = user
            self.yearsAgo = yearsAgo
        }
    }

    private let store: BotStore

    public init(store: BotStore) {
        self.store = store
    }

    /// The buttons of a reply: nil when there is nowhere to go. A name too long for callback
    /// data is carried by a key, and `names` must be stored (`saveButtonNames`) with the reply.
    public struct Buttons: Sendable {
        public var keyboard: InlineKeyboard?
        public var names: [(key: String, name: String)] = []
    }

    /// The buttons for a reply, labelled in `language`.
    public static func buttons(for reply: BotReply, in language: Language = .english) -> Buttons {
        var buttons = Buttons()
        var row: [InlineKeyboard.Button] = []
        for move in moves(from: reply, in: language) {
            row.append(.init(text: move.label, callbackData: data(for: move.target, names: &buttons.names)))
        }
        buttons.keyboard = row.isEmpty ? nil : InlineKeyboard(rows: [row])
        return buttons
    }

    /// A throwback as at most 64 bytes, which `target(from:)` reads back: the name itself
    /// where it fits, else a key whose name joins `names`, to be stored.
    public static func data(for target: Target, names: inout [(key: String, name: String)]) -> String {
        ButtonData.named(target.user, target.yearsAgo) ?? {
            let key = ButtonData.key(for: target.user)
            names.append((key, target.user))
            return ButtonData.stored(key, target.yearsAgo)
        }()
    }

    /// A year a reply can move to, with its button label.
    public struct Move: Sendable, Equatable {
        public var label: String
        public var target: Target
    }

    /// Where a reply's ◀ and ▶ lead, earlier year first; empty when there is nowhere to go.
    /// Pure, so that a terminal can show the same choices as text.
    public static func moves(from reply: BotReply, in language: Language = .english) -> [Move] {
        guard case .throwback(.chart(let summary)) = reply else { return [] }
        var moves: [Move] = []
        let earlier = summary.yearsAgo + 1
        let later = summary.yearsAgo - 1
        if summary.canGoBack, ThrowbackEngine.yearRange.contains(earlier) {
            moves.append(Move(label: "◀ \(language.yearsAgo(earlier))", target: Target(user: summary.user, yearsAgo: earlier)))
        }
        if summary.canGoForward, ThrowbackEngine.yearRange.contains(later) {
            moves.append(Move(label: "\(language.yearsAgo(later)) ▶", target: Target(user: summary.user, yearsAgo: later)))
        }
        return moves
    }

    /// The target of a button, or nil for forged or stale data.
    public func target(from data: String?) async -> Target? {
        switch data.flatMap(ButtonData.parse) {
        case .named(let user, let years)?:
            return Target(user: user, yearsAgo: years)
        case .stored(let key, let years)?:
            guard let user = try? await store.buttonName(key: key) else { return nil }
            return Target(user: user, yearsAgo: years)
        case nil:
            return nil
        }
    }
}

extension StoreTransaction {
    /// Stores the names a reply's buttons carry by key, as used at `date`.
    public func saveButtonNames(_ buttons: YearNavigation.Buttons, at date: Date) throws {
        for (key, name) in buttons.names { try saveButtonName(name, key: key, at: date) }
    }
}

/// The encoding of a year button's callback data, without storage: pure, so it can be fuzzed.
public enum ButtonData: Equatable, Sendable {
    case named(user: String, yearsAgo: Int)
    case stored(key: String, yearsAgo: Int)

    /// Telegram's limit on callback data.
    public static let maxBytes = 64

    /// `tb|<years>|<user>`, or nil when that is too long or the name cannot be carried.
    public static func named(_ user: String, _ years: Int) -> String? {
        // Scalars, not Characters: a name may begin with a combining mark, which as a
        // Character would merge with the `|` before it.
        guard let first = user.unicodeScalars.first, first != "#" else { return nil }
        let data = "tb|\(years)|\(user)"
        return data.utf8.count <= maxBytes ? data : nil
    }

    /// `tb|<years>|#<key>`.
    public static func stored(_ key: String, _ years: Int) -> String {
        "tb|\(years)|#\(key)"
    }

    /// A stable key for a name: two 64-bit FNV-1a hashes with different seeds, in hex.
    /// Stable across processes (unlike `Hasher`), so buttons keep working after a restart.
    public static func key(for name: String) -> String {
        func fnv(_ seed: UInt64) -> String {
            var hash = seed
            for byte in name.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0100_0000_01b3
            }
            let hex = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
        return fnv(0xcbf2_9ce4_8422_2325) + fnv(0x8422_2325_cbf2_9ce4)
    }

    /// Reads callback data back; nil for anything this bot did not make.
    public static func parse(_ data: String) -> ButtonData? {
        guard data.utf8.count <= maxBytes else { return nil }
        let parts = data.unicodeScalars.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts[0] == "tb", parts[1].utf8.count <= 2, let years = Int(parts[1]),
              ThrowbackEngine.yearRange.contains(years), let first = parts[2].unicodeScalars.first else { return nil }
        let rest = parts[2]
        if first == "#" {
            let key = rest.unicodeScalars.dropFirst()
            guard key.count == 32, key.allSatisfy({ $0.properties.isASCIIHexDigit }) else { return nil }
            return .stored(key: String(key), yearsAgo: years)
        }
        return .named(user: rest, yearsAgo: years)
    }
}
