import ArgumentParser
import Foundation
import LastFM
import Logging
import Networking
import Telegram
import Throwback

/// Configuration plus logging, loaded once per command, and the wiring shared by the
/// subcommands. Configuration problems end the process with one line on stderr.
struct Environment {
    var configuration: BotConfiguration
    var logger: Logger
    /// What was odd about the configuration, one line each: unknown keys, unreadable lines.
    var warnings: [String]

    /// - Parameter logsWarnings: whether the configuration's warnings go to the log; a command
    ///   that reports them itself passes false.
    static func load(logsWarnings: Bool = true) async throws -> Environment {
        do {
            let loaded = try BotConfiguration.load()
            let configuration = loaded.configuration
            let level = configuration.logLevel
            let format = configuration.logFormat
            // The webhook's secret too, derived from the token when not set.
            let secrets = [
                configuration.telegramToken, configuration.lastFMAPIKey, configuration.listenBrainzToken,
                configuration.telegramToken.map(configuration.webhookSecret(token:)), configuration.databaseURL?.password,
            ]
            let redactor = SecretRedactor(secrets: secrets.compactMap { $0 })
            LoggingSystem.bootstrap { label in
                var handler: any LogHandler = switch format {
                case .text: StreamLogHandler.standardError(label: label)
                case .json: JSONLogHandler(label: label)
                }
                handler.logLevel = level
                return RedactingLogHandler(handler, redactor: redactor)
            }
            let logger = Logger(label: "vinylogue-bot")
            if logsWarnings {
                for warning in loaded.warnings { logger.warning("\(warning)") }
            }
            return Environment(configuration: configuration, logger: logger, warnings: loaded.warnings)
        } catch let error as ConfigurationError {
            throw Environment.fail(error.description)
        } catch {
            throw Environment.fail("Could not read configuration: \(error)")
        }
    }

    /// Prints `message` to stderr and returns the exit code to throw: by default 78, a
    /// configuration problem.
    static func fail(_ message: String, code: ExitCode = ExitCode(78)) -> ExitCode {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return code
    }

    /// Runs `body`, turning a configuration error into its one-line message.
    func require<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ConfigurationError {
            throw Environment.fail(error.description)
        }
    }

    /// The database: PostgreSQL's at `DATABASE_URL` if set, else SQLite's at `DATABASE_PATH`;
    /// created (SQLite) and migrated if needed.
    func openStore() async throws -> BotStore {
        try await openStore(migrating: true)
    }

    /// The database a running bot may own, as it is: nil when there is no SQLite file, and
    /// never migrated, so that a newer binary's health check or backup leaves its schema alone.
    func openExistingStore() async throws -> BotStore? {
        if configuration.databaseURL == nil, !FileManager.default.fileExists(atPath: configuration.databasePath) { return nil }
        return try await openStore(migrating: false)
    }

    /// The database as it is, for a view beside the running bot: SQLite's read-only (WAL mode
    /// allows it), nil when there is none, and nothing created. A database an older version
    /// made is refused in one line, as its tables may lack a column the view reads.
    func openStoreForReading() async throws -> BotStore? {
        if configuration.databaseURL == nil, !FileManager.default.fileExists(atPath: configuration.databasePath) { return nil }
        let store: BotStore
        do {
            store = configuration.databaseURL == nil
                ? try BotStore.readOnly(path: configuration.databasePath) : try await openStore(migrating: false)
            guard try store.hasCurrentSchema() else {
                throw Environment.fail(
                    "The database, \(configuration.databaseDescription), was made by an older vinylogue-bot; start the bot once to update it."
                )
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw Environment.fail("Could not read the database, \(configuration.databaseDescription): \(error)")
        }
        return store
    }

    private func openStore(migrating: Bool) async throws -> BotStore {
        do {
            #if PostgreSQL
            if let url = configuration.databaseURL {
                return try await BotStore.postgres(url: url, migrating: migrating, logger: logger)
            }
            #endif
            return try BotStore(path: configuration.databasePath, migrating: migrating)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw Environment.fail("Could not open the database, \(configuration.databaseDescription): \(error)")
        }
    }

    /// The network transport both API clients share: one libcurl thread for the process.
    let transport: any HTTPTransport = CurlTransport()

    /// The bot's wiring. `demo` swaps Last.fm for the built-in sample data.
    func assembly(demo: Bool, metrics: BotMetrics = .none) throws -> BotAssembly {
        var options = BotAssembly.Options(metrics: metrics)
        options.delivery.laneLease = configuration.outboxLease
        if demo {
            let demo = DemoListeningData()
            options.unknownUserHint = { demo.unknownUserHint(in: $0) }
            return BotAssembly(configuration: configuration, lastFMTransport: DemoLastFMTransport(), lastFMKey: Secret("demo"), options: options)
        }
        let key = try require { try configuration.requireLastFMKey() }
        return BotAssembly(configuration: configuration, lastFMTransport: transport, lastFMKey: key, options: options)
    }

    /// A terminal session: commands and collages, state in memory, no Telegram.
    func terminalSession(demo: Bool) throws -> BotAssembly.TerminalSession {
        let store = try BotStore.inMemory()
        return try assembly(demo: demo).terminal(store: store)
    }
}
