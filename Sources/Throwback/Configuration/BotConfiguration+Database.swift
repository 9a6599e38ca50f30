import PostgresStore

extension BotConfiguration {
    /// Where the state is kept, for messages: the SQLite file, or the PostgreSQL server and
    /// database (never the password).
    public var databaseDescription: String {
        databaseURL.map { "PostgreSQL at \($0) (DATABASE_URL)" } ?? "\(databasePath) (DATABASE_PATH)"
    }

    /// `DATABASE_URL`, read: a build without the `PostgreSQL` trait refuses it rather than
    /// keep the state in a SQLite file nobody asked for.
    static func databaseURL(_ text: String) throws -> PostgresURL {
        let url: PostgresURL
        do {
            url = try PostgresURL(text)
        } catch {
            throw ConfigurationError.refused(reason: error.description)
        }
        #if PostgreSQL
        return url
        #else
        _ = url
        throw ConfigurationError.refused(
            reason: "DATABASE_URL is set, but this vinylogue-bot was built without PostgreSQL: build it with "
                + "`swift build -c release --traits PostgreSQL` (an image with `--build-arg SWIFT_TRAITS=PostgreSQL`), or unset DATABASE_URL to use SQLite"
        )
        #endif
    }
}
