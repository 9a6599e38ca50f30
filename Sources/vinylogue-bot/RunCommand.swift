import ArgumentParser
import Foundation
import Logging
import Networking
import Operations
import Prometheus
import ServiceLifecycle
import Telegram
import Throwback

/// `vinylogue-bot run`: the Telegram bot, long polling or on a webhook, until SIGTERM or SIGINT.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the Telegram bot (long polling, or a webhook with TELEGRAM_WEBHOOK_URL) until SIGTERM or SIGINT."
    )

    func run() async throws {
        let environment = try await Environment.load()
        // Every missing or malformed key at once, before anything starts.
        let (token, _) = try environment.require { try environment.configuration.requireBotCredentials() }
        let configuration = environment.configuration
        let registry = PrometheusCollectorRegistry()
        let metrics = configuration.httpPort == nil ? BotMetrics.none : BotMetrics(prometheus: registry)
        let assembly = try environment.assembly(demo: false, metrics: metrics)
        environment.logger.info("starting vinylogue-bot \(VinylogueBot.version)", metadata: ["configuration": "\(configuration.summary)"])
        let store = try await environment.openStore()
        let services = assembly.services(telegramTransport: environment.transport, token: token, store: store)
        var all = services.all
        if let port = configuration.httpPort {
            all.append(OperationsServer(
                host: configuration.httpHost, port: port, health: services.health, registry: registry, logger: Logger(label: "http"),
                webhook: services.webhook
            ))
        }
        let group = ServiceGroup(services: all, gracefulShutdownSignals: [.sigterm, .sigint], logger: environment.logger)
        do {
            try await group.run()
        } catch let error as TelegramError {
            throw Environment.fail(error.refusal(at: configuration.telegramAPIURL) ?? "Telegram refused to start the bot: \(error).")
        }
    }
}

extension TelegramError {
    /// What the operator must fix when Telegram refuses the token or has no Bot API at
    /// `apiURL`, naming the status that came back; nil for other errors.
    func refusal(at apiURL: URL) -> String? {
        switch self {
        case .unauthorized:
            "Telegram rejected the bot token (401 Unauthorized): check TELEGRAM_BOT_TOKEN."
        case .notFound:
            "\(apiURL.absoluteString) answered 404 Not Found: the API URL or the bot token is wrong; check TELEGRAM_API_URL and TELEGRAM_BOT_TOKEN."
        default:
            nil
        }
    }
}
