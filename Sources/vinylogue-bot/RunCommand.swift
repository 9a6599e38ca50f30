import ArgumentParser
import Logging
import Networking
import ServiceLifecycle
import Telegram
import Throwback

/// `vinylogue-bot run`: the long-polling Telegram bot, until SIGTERM or SIGINT.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the Telegram bot (long polling) until SIGTERM or SIGINT."
    )

    func run() async throws {
        let environment = try await Environment.load()
        let configuration = environment.configuration
        let token: String
        do {
            token = try configuration.requireTelegramToken()
        } catch let error as ConfigurationError {
            throw Environment.fail(error.description)
        }
        let lastFM = try environment.lastFMClient(demo: false)
        let logger = environment.logger
        let http = HTTPTelegramClient(
            transport: URLSessionTransport(), baseURL: configuration.telegramAPIURL, token: token,
            logger: Logger(label: "telegram")
        )
        let replies = http
            .throttled()
            .retrying()
            .followingMigrations { from, to in
                logger.notice("group became a supergroup; replies follow it", metadata: ["from": "\(from)", "to": "\(to)"])
            }
        let bot = BotService(
            telegram: replies, pollingClient: http, engine: ThrowbackEngine(lastFM: lastFM),
            settings: .init(poller: .init(timeout: configuration.pollTimeout)), logger: logger
        )
        let group = ServiceGroup(services: [bot], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        do {
            try await group.run()
        } catch TelegramError.unauthorized {
            throw Environment.fail("Telegram rejected the bot token (401 Unauthorized): check TELEGRAM_BOT_TOKEN.")
        }
    }
}
