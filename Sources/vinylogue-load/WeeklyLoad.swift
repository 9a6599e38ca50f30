import Foundation
import TestSupport
import Throwback
import WeeklyCharts

/// One cold weekly post, `vinylogue-bot post-weekly`, for a chat that tracks `users` people,
/// timed from spawn to exit and set against the floor that the two APIs' limits put under it.
struct WeeklyLoad {
    var binary: URL
    var users: Int

    static let chat: Int64 = -1001
    /// Due one minute after the Last.fm week starts (Sunday 12:00 UTC), so it is due whenever
    /// the benchmark runs, but for that first minute.
    static let schedule = "sun 12:01"
    private static let scheduleOffset: TimeInterval = 60

    struct Result {
        var users: Int
        var lastFMRequests: [String: Int]
        var messages: Int
        var wall: Duration
        var cpu: Duration
        var refusals: [String: Int]
        var exit: String
        var stdout: String
        var stderrTail: [String]

        var totalLastFMRequests: Int { lastFMRequests.values.reduce(0, +) }

        /// The least time the limits allow: Last.fm's 5 requests a second after a burst of 5,
        /// then Telegram's one message a second per chat after the first (the post is composed
        /// before anything is sent, so the two add up).
        var floor: Duration {
            .milliseconds(max(0, totalLastFMRequests - 5) * 200) + .seconds(max(0, messages - 1))
        }
    }

    func run() async throws -> Result {
        // In the first minute of a Last.fm week the post is not due yet: wait it out.
        let weekStart = LastFMWeek.start(of: Date())
        let due = weekStart.addingTimeInterval(Self.scheduleOffset)
        if Date() < due { try await Task.sleep(for: .seconds(due.timeIntervalSinceNow + 1)) }

        let names = (1...users).map { "listener\($0 < 10 ? "0" : "")\($0)" }
        let from = Fakes.weekStart(yearsBefore: due, years: WeeklyPostComposer.yearsAgo)
        let fakes = try await Fakes.start { lastFM in
            // Every album has a cover: the post opens with the roster's collage.
            await lastFM.setDefaultCover(.generated)
            for (index, name) in names.enumerated() {
                // A year and a bit of history: the week a year back has data, the 5- and
                // 10-year anniversaries do not, so each user costs two requests.
                await lastFM.addUser(name, ranges: Fakes.weeklyRanges(weeks: 60))
                await lastFM.setAlbumChart(user: name, from: from, to: from + Fakes.week, albums: Fakes.albums(6 + index % 5))
            }
        }
        let directory = try temporaryDirectory("weekly")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try await prepareDatabase(in: directory, roster: names)
            let result = try await measure(fakes, directory)
            await fakes.stop()
            return result
        } catch {
            await fakes.stop()
            throw error
        }
    }

    /// A database with one chat whose roster holds `roster`, at the path the child uses by
    /// default. The store is closed when this returns, before the child opens the file.
    private func prepareDatabase(in directory: URL, roster: [String]) async throws {
        let store = try BotStore(path: directory.appendingPathComponent("vinylogue.sqlite").path)
        _ = try await store.addToRoster(roster, chat: Self.chat, limit: roster.count)
    }

    private func measure(_ fakes: Fakes, _ directory: URL) async throws -> Result {
        let environment = fakes.childEnvironment(["THROWBACK_CHAT_ID": "\(Self.chat)", "THROWBACK_SCHEDULE": Self.schedule])
        let cpuBefore = ProcFS.endedChildrenCPUTime()
        let child = try ChildProcess.spawn(binary, ["post-weekly"], environment: environment, in: directory)
        guard let exit = await child.waitForExit(timeout: .seconds(600)) else {
            throw LoadError("post-weekly did not finish within 10 minutes" + ThrowbackLoad.tail(child.stderrTail()))
        }
        let cpu = ProcFS.endedChildrenCPUTime() - cpuBefore
        let lastFMCalls = await fakes.lastFM.calls
        let messages = await fakes.sentMessages().filter { $0.chatID == Self.chat }.count
        let refusals = await fakes.refusals()
        return Result(
            users: users, lastFMRequests: Dictionary(lastFMCalls.map { ($0.method, 1) }, uniquingKeysWith: +), messages: messages,
            wall: exit.at - child.spawnedAt, cpu: cpu, refusals: refusals, exit: exit.description,
            stdout: child.stdout, stderrTail: child.stderrTail()
        )
    }
}
