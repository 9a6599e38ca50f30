/// Why a `DATABASE_URL` was not understood. Each case names the part that is wrong and never
/// repeats the URL itself, which may hold the password.
public enum PostgresURLError: Error, Equatable, Sendable, CustomStringConvertible {
    case notPostgres
    case missingHost
    case unixSocketHost
    case missingUser
    case badPort(String)
    case badPercentEncoding(part: String)
    case unknownSSLMode(String)
    case badConnectTimeout(String)
    case unsupportedParameter(String)

    public var description: String {
        let lead = "DATABASE_URL"
        return switch self {
        case .notPostgres:
            "\(lead) must start with postgres:// or postgresql://"
        case .missingHost:
            "\(lead) names no host: write postgres://user:password@host:5432/database"
        case .unixSocketHost:
            "\(lead) names a Unix socket; connect over TCP instead (e.g. host 127.0.0.1)"
        case .missingUser:
            "\(lead) names no user: write postgres://user:password@host:5432/database"
        case .badPort(let port):
            "\(lead) has port \"\(port)\", which is not a number from 1 to 65535"
        case .badPercentEncoding(let part):
            "\(lead) has a bad %-escape in its \(part); percent-encode its special characters (e.g. @ as %40)"
        case .unknownSSLMode(let mode):
            "\(lead) has sslmode=\(mode); use one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))"
        case .badConnectTimeout(let value):
            "\(lead) has connect_timeout=\(value), which is not a whole number of seconds above 0"
        case .unsupportedParameter(let name):
            "\(lead) has the parameter \"\(name)\", which is not supported (supported: sslmode, sslrootcert, connect_timeout)"
        }
    }
}
