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
        let token = try environment.require { try configuration.requireTelegramToken() }
        _ = try environment.require { try configuration.requireLastFMKey() }
        let store = try environment.openStore()
        let breaker = CircuitBreaker()
        let lastFM = try environment.lastFMClient(demo: false, breaker: breaker, cache: SQLiteLastFMCache(store: store))
        let logger = environment.logger
        let http = HTTPTelegramClient(
            transport: URLSessionTransport(), baseURL: configuration.telegramAPIURL, token: token,
            logger: Logger(label: "telegram")
        )
        let replies = http
            .throttled()
            .retrying()
            .followingMigrations { from, to in
                logger.notice("group became a supergroup; its settings and roster follow it", metadata: ["from": "\(from)", "to": "\(to)"])
                do { try await store.migrateChat(from: from, to: to) } catch {
                    logger.error("could not move a migrated chat's data", metadata: ["error": "\(error)"])
                }
            }
        let bot = BotService(
            telegram: replies, pollingClient: http,
            commands: environment.commands(lastFM: lastFM, breaker: breaker, store: store, telegram: replies),
            store: store, journal: UpdateJournal(store: store),
            settings: .init(poller: .init(timeout: configuration.pollTimeout)), logger: logger
        )
        let group = ServiceGroup(services: [bot], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        do {
            try await group.run()
        } catch TelegramError.unauthorized {
            throw Environment.fail("Telegram rejected the bot token (401 Unauthorized): check TELEGRAM_BOT_TOKEN and TELEGRAM_API_URL.")
        } catch let error as TelegramError {
            throw Environment.fail("Telegram refused to start the bot: \(error).")
        }
    }
}
