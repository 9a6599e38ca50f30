import Networking

/// Counts every Last.fm request that reaches the network, by method and result, in
/// `vinylogue_lastfm_requests_total`. Place it right above the HTTP client.
public struct InstrumentedLastFMClient: LastFMClient {
    private let base: any LastFMClient
    private let metrics: BotMetrics

    public init(base: any LastFMClient, metrics: BotMetrics) {
        self.base = base
        self.metrics = metrics
    }

    public func send<Response>(_ call: LastFMCall<Response>) async throws -> Response {
        do {
            let response = try await base.send(call)
            count(call.method, "ok")
            return response
        } catch let error as LastFMError {
            count(call.method, error.kind)
            throw error
        }
    }

    private func count(_ method: String, _ result: String) {
        metrics.increment("vinylogue_lastfm_requests_total", [("method", method), ("result", result)])
    }
}

extension LastFMError {
    /// A short, stable name for metrics.
    public var kind: String {
        switch self {
        case .userNotFound: "user_not_found"
        case .privateProfile: "private_profile"
        case .invalidKey: "invalid_key"
        case .rateLimited: "rate_limited"
        case .temporarilyUnavailable: "unavailable"
        case .rejected: "rejected"
        case .transport: "network_error"
        case .undecodable: "undecodable"
        }
    }
}

extension LastFMClient {
    /// Counts requests by method and result.
    public func instrumented(_ metrics: BotMetrics) -> InstrumentedLastFMClient {
        InstrumentedLastFMClient(base: self, metrics: metrics)
    }
}
