import Hummingbird
import Logging
import Networking
import Prometheus
import ServiceLifecycle
import Throwback

/// `/healthz` and `/metrics` over HTTP, served with Hummingbird when `HTTP_PORT` is set.
///
/// - `/healthz` answers 200 `ok` while polling has succeeded recently and the database takes
///   writes, and 503 with the reason otherwise.
/// - `/metrics` is the Prometheus text format of the bot's registry.
/// - In webhook mode, Telegram's updates are taken at the webhook URL's path (`WebhookServing`).
public struct OperationsServer: Service, CustomStringConvertible {
    private let host: String
    private let port: Int
    private let health: BotHealth
    private let registry: PrometheusCollectorRegistry
    private let logger: Logger
    private let onListening: @Sendable (Int) async -> Void
    private let webhook: WebhookInbox?

    /// - Parameters:
    ///   - port: 0 picks a free port, which `onListening` is told.
    ///   - webhook: where Telegram's updates go, when it posts them rather than being polled.
    public init(
        host: String, port: Int, health: BotHealth, registry: PrometheusCollectorRegistry, logger: Logger, webhook: WebhookInbox? = nil,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.webhook = webhook
        self.host = host
        self.port = port
        self.health = health
        self.registry = registry
        self.logger = logger
        self.onListening = onListening
    }

    public var description: String { "OperationsServer" }

    public func run() async throws {
        let router = Router()
        router.get("healthz") { [health] _, _ -> Response in
            switch await health.check() {
            case .success:
                return Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
            case .failure(let unhealthy):
                return Response(
                    status: .serviceUnavailable, headers: [.contentType: "text/plain; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(string: unhealthy.reason + "\n"))
                )
            }
        }
        router.get("metrics") { [registry] _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer()))
            )
        }
        if let webhook { router.serve(webhook, logger: logger) }
        let onListening = onListening
        let logger = logger
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "vinylogue-bot"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                logger.info("serving /healthz and /metrics", metadata: ["address": "\(host):\(bound)"])
                await onListening(bound)
            },
            logger: logger
        )
        try await app.runService(gracefulShutdownSignals: [])
    }
}

extension BotMetrics {
    /// Counts into a Prometheus registry, for `/metrics`.
    public init(prometheus registry: PrometheusCollectorRegistry) {
        self.init(factory: PrometheusMetricsFactory(registry: registry))
    }
}
