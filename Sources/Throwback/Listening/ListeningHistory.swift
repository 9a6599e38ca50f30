import Foundation
import LastFM
import Networking
import WeeklyCharts

/// What the engine asks of a listening source: an account's spelling, the weeks it has data
/// for, and one week's album chart. Last.fm answers from its weekly charts; ListenBrainz and
/// Libre.fm build each week from single plays. Every source uses Last.fm's week grid (Sunday
/// 12:00 UTC to Sunday 12:00 UTC), so that a roster of mixed sources shares one week.
///
/// The week finder, the play-count filter, year navigation, the weekly post, collages and the
/// formatter work on these answers and never know which source gave them.
public protocol ListeningHistory: Sendable {
    /// The account in the source's own spelling. Throws a `ListeningError` whose
    /// `unknownName` is set when there is no such account.
    func account(_ name: String) async throws -> String
    /// Every week the user has data for, oldest first.
    func weeks(of user: String) async throws -> [WeeklyChartRange]
    /// The album chart of one week.
    func albumChart(of user: String, in range: WeeklyChartRange) async throws -> WeeklyAlbumChart
}

extension ListeningError {
    /// The line a person reads, with `hint` after "no such user" (the demo lists its users).
    func userMessage(hint: ((Language) -> String)?, in language: Language = .english) -> String {
        guard unknownName != nil, let hint else { return userMessage(in: language) }
        return "\(userMessage(in: language)) \(hint(language))"
    }

    /// A short sentence for the person who asked, in `language`, naming the service that failed.
    func userMessage(in language: Language) -> String {
        switch reason {
        case .userNotFound(let name): language.text(.serviceUserNotFound, service, name)
        case .privateProfile(let name): language.text(.servicePrivate, name, service)
        case .credentialsRefused: language.text(.serviceKeyRefused, service)
        case .rateLimited: language.text(.serviceRateLimited, service)
        case .temporarilyUnavailable: language.text(.serviceTrouble, service)
        case .rejected(_, let message):
            language.text(.serviceRejected, service, message.isEmpty ? language.text(.serviceNoReason) : String(message.prefix(200)))
        case .transport: language.text(.serviceUnreachable, service)
        case .undecodable: language.text(.serviceUnreadable, service)
        }
    }
}
