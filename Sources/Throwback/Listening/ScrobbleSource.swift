/// A service that keeps someone's listening history. Last.fm is the default; the others are
/// named with a prefix: `lb:bob`, `librefm:carol`.
public enum ScrobbleSource: String, Sendable, CaseIterable, Codable {
    case lastFM
    case listenBrainz
    case libreFM

    /// The service's name, for the person who reads an answer.
    public var serviceName: String {
        switch self {
        case .lastFM: "Last.fm"
        case .listenBrainz: "ListenBrainz"
        case .libreFM: "Libre.fm"
        }
    }

    /// The prefix a stored or shown name carries; Last.fm's names carry none.
    public var prefix: String? {
        switch self {
        case .lastFM: nil
        case .listenBrainz: "lb"
        case .libreFM: "librefm"
        }
    }

    /// The source a written prefix names, in any case; the long forms are accepted too.
    static func named(_ prefix: Substring) -> ScrobbleSource? {
        switch prefix.lowercased() {
        case "lastfm": .lastFM
        case "lb", "listenbrainz": .listenBrainz
        case "librefm", "libre": .libreFM
        default: nil
        }
    }

    /// Whether `name` can be an account of this service, before asking it.
    public func accepts(_ name: Substring) -> Bool {
        switch self {
        case .lastFM:
            return LastFMName.isValid(name.utf8)
        case .listenBrainz:
            // MusicBrainz names allow almost anything; refuse only what cannot be one path
            // segment of a URL or one word of a command.
            return (1...64).contains(name.count)
                && name.unicodeScalars.allSatisfy { !$0.properties.isWhitespace && $0.value >= 0x20 && $0.value != 0x7F && !"/\\?#%".unicodeScalars.contains($0) }
        case .libreFM:
            // ASCII only, so bytes are characters.
            return (1...64).contains(name.utf8.count)
                && name.utf8.allSatisfy { ASCIIByte.isLetterOrDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
        }
    }
}

/// A listener's name with its source: how names are written in commands, stored in rosters
/// and links, and shown. A Last.fm name is bare, as it always was, so existing rosters and
/// links mean what they meant; `lastfm:alice` is written `alice`.
public struct ListenerName: Sendable, Hashable, CustomStringConvertible {
    public var source: ScrobbleSource
    /// The account name at the source, without prefix.
    public var name: String

    public init(source: ScrobbleSource, name: String) {
        self.source = source
        self.name = name
    }

    /// Reads `alice`, `lastfm:alice`, `lb:bob` or `librefm:carol`; nil when the name cannot
    /// be an account of its source.
    public init?(parsing text: String) {
        let source: ScrobbleSource
        let name: Substring
        if let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")), let named = ScrobbleSource.named(text[..<colon]) {
            source = named
            name = text[text.index(after: colon)...]
        } else {
            source = .lastFM
            name = text[...]
        }
        guard source.accepts(name) else { return nil }
        self.init(source: source, name: String(name))
    }

    /// Whether `text` is a name of some source.
    public static func isValid(_ text: String) -> Bool {
        ListenerName(parsing: text) != nil
    }

    /// The stored and shown form: bare for Last.fm, `prefix:name` for the others.
    public var qualified: String {
        source.prefix.map { "\($0):\(name)" } ?? name
    }

    public var description: String { qualified }

    /// What a command says when a name is none: the rules of each source.
    public static func syntaxHelp(_ text: String, in language: Language = .english) -> String {
        language.text(.listenerSyntax, String(text.prefix(40)))
    }
}
