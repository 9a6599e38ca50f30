import CoreMetrics

/// Where the bot's counters and gauges go: a Prometheus registry when `/metrics` is served,
/// nowhere otherwise. Passed explicitly rather than bootstrapped globally, so that each bot
/// (and each test) counts into its own registry.
public struct BotMetrics: Sendable {
    /// Counts nothing.
    public static let none = BotMetrics()

    private let factory: any MetricsFactory
    /// False for the factory that counts nothing: counting then costs nothing either, not
    /// even the dimensions' array (metrics are counted several times for every update).
    private let counts: Bool

    public init(factory: any MetricsFactory = NOOPMetricsHandler.instance) {
        self.factory = factory
        self.counts = !(factory is NOOPMetricsHandler)
    }

    /// Adds to a counter; the same `name` must always come with the same dimension names.
    public func increment(_ name: String, _ dimensions: @autoclosure () -> [(String, String)] = [], by amount: Int64 = 1) {
        guard counts else { return }
        Counter(label: name, dimensions: dimensions(), factory: factory).increment(by: amount)
    }

    /// Sets a gauge.
    public func record(_ name: String, _ value: Double, _ dimensions: @autoclosure () -> [(String, String)] = []) {
        guard counts else { return }
        Gauge(label: name, dimensions: dimensions(), factory: factory).record(value)
    }
}
