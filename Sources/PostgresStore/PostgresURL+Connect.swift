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
        let logger = redacting(logger)
        warnIfPlaintext(logger)
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password?.reveal(), database: database, tls: try tls()
        )
        // Whole seconds: the URL gives no finer value.
        configuration.options.connectTimeout = .seconds(connectTimeout.components.seconds)
        do {
            return try await PostgresConnection.connect(
                configuration: configuration, id: Self.connectionIDs.add(1, ordering: .relaxed).newValue, logger: logger
            )
        } catch {
            throw PostgresConnectionError(url: self, error: error)
        }
    }

    /// Tells connections apart in postgres-nio's log lines.
    private static let connectionIDs = Atomic<Int>(0)

    /// `logger`, with the password scrubbed from every line postgres-nio writes through it.
    private func redacting(_ logger: Logger) -> Logger {
        guard let password else { return logger }
        var redacted = logger
        redacted.handler = RedactingLogHandler(logger.handler, redactor: SecretRedactor(secrets: [password]))
        return redacted
    }
}
#endif
