import Foundation
import Logging
import Networking
import Telegram

/// The replicas on one database, each seen within `absence`: Telegram's overall flood limit
/// is the bot's, whichever process sends, so each replica keeps to its share of it. Every
/// replica notes itself every `interval` and recounts; a replica that stops is forgotten
/// once `absence` has passed, and the others' shares grow. Real time: it is about other processes.
struct ReplicaRoster: Sendable {
    let store: BotStore
    let owner: String
    let limiter: FloodLimiter
    let now: @Sendable () -> Date
    let logger: Logger
    static let interval: Duration = .seconds(1)
    static let absence: Duration = .seconds(3)

    /// Notes this replica and takes its share; then waits until every other replica has
    /// counted it, so that the bot as a whole never sends more than the overall limit.
    func join() async throws {
        limiter.shareOverall(among: try await note())
        try await ElapsedClock.continuous.sleep(Self.interval * 3 / 2)
    }

    /// Keeps this replica noted and its share current, until cancelled; then leaves.
    func run() async {
        let clock = ElapsedClock.continuous
        while !Task.isCancelled {
            do {
                limiter.shareOverall(among: try await note())
            } catch {
                logger.error("could not note this replica in the database; keeping its share", metadata: ["error": "\(error)"])
            }
            try? await clock.sleep(Self.interval)
        }
        // The others' shares grow at once, not after `absence`.
        _ = try? await store.write(synced: false) { [owner] transaction in
            try transaction.session.execute("DELETE FROM replica WHERE owner = ?", [.text(owner)])
        }
    }

    /// Notes this replica as seen now and forgets those gone; returns how many there are.
    private func note() async throws -> Int {
        let (owner, now) = (owner, now())
        let gone = now.addingTimeInterval(-Self.absence.seconds)
        return try await store.write(synced: false) { transaction in
            let session = transaction.session
            _ = try session.execute(
                "INSERT INTO replica (owner, seenAt) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET seenAt = excluded.seenAt",
                [.text(owner), .date(now)]
            )
            _ = try session.execute("DELETE FROM replica WHERE seenAt < ?", [.date(gone)])
            return try session.value("SELECT count(*) FROM replica") ?? 1
        }
    }
}
