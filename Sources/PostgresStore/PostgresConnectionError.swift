#if PostgreSQL
import Networking
import PostgresNIO

/// Why no connection to PostgreSQL was opened, in words an operator can act on: where it
/// tried, as whom, and what the server or the network said. The password never appears in it.
public struct PostgresConnectionError: Error, Sendable, CustomStringConvertible {
    /// The server's SQLSTATE (e.g. 28P01, a wrong password), when the server answered.
    public let sqlState: String?
    public let description: String

    init(url: PostgresURL, reason: String, sqlState: String? = nil) {
        self.sqlState = sqlState
        // Server messages and network errors are not ours: scrub the password from them too.
        let redactor = SecretRedactor(secrets: url.password.map { [$0] } ?? [])
        description = redactor.redact("cannot connect to PostgreSQL at \(url.host):\(url.port) as \(url.user): \(reason)")
    }

    /// Reads postgres-nio's error, whose own description hides everything by design.
    init(url: PostgresURL, error: any Error) {
        guard let error = error as? PSQLError else {
            self.init(url: url, reason: "\(error)")
            return
        }
        switch error.code {
        case .server:
            let message = error.serverInfo?[.message] ?? "an error without a message"
            let state = error.serverInfo?[.sqlState]
            self.init(url: url, reason: "the server said: \(message) (SQLSTATE \(state ?? "?"))", sqlState: state)
        case .sslUnsupported:
            self.init(url: url, reason: "the server offers no TLS, and sslmode=\(url.sslMode.rawValue) requires it")
        case .authMechanismRequiresPassword:
            self.init(url: url, reason: "the server asks for a password, and DATABASE_URL gives none")
        case .unsupportedAuthMechanism:
            self.init(url: url, reason: "the server asks for an authentication method postgres-nio does not speak")
        case .connectionError, .failedToAddSSLHandler, .serverClosedConnection:
            self.init(url: url, reason: error.underlying.map { "\($0)" } ?? "\(error.code)")
        default:
            self.init(url: url, reason: String(reflecting: error))
        }
    }
}
#endif
