import Foundation
import LastFM
import ListenBrainz
import WeeklyCharts

/// What the engine asks of a listening source: an account's spelling, the weeks it has data
/// for, and one week's album chart. Last.fm answers from its weekly charts; ListenBrainz and
/// Libre.fm build each week from single plays. Every source uses Last.fm's week grid (Sunday
/// 12:00 UTC to Sunday 12:00 UTC), so that a roster of mixed sources shares one week.
///
/// The week finder, the play-count filter, year navigation, the weekly post, collages and the
/// formatter work on these answers and never know which source gave them.
public protocol ListeningHistory: Sendable {
    /// The account in the source's own spelling. Throws a `ListeningSourceFailure` whose
    /// `unknownName` is set when there is no such account.
    func account(_ name: String) async throws -> String
    /// Every week the user has data for, oldest first.
    func weeks(of user: String) async throws -> [WeeklyChartRange]
    /// The album chart of one week.
    func albumChart(of user: String, in range: WeeklyChartRange) async throws -> WeeklyAlbumChart
}

/// A failure of a listening source, with a line for the person who asked that names the service.
public protocol ListeningSourceFailure: Error, Sendable {
    /// A short sentence for the person who asked.
    var userMessage: String { get }
    /// The name asked for, when the failure is "no such user".
    var unknownName: String? { get }
    /// Whether the user keeps their listening data private.
    var isPrivateProfile: Bool { get }
}

extension ListeningSourceFailure {
    /// The line a person reads, with `hint` after "no such user" (the demo lists its users).
    func userMessage(hint: String?) -> String {
        guard unknownName != nil, let hint else { return userMessage }
        return "\(userMessage) \(hint)"
    }
}

extension LastFMError: ListeningSourceFailure {
    public var unknownName: String? {
        if case .userNotFound(let name) = self { return name }
        return nil
    }

    public var isPrivateProfile: Bool {
        if case .privateProfile = self { return true }
        return false
    }
}

extension ListenBrainzError: ListeningSourceFailure {
    public var unknownName: String? {
        if case .userNotFound(let name) = self { return name }
        return nil
    }

    public var isPrivateProfile: Bool { false }
}
