import Networking
import PostgresStore
import Testing
import TestLogging

@Suite(.capturingLogs)
struct PostgresURLTests {
    @Test func readsEveryPartAndDecodesThem() throws {
        let url = try PostgresURL("postgres://bot%20user:p%40ss%3Aw%2Ford@db.example.org:6543/vinyl%2Dlogue?sslmode=verify-full&connect_timeout=3")
        #expect(url.host == "db.example.org")
        #expect(url.port == 6543)
        #expect(url.user == "bot user")
        #expect(url.password?.reveal() == "p@ss:w/ord")
        #expect(url.database == "vinyl-logue")
        #expect(url.sslMode == .verifyFull)
        #expect(url.connectTimeout == .seconds(3))
    }

    @Test func fillsInWhatLibpqFillsIn() throws {
        let url = try PostgresURL("postgresql://bot@localhost")
        #expect(url.port == 5432)
        #expect(url.password == nil)
        #expect(url.database == nil)
        #expect(url.sslMode == .prefer)
        #expect(url.sslRootCertificate == nil)
    }

    @Test func readsBracketedIPv6AndTheRootCertificate() throws {
        let url = try PostgresURL("POSTGRES://bot:pw@[::1]:7000/db?sslmode=verify-ca&sslrootcert=%2Fetc%2Fca.pem")
        #expect(url.host == "::1")
        #expect(url.port == 7000)
        #expect(url.sslRootCertificate == "/etc/ca.pem")
        #expect(url.isLoopback)
    }

    @Test func aRawAtSignInThePasswordStillParses() throws {
        let url = try PostgresURL("postgres://bot:p@ss@db:5432/db")
        #expect(url.password?.reveal() == "p@ss")
        #expect(url.host == "db")
    }

    @Test(arguments: [
        ("mysql://bot:hunter2-secret@db/x", PostgresURLError.notPostgres),
        ("hunter2-secret", .notPostgres),
        ("postgres://bot:hunter2-secret@/db", .missingHost),
        ("postgres://bot:hunter2-secret@:5432/db", .missingHost),
        ("postgres://:hunter2-secret@db/x", .missingUser),
        ("postgres://db/x", .missingUser),
        ("postgres://bot:hunter2-secret@%2Fvar%2Frun%2Fpostgresql/x", .unixSocketHost),
        ("postgres://bot:hunter2-secret@db:5432x/x", .badPort("5432x")),
        ("postgres://bot:hunter2-secret@db:0/x", .badPort("0")),
        ("postgres://bot:hunter2-secret@db:70000/x", .badPort("70000")),
        ("postgres://bot:hunter2-secret%zz@db/x", .badPercentEncoding(part: "password")),
        ("postgres://bot:hunter2-secret@db/x?sslmode=always", .unknownSSLMode("always")),
        ("postgres://bot:hunter2-secret@db/x?connect_timeout=-1", .badConnectTimeout("-1")),
        ("postgres://bot:hunter2-secret@db/x?password=hunter2-secret", .unsupportedParameter("password")),
    ])
    func aBadURLSaysWhatIsWrongWithoutThePassword(text: String, expected: PostgresURLError) {
        #expect(throws: expected) { try PostgresURL(text) }
        #expect(!expected.description.contains("hunter2"))
        #expect(expected.description.hasPrefix("DATABASE_URL"))
    }

    @Test func itsDescriptionHidesThePassword() throws {
        let url = try PostgresURL("postgres://bot:hunter2-secret@db.example.org/vinyl?sslmode=require")
        #expect(url.description == "postgres://bot:<redacted>@db.example.org:5432/vinyl?sslmode=require")
        #expect(!String(reflecting: url).contains("hunter2"))
    }

    @Test(arguments: ["localhost", "127.0.0.1", "127.1.2.3", "[::1]"])
    func loopbackHosts(host: String) throws {
        #expect(try PostgresURL("postgres://bot@\(host)/x").isLoopback)
    }

    @Test(arguments: ["db.example.org", "10.0.0.5", "127.0.0.1.nip.io", "[2001:db8::1]", "localhost.example.org"])
    func hostsAcrossANetwork(host: String) throws {
        #expect(try !PostgresURL("postgres://bot@\(host)/x").isLoopback)
    }
}
