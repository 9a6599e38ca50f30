/// How a connection uses TLS, as libpq's `sslmode` names it, so that a `DATABASE_URL` written
/// for `psql` means the same here.
public enum SSLMode: String, Sendable, CaseIterable {
    /// Never TLS.
    case disable
    /// libpq tries without TLS first; postgres-nio can only try TLS first, so this acts as `prefer`.
    case allow
    /// TLS if the server offers it, without checking its certificate (libpq's default).
    case prefer
    /// TLS or no connection; the certificate is checked against `sslrootcert` if one is given.
    case require
    /// TLS, and a certificate signed by a trusted authority, whatever host it names.
    case verifyCA = "verify-ca"
    /// TLS, a certificate signed by a trusted authority, and naming the host connected to.
    case verifyFull = "verify-full"

    /// libpq's default, kept so that a URL without `sslmode` behaves as it does for `psql`.
    public static let `default` = SSLMode.prefer

    /// Whether no byte goes to the server unencrypted: the modes that refuse a server without TLS.
    public var alwaysEncrypts: Bool {
        switch self {
        case .disable, .allow, .prefer: false
        case .require, .verifyCA, .verifyFull: true
        }
    }
}
