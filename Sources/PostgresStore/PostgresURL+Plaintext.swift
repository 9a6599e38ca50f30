import Logging

extension PostgresURL {
    /// Whether the server is this machine, where traffic never crosses a network.
    public var isLoopback: Bool {
        let name = host.lowercased()
        if name == "localhost" || name == "::1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// A warning for a server across a network that may be reached without TLS, where anyone on
    /// the path could read the bot's data and the password; `nil` when there is nothing to warn of.
    public var plaintextWarning: String? {
        guard !isLoopback, !sslMode.alwaysEncrypts else { return nil }
        return "PostgreSQL at \(host) is not on this machine, and sslmode=\(sslMode.rawValue) lets the connection go "
            + "unencrypted: set sslmode=verify-full (or require) in DATABASE_URL"
    }

    /// Logs `plaintextWarning`, if any, at warning level.
    public func warnIfPlaintext(_ logger: Logger) {
        guard let plaintextWarning else { return }
        logger.warning("\(plaintextWarning)", metadata: ["database": "\(self)"])
    }
}
