/// The counted things, by their key in the catalogs (`Plurals.stringsdict`): "1 play",
/// "2 plays", each language with its own CLDR forms.
enum Counted: String, CaseIterable, Sendable {
    case plays
    case albums
    case years
    case yearsAgo
    case moreAlbums
    case friends
    case users
    case messages

    /// The English forms, for a binary whose catalogs are missing.
    var english: (one: String, other: String) {
        switch self {
        case .plays: ("%ld play", "%ld plays")
        case .albums: ("%ld album", "%ld albums")
        case .years: ("%ld year", "%ld years")
        case .yearsAgo: ("%ld year ago", "%ld years ago")
        case .moreAlbums: ("…and %ld more album.", "…and %ld more albums.")
        case .friends: ("%ld friend", "%ld friends")
        case .users: ("%ld user", "%ld users")
        case .messages: ("%ld message", "%ld messages")
        }
    }
}
