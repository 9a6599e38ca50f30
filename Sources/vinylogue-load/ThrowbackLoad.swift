import Foundation
import TestSupport

/// One measurement of `vinylogue-bot run` under a burst of throwback requests.
///
/// The child starts on a fresh database. One request comes alone and cold: its CPU is that
/// of a throwback with a cover collage made from nothing (9 covers looked up and fetched, the
/// collage rendered and uploaded). `warmUp` requests then fill its caches (one user, one
/// week, one collage `file_id`), and `updates` more requests arrive at once, each from a user and private chat
/// of its own, so that per-user and per-chat rate limits never apply and only the bot's own
/// work and Telegram's overall flood limit (30 messages a second) set the pace.
struct ThrowbackLoad {
    var binary: URL
    var updates: Int
    var warmUp: Int
    /// Whether the chart's albums have cover art, so that replies are collages; without,
    /// they are text, and the bot never renders a picture.
    var covers = true
    /// Added to the bot's environment, over the deployments' malloc tuning.
    var environment: [String: String] = [:]
    /// The server the bot keeps its state in, in a fresh database of its own (`DATABASE_URL`);
    /// nil: a fresh SQLite file in the bot's directory.
    var postgres: PostgresCluster?
    /// Printed as the measurement goes, so a long run shows where it is.
    var progress: @Sendable (String) -> Void = { _ in }

    static let command = "/tb alice 3"
    /// The first user (and private chat) id; each request takes the next one.
    private static let firstUserID: Int64 = 7_000_001

    struct Result {
        var updates: Int
        /// The bot's own CPU per measured update.
        var cpuPerUpdate: Duration
        /// The PostgreSQL server's CPU per measured update (all its processes), apart from the
        /// bot's; nil on SQLite, whose work is the bot's own.
        var serverCPUPerUpdate: Duration?
        /// Context switches of all the bot's threads per measured update.
        var contextSwitchesPerUpdate: (voluntary: Double, involuntary: Double)
        /// Anonymous resident memory (heap and stacks) at idle with warm caches.
        var idleAnonymous: Int
        /// Its highest 20 ms sample during the measured burst.
        var burstPeakAnonymous: Int
        /// Its highest sample over the whole run: start-up and the cold collage included.
        var peakAnonymous: Int
        /// Anonymous memory once idle again after the burst: what the bot keeps of it.
        var settledAnonymous: Int
        /// PSS at idle before the burst, and once idle again after it.
        var idlePSS: Int
        var settledPSS: Int
        /// `VmHWM`, file pages included; for reference only, since page-cache effects move it.
        var peakRSS: Int
        var timeToFirstPoll: Duration
        /// The CPU of the first request, with cold caches and a collage to render and upload.
        var coldThrowbackCPU: Duration
        /// Collages uploaded; after the cold one, the others go out by `file_id`.
        var uploads: Int
        var lastFMWhileWarm: Int
        /// Measured requests answered (distinct chats that got a reply).
        var replies: Int
        /// Replies beyond one per request: a message sent twice.
        var duplicates: Int
        var measuredWall: Duration
        /// Calls the fake refused on Telegram's rules (429 flood control, 400 bad HTML, …).
        var refusals: [String: Int]
        var exit: String
        var stderrTail: [String]
    }

    func run() async throws -> Result {
        let fakes = try await Fakes.start { lastFM in
            // About 15 years of weeks, as a long-time scrobbler has, so the chart list is
            // as large to decode and search as a real one.
            await lastFM.addUser("alice", ranges: Fakes.weeklyRanges(weeks: 15 * 53))
            let from = Fakes.weekStart(yearsBefore: Date(), years: 3)
            await lastFM.setAlbumChart(user: "alice", from: from, to: from + Fakes.week, albums: Fakes.albums(10))
            if covers { await lastFM.setDefaultCover(.generated) }
        }
        var environment = environment
        if let postgres { environment["DATABASE_URL"] = try await postgres.freshDatabase() }
        return try await fakes.measureBot(binary, purpose: "throwbacks", environment: environment) { try await measure($0, fakes) }
    }

