#if PostgreSQL
import PostgresNIO

// PostgresNIO re-exports NIOSSL, whose TLS configuration its TLS options take.
extension PostgresURL {
    /// postgres-nio's TLS for `sslMode`. postgres-nio offers disable, prefer and require; the
    /// verifying modes are `require` with the certificate checked as libpq checks it. Trusted
    /// authorities are `sslRootCertificate`'s, else the system's (libpq reads ~/.postgresql/root.crt,
    /// which a container does not have).
    func tls() throws(PostgresConnectionError) -> PostgresConnection.Configuration.TLS {
        switch sslMode {
        case .disable: return .disable
        case .allow, .prefer: return .prefer(try sslContext(verification: .none))
        // As libpq: `require` checks the authority only when the URL names one.
        case .require: return .require(try sslContext(verification: sslRootCertificate == nil ? .none : .noHostnameVerification))
        case .verifyCA: return .require(try sslContext(verification: .noHostnameVerification))
        case .verifyFull: return .require(try sslContext(verification: .fullVerification))
        }
    }

    private func sslContext(verification: CertificateVerification) throws(PostgresConnectionError) -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = verification
        if let sslRootCertificate { configuration.trustRoots = .file(sslRootCertificate) }
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw PostgresConnectionError(url: self, reason: "cannot set up TLS (sslrootcert \(sslRootCertificate ?? "none")): \(error)")
        }
    }
}
#endif
