#if PostgreSQL
import Logging
import Networking
import PostgresNIO
import Synchronization

extension PostgresURL {
    /// Opens a connection to this server, warning first if it may go unencrypted across a network.
    ///
    /// - Throws: `PostgresConnectionError` only, saying where and why; never the password.
    public func connect(logger: Logger) async throws(PostgresConnectionError) -> PostgresConnection {
        warnIfPlaintext(logger)
        let (configuration, logger) = try prepare(logger)
        do {
            return try await PostgresConnection.connect(configuration: configuration, id: Self.nextConnectionID(), logger: logger)
        } catch {
            throw PostgresConnectionError(url: self, error: error)
        }
    }

    /// `connect`, waiting on the calling thread, for a store whose statements run synchronously,
    /// and without the plaintext warning, which its caller gives once for all its connections.
    /// Never call it on one of NIO's event loops, which the wait would block.
    public func connectWaiting(logger: Logger) throws(PostgresConnectionError) -> PostgresConnection {
        let (configuration, logger) = try prepare(logger)
        do {
            return try PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.next(), configuration: configuration, id: Self.nextConnectionID(), logger: logger
            ).wait()
        } catch {
            throw PostgresConnectionError(url: self, error: error)
        }
    }

    /// The connection's configuration, and `logger` with the password scrubbed from it.
    private func prepare(_ logger: Logger) throws(PostgresConnectionError) -> (PostgresConnection.Configuration, Logger) {
        let logger = redacting(logger)
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password?.reveal(), database: database, tls: try tls()
        )
        // Whole seconds: the URL gives no finer value.
        configuration.options.connectTimeout = .seconds(connectTimeout.components.seconds)
        return (configuration, logger)
    }

    /// Tells connections apart in postgres-nio's log lines.
    private static let connectionIDs = Atomic<Int>(0)

    private static func nextConnectionID() -> Int {
        connectionIDs.add(1, ordering: .relaxed).newValue
    }

    /// `logger`, with the password scrubbed from every line postgres-nio writes through it.
    private func redacting(_ logger: Logger) -> Logger {
        guard let password else { return logger }
        var redacted = logger
        redacted.handler = RedactingLogHandler(logger.handler, redactor: SecretRedactor(secrets: [password]))
        return redacted
    }
}
#endif
