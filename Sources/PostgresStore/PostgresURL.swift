import Foundation
import Networking

/// Where the bot's PostgreSQL is and how to reach it, read from `DATABASE_URL`:
/// `postgres://user:password@host:port/database?sslmode=verify-full`, as libpq writes it.
///
/// Its description never shows the password, so it may be logged.
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: Secret?
    /// The database to open; `nil` means PostgreSQL's default, a database named as the user.
    public var database: String?
    public var sslMode: SSLMode
    /// A file of trusted certificate authorities in PEM, instead of the system's.
    public var sslRootCertificate: String?
    /// How long opening a connection may take.
    public var connectTimeout: Duration

    public static let defaultPort = 5432

    /// Parses `text`, which may percent-encode any part, as libpq does.
    public init(_ text: String) throws(PostgresURLError) {
        guard let schemeEnd = text.range(of: "://"),
              ["postgres", "postgresql"].contains(text[..<schemeEnd.lowerBound].lowercased())
        else { throw .notPostgres }
        var rest = Substring(text[schemeEnd.upperBound...])

        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        // The last @ ends the user part: a password with a raw @ still parses.
        var userInfo: Substring = ""
        if let at = rest.lastIndex(of: "@") {
            userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
        }

        let (host, port) = try Self.hostAndPort(rest)
        self.host = host
        self.port = port

        let userPart = userInfo.firstIndex(of: ":").map { userInfo[..<$0] } ?? userInfo
        user = try Self.decoded(userPart, part: "user")
        guard !user.isEmpty else { throw .missingUser }
        if let colon = userInfo.firstIndex(of: ":") {
            password = Secret(try Self.decoded(userInfo[userInfo.index(after: colon)...], part: "password"))
        }
        let name = try Self.decoded(path, part: "database name")
        database = name.isEmpty ? nil : name

        sslMode = .default
        connectTimeout = .seconds(10)
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try Self.decoded(parts[0], part: "parameters")
            let decodedValue = try Self.decoded(parts.count > 1 ? parts[1] : "", part: "parameters")
            switch name {
            case "sslmode":
                guard let mode = SSLMode(rawValue: decodedValue) else { throw .unknownSSLMode(decodedValue) }
                sslMode = mode
            case "sslrootcert":
                sslRootCertificate = decodedValue
            case "connect_timeout":
                guard let seconds = Int(decodedValue), seconds > 0 else { throw .badConnectTimeout(decodedValue) }
                connectTimeout = .seconds(seconds)
            default:
                throw .unsupportedParameter(name)
            }
        }
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port`, with the port 5432 when none is given.
    private static func hostAndPort(_ text: Substring) throws(PostgresURLError) -> (String, Int) {
        var hostText = text
        var portText: Substring?
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            hostText = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { throw .badPort(String(after)) }
        } else if let colon = text.lastIndex(of: ":") {
            hostText = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        let host = try decoded(hostText, part: "host")
        guard !host.isEmpty else { throw .missingHost }
        guard !host.hasPrefix("/") else { throw .unixSocketHost }
        guard let portText else { return (host, defaultPort) }
        guard let port = Int(portText), (1...65_535).contains(port) else { throw .badPort(String(portText)) }
        return (host, port)
    }

    private static func decoded(_ text: Substring, part: String) throws(PostgresURLError) -> String {
        guard let value = String(text).removingPercentEncoding else { throw .badPercentEncoding(part: part) }
        return value
    }

    /// The URL as given, but with the password as `<redacted>`.
    public var description: String {
        let hostText = host.contains(":") ? "[\(host)]" : host
        let secret = password == nil ? "" : ":<redacted>"
        return "postgres://\(user)\(secret)@\(hostText):\(port)/\(database ?? "")?sslmode=\(sslMode.rawValue)"
    }
}
