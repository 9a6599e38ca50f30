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
        environment.logger.info("starting vinylogue-bot", metadata: ["configuration": "\(environment.configuration.summary)"])
        let token = try environment.require { try environment.configuration.requireTelegramToken() }
        let assembly = try environment.assembly(demo: false)
        let store = try environment.openStore()
        let services = assembly.services(telegramTransport: environment.transport, token: token, store: store)
        let group = ServiceGroup(services: services.all, gracefulShutdownSignals: [.sigterm, .sigint], logger: environment.logger)
        do {
            try await group.run()
        } catch TelegramError.unauthorized {
            throw Environment.fail("Telegram rejected the bot token (401 Unauthorized): check TELEGRAM_BOT_TOKEN and TELEGRAM_API_URL.")
        } catch let error as TelegramError {
            throw Environment.fail("Telegram refused to start the bot: \(error).")
        }
    }
}
