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

    static func load() async throws -> Environment {
        do {
            let configuration = try await BotConfiguration.load()
            let level = configuration.logLevel
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
            return Environment(configuration: configuration, logger: Logger(label: "vinylogue-bot"))
        } catch let error as ConfigurationError {
            throw Environment.fail(error.description)
        } catch {
            throw Environment.fail("Could not read configuration: \(error)")
        }
    }

    /// Prints `message` to stderr and returns the exit code to throw.
    static func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return ExitCode(78)
    }

    /// Runs `body`, turning a configuration error into its one-line message.
    func require<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ConfigurationError {
            throw Environment.fail(error.description)
        }
    }

    /// Opens the SQLite database at `DATABASE_PATH`.
    func openStore() throws -> BotStore {
        do {
            return try BotStore(path: configuration.databasePath)
        } catch {
            throw Environment.fail("Could not open the database at \(configuration.databasePath): \(error)")
        }
    }

    /// The Last.fm client chain: HTTP, rate limited, retried, feeding the circuit breaker,
    /// cached in `store`. `demo` swaps the network for the built-in sample data.
    func lastFMClient(demo: Bool, breaker: CircuitBreaker, cache: any LastFMCacheStore) throws -> any LastFMClient {
        let logger = Logger(label: "lastfm")
        let http: HTTPLastFMClient
        if demo {
            http = HTTPLastFMClient(transport: DemoLastFMTransport(), apiKey: "demo", logger: logger)
        } else {
            let key = try require { try configuration.requireLastFMKey() }
            http = HTTPLastFMClient(transport: URLSessionTransport(), baseURL: configuration.lastFMAPIURL, apiKey: key, logger: logger)
        }
        return http
            .rateLimited(requestsPerSecond: 5)
            .retrying(RetryPolicy(), logger: logger)
            .circuitBroken(by: breaker)
            .cached(in: cache)
    }

    /// Commands for a terminal session: state in memory, no Telegram.
    func terminalCommands(demo: Bool) throws -> BotCommands {
        let store = try BotStore.inMemory()
        let breaker = CircuitBreaker()
        let lastFM = try lastFMClient(demo: demo, breaker: breaker, cache: SQLiteLastFMCache(store: store))
        return commands(lastFM: lastFM, breaker: breaker, store: store, telegram: nil)
    }

    /// The command set with its guards. A terminal session (no Telegram) is not rate limited.
    func commands(lastFM: any LastFMClient, breaker: CircuitBreaker, store: BotStore, telegram: (any TelegramClient)?) -> BotCommands {
        let limits = telegram == nil ? RateLimitGuard.Limits(perUser: 1_000_000, perChat: 1_000_000) : configuration.rateLimits
        return BotCommands(CommandSet.Dependencies(
            engine: ThrowbackEngine(lastFM: lastFM), lastFM: lastFM, store: store,
            rateLimit: RateLimitGuard(limits: limits), breaker: breaker,
            admin: AdminGuard(globalAdmins: configuration.adminUserIDs, telegram: telegram),
            validUser: ValidLastFMUserGuard(lastFM: lastFM)
        ))
    }
}
