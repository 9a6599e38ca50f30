import ArgumentParser
import Foundation
import LastFM
import Logging
import Networking
import Throwback

/// Configuration plus logging, loaded once per command. Configuration problems end the
/// process with one line on stderr instead of a stack trace.
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

    /// The Last.fm client chain: HTTP, rate limited, retried, cached. `demo` swaps the
    /// network for the built-in sample data and needs no key.
    func lastFMClient(demo: Bool) throws -> any LastFMClient {
        let http: HTTPLastFMClient
        if demo {
            http = HTTPLastFMClient(transport: DemoLastFMTransport(), apiKey: "demo", logger: Logger(label: "lastfm"))
        } else {
            let key: String
            do { key = try configuration.requireLastFMKey() } catch let error as ConfigurationError {
                throw Environment.fail(error.description)
            }
            http = HTTPLastFMClient(
                transport: URLSessionTransport(), baseURL: configuration.lastFMAPIURL, apiKey: key,
                logger: Logger(label: "lastfm")
            )
        }
        return http
            .rateLimited(requestsPerSecond: 5)
            .retrying(RetryPolicy(), logger: Logger(label: "lastfm"))
            .cached(in: InMemoryLastFMCache())
    }
}