    private func measure(_ child: ChildProcess, _ fakes: Fakes) async throws -> Result {
        let telegram = fakes.telegram
        let polling = await poll(timeout: .seconds(60), every: .milliseconds(2)) {
            await !telegram.calls("getUpdates").isEmpty || child.exited != nil
        }
        if let exit = child.exited { throw LoadError("the bot ended before it polled (\(exit.description))") }
        guard polling else { throw LoadError("the bot did not poll Telegram within a minute") }
        let timeToFirstPoll = ContinuousClock.now - child.spawnedAt
        let wholeRun = AnonymousMemoryPeak(of: child)

        progress("one cold request")
        var nextUser = Self.firstUserID
        guard let coldBefore = child.cpuTime else { throw LoadError("cannot read the bot's CPU time") }
        try await send(1, from: &nextUser, fakes, child, expecting: 1)
        guard let coldAfter = child.cpuTime else { throw LoadError("the bot ended after its first reply") }
        progress("warm-up: \(warmUp) requests")
        try await send(warmUp, from: &nextUser, fakes, child, expecting: 1 + warmUp)
        // Idle: the burst is answered and the caches are full; what the bot holds now is
        // what it holds between bursts.
        try await Task.sleep(for: .seconds(2))
        guard let idleAnonymous = child.anonymousBytes, let idlePSS = child.proportionalBytes else {
            throw LoadError("cannot read /proc/\(child.pid)/status and smaps_rollup")
        }

        progress("measured: \(updates) requests")
        let measuredUsers = nextUser..<(nextUser + Int64(updates))
        let sentBefore = await fakes.sentMessages().count
        let lastFMBefore = await fakes.lastFM.count()
        guard let cpuBefore = child.cpuTime, let switchesBefore = child.contextSwitches else {
            throw LoadError("cannot read the bot's CPU time and /proc/\(child.pid)/task/*/status")
        }
        let serverBefore = try serverCPUTime()
        let burst = AnonymousMemoryPeak(of: child)
        let start = ContinuousClock.now
        try await send(updates, from: &nextUser, fakes, child, expecting: sentBefore + updates, failIfIncomplete: false)
        let measuredWall = ContinuousClock.now - start
        let burstPeakAnonymous = await burst.stop()
        guard let cpuAfter = child.cpuTime, let switchesAfter = child.contextSwitches, let peakRSS = child.peakResidentBytes else {
            throw LoadError("the bot ended during the measured phase")
        }
        let serverAfter = try serverCPUTime()
        let lastFMAfter = await fakes.lastFM.count()
        try await Task.sleep(for: .seconds(2))
        let settledAnonymous = child.anonymousBytes ?? 0
        let settledPSS = child.proportionalBytes ?? 0
        let peakAnonymous = await wholeRun.stop()
        let switches = switchesAfter - switchesBefore
        let perUpdate = Double(max(1, updates))

        let answered = await fakes.sentMessages().compactMap(\.chatID).filter { measuredUsers.contains($0) }
        let refusals = await fakes.refusals()
        let uploads = await telegram.uploadedPhotos.count
        child.terminate()
        let exit = await child.waitForExit(timeout: .seconds(15))
        return Result(
            updates: updates, cpuPerUpdate: (cpuAfter - cpuBefore) / max(1, updates),
            serverCPUPerUpdate: serverAfter.map { ($0 - (serverBefore ?? .zero)) / max(1, updates) },
            contextSwitchesPerUpdate: (Double(switches.voluntary) / perUpdate, Double(switches.involuntary) / perUpdate),
            idleAnonymous: idleAnonymous, burstPeakAnonymous: burstPeakAnonymous, peakAnonymous: peakAnonymous,
            settledAnonymous: settledAnonymous, idlePSS: idlePSS, settledPSS: settledPSS, peakRSS: peakRSS,
            timeToFirstPoll: timeToFirstPoll, coldThrowbackCPU: coldAfter - coldBefore, uploads: uploads, lastFMWhileWarm: lastFMAfter - lastFMBefore,
            replies: Set(answered).count, duplicates: answered.count - Set(answered).count, measuredWall: measuredWall,
            refusals: refusals, exit: exit?.description ?? "did not stop within 15 s of SIGTERM (killed)",
            stderrTail: child.stderrTail()
        )
    }

    /// The PostgreSQL server's CPU time so far; nil on SQLite.
    private func serverCPUTime() throws -> Duration? {
        guard let postgres else { return nil }
        guard let time = postgres.cpuTime else { throw LoadError("the PostgreSQL server is gone") }
        return time
    }

    /// Queues `count` requests at once, each from a new user in that user's private chat, and
    /// waits until Telegram has accepted `expecting` messages in all.
    ///
    /// The wait allows three times what the flood limit needs, plus a minute: enough for a
    /// slow machine, short enough that a bot that lost requests is reported, not waited for.
    private func send(
        _ count: Int, from nextUser: inout Int64, _ fakes: Fakes, _ child: ChildProcess, expecting: Int, failIfIncomplete: Bool = true
    ) async throws {
        for _ in 0..<count {
            await fakes.telegram.pushMessage(Self.command, chatID: nextUser, chatType: "private", userID: nextUser)
            nextUser += 1
        }
        let done = await poll(timeout: .seconds(60 + count / 10), every: .milliseconds(50)) {
            await fakes.sentMessages().count >= expecting || child.exited != nil
        }
        if let exit = child.exited { throw LoadError("the bot ended while answering (\(exit.description))") }
        if !done && failIfIncomplete {
            throw LoadError("only \(await fakes.sentMessages().count) of \(expecting) replies arrived in time")
        }
    }

    static func tail(_ lines: [String]) -> String {
        lines.isEmpty ? "" : "\nlast lines of the bot's stderr:\n" + lines.map { "  " + $0 }.joined(separator: "\n")
    }
}

/// A measurement that could not be completed, with what went wrong.
struct LoadError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// A new empty directory under the system's temporary directory.
func temporaryDirectory(_ purpose: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vinylogue-load-\(purpose)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}
