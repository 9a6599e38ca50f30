import WeeklyCharts


/// Every source behind one `ListeningHistory`: a name's prefix picks the source (`lb:bob`
/// is ListenBrainz, a bare name Last.fm), the source is asked with the bare name, and the
/// answers carry the name as stored and shown (`lb:Bob`, in the service's spelling).
public struct ListeningSources: ListeningHistory {
    public let lastFM: any ListeningHistory
    public let listenBrainz: any ListeningHistory
    public let libreFM: any ListeningHistory

    public init(lastFM: any ListeningHistory, listenBrainz: any ListeningHistory, libreFM: any ListeningHistory) {
        self.lastFM = lastFM
        self.listenBrainz = listenBrainz
        self.libreFM = libreFM
    }

    public func account(_ name: String) async throws -> String {
        let (listener, source) = route(name)
        return ListenerName(source: listener.source, name: try await source.account(listener.name)).qualified
    }

    public func weeks(of user: String) async throws -> [WeeklyChartRange] {
        let (listener, source) = route(user)
        return try await source.weeks(of: listener.name)
    }

    public func albumChart(of user: String, in range: WeeklyChartRange) async throws -> WeeklyAlbumChart {
        let (listener, source) = route(user)
        var chart = try await source.albumChart(of: listener.name, in: range)
        chart.user = ListenerName(source: listener.source, name: chart.user).qualified
        return chart
    }

    /// The source of a name. A name no source accepts goes to Last.fm as it is, which answers
    /// it as it always did.
    private func route(_ name: String) -> (ListenerName, any ListeningHistory) {
        let listener = ListenerName(parsing: name) ?? ListenerName(source: .lastFM, name: name)
        switch listener.source {
        case .lastFM: return (listener, lastFM)
        case .listenBrainz: return (listener, listenBrainz)
        case .libreFM: return (listener, libreFM)
        }
    }
}
