import Foundation
import Networking
import WeeklyCharts

/// One tracked user's part of a weekly post.
public struct WeeklyEntry: Sendable, Equatable {
    public enum Content: Sendable, Equatable {
        /// The week one year ago, and the 5- and 10-year anniversaries that have data.
        case chart(ChartSummary, anniversaries: [ChartSummary])
        /// Nothing played that week, or no history that far back.
        case quiet
        /// The user keeps their listening data private.
        case privateProfile
        /// The source knows no account by the roster's name any more (renamed or deleted): an
        /// answer, not a failure, so nobody waits or retries for it.
        case accountGone
        /// Last.fm kept failing for this user.
        case unavailable
    }

    /// The name in the roster's (Last.fm's) spelling.
    public var user: String
    /// The roster key, lowercased.
    public var key: String
    public var content: Content

    public init(user: String, key: String, content: Content) {
        self.user = user
        self.key = key
        self.content = content
    }
}

/// Fetches each tracked user's week for a weekly post through the shared Last.fm client:
/// one chart list and one chart per user, and one more chart per anniversary that has data.
public struct WeeklyPostComposer: Sendable {
    /// How many years back the post looks, and the anniversaries it adds where there is data.
    public static let yearsAgo = 1
    public static let anniversaries = [5, 10]

    private let engine: ThrowbackEngine

    public init(engine: ThrowbackEngine) {
        self.engine = engine
    }

    /// The week the post is about: one year before `instant`.
    public static func week(at instant: Date) -> WeeklyChartRange {
        let start = LastFMWeek.start(of: WeekFinder.date(yearsBefore: instant, years: yearsAgo))
        return WeeklyChartRange(from: start, to: start.addingTimeInterval(LastFMWeek.length))
    }

    /// One user's entry for the post due at `instant`. Throws only `CancellationError`.
    public func entry(for user: RosterEntry, minimumPlayCount: Int, at instant: Date) async throws -> WeeklyEntry {
        do {
            let finder = try await engine.history(of: user.lastFMName)
            guard case .chart(let main) = try await engine.throwback(
                user: user.lastFMName, in: finder, yearsAgo: Self.yearsAgo, minimumPlayCount: minimumPlayCount, now: instant
            ), !main.albums.isEmpty || main.hiddenCount > 0 else {
                return WeeklyEntry(user: user.lastFMName, key: user.nameKey, content: .quiet)
            }
            var anniversaries: [ChartSummary] = []
            for years in Self.anniversaries where finder.hasData(yearsAgo: years, now: instant) {
                if case .chart(let summary) = try await engine.throwback(
                    user: user.lastFMName, in: finder, yearsAgo: years, minimumPlayCount: minimumPlayCount, now: instant
                ), !summary.albums.isEmpty {
                    anniversaries.append(summary)
                }
            }
            return WeeklyEntry(user: user.lastFMName, key: user.nameKey, content: .chart(main, anniversaries: anniversaries))
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as ListeningError where error.isPrivateProfile {
            return WeeklyEntry(user: user.lastFMName, key: user.nameKey, content: .privateProfile)
        } catch let error as ListeningError where error.unknownName != nil {
            return WeeklyEntry(user: user.lastFMName, key: user.nameKey, content: .accountGone)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            return WeeklyEntry(user: user.lastFMName, key: user.nameKey, content: .unavailable)
        }
    }
}
