#if PostgreSQL
import Logging
import PostgresStore

extension BotStore {
    /// Opens the PostgreSQL database at `url` (`DATABASE_URL`), and migrates it unless
    /// `migrating` is false. Any number of processes may share it.
    public static func postgres(url: PostgresURL, migrating: Bool = true, logger: Logger) async throws -> BotStore {
        BotStore(engine: try await PostgresEngine.open(url: url, migrating: migrating, logger: logger))
    }
}
#endif
