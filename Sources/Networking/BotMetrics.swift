import CoreMetrics

/// Where the bot's counters and gauges go: a Prometheus registry when `/metrics` is served,
/// nowhere otherwise. Passed explicitly rather than bootstrapped globally, so that each bot
/// (and each test) counts into its own registry.
public struct BotMetrics: Sendable {
    /// Counts nothing.
    public static let none = BotMetrics()

    private let factory: any MetricsFactory

    public init(factory: any MetricsFactory = NOOPMetricsHandler.instance) {
        self.factory = factory
    }

    /// Adds to a counter; the same `name` must always come with the same dimension names.
    public func increment(_ name: String, _ dimensions: [(String, String)] = [], by amount: Int64 = 1) {
        Counter(label: name, dimensions: dimensions, factory: factory).increment(by: amount)
    }

    /// Sets a gauge.
    public func record(_ name: String, _ value: Double, _ dimensions: [(String, String)] = []) {
        Gauge(label: name, dimensions: dimensions, factory: factory).record(value)
    }
}
