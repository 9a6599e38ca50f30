import Foundation
import TestSupport

/// `vinylogue-bot run` answering inline mode: `users` people each type `@bot alice 3` letter
/// by letter, a keystroke every 50 ms (Telegram sends one inline query per keystroke), all at
/// once. One person types it first, alone and cold.
///
/// The bot should answer each person once, for the text they stopped at, and ask Last.fm
/// once in all: one chain for the cold query, nothing while warm.
struct InlineLoad {
    var binary: URL
    var users: Int

    static let typed = "alice 3"
    private static let firstUserID: Int64 = 8_000_001
    private static let keystrokeGap = Duration.milliseconds(50)

    struct Result {
        var users: Int
        var keystrokes: Int
        var cpuPerKeystroke: Duration
        var cpuPerFinishedQuery: Duration
        var coldLastFM: Int
        var lastFMWhileWarm: Int
        /// People whose last query got an answer, and answers in all (one each is right).
        var answeredPeople: Int
        var answers: Int
        var wrongAnswers: Int
        var exit: String
        var stderrTail: [String]

        var rows: [(String, String)] {
            [
                ("people typing at once", "\(users), \(keystrokes) keystrokes in all (“\(InlineLoad.typed)” letter by letter, 50 ms apart)"),
                ("CPU per keystroke", Report.milliseconds(cpuPerKeystroke, digits: 3)),
                ("CPU per finished query", Report.milliseconds(cpuPerFinishedQuery, digits: 3)),
                ("Last.fm requests, the cold query", "\(coldLastFM)  (one chain: the weeks, the week's chart)"),
                ("Last.fm requests while warm", "\(lastFMWhileWarm)" + (lastFMWhileWarm == 0 ? "" : "  (expected 0)")),
                ("people answered", "\(answeredPeople) of \(users)"),
                ("answers", "\(answers)" + (answers == users ? "  (one each)" : "  (expected \(users): one each)")),
                ("answers not for the last keystroke", "\(wrongAnswers)"),
                ("after SIGTERM", exit),
            ]
        }
    }

    func run() async throws -> Result {
        let fakes = try await Fakes.start { lastFM in
            await lastFM.addUser("alice", ranges: Fakes.weeklyRanges(weeks: 15 * 53))
            let from = Fakes.weekStart(yearsBefore: Date(), years: 3)
            await lastFM.setAlbumChart(user: "alice", from: from, to: from + Fakes.week, albums: Fakes.albums(10))
        }
        return try await fakes.measureBot(binary, purpose: "inline") { try await measure($0, fakes) }
    }

    private func measure(_ child: ChildProcess, _ fakes: Fakes) async throws -> Result {
        let telegram = fakes.telegram
        guard await poll(timeout: .seconds(60), every: .milliseconds(2), { await !telegram.calls("getUpdates").isEmpty || child.exited != nil }),
              child.exited == nil
        else { throw LoadError("the bot did not poll Telegram") }

        let cold = try await type(for: [Self.firstUserID - 1], fakes, child, expecting: 1)
        let coldLastFM = await fakes.lastFM.count()
        let people = (0..<Int64(users)).map { Self.firstUserID + $0 }
        guard let cpuBefore = child.cpuTime else { throw LoadError("cannot read the bot's CPU time") }
        let warm = try await type(for: people, fakes, child, expecting: 1 + users)
        guard let cpuAfter = child.cpuTime else { throw LoadError("the bot ended while answering") }
        let lastFMWhileWarm = await fakes.lastFM.count() - coldLastFM

        let answers = await telegram.inlineAnswers
        let lastQueries = Set(cold.values).union(warm.values)
        let answered = answers.filter { lastQueries.contains($0.queryID) }
        child.terminate()
        let exit = await child.waitForExit(timeout: .seconds(15))
        let keystrokes = users * Self.typed.count
        let cpu = cpuAfter - cpuBefore
        return Result(
            users: users, keystrokes: keystrokes, cpuPerKeystroke: cpu / max(1, keystrokes), cpuPerFinishedQuery: cpu / max(1, users),
            coldLastFM: coldLastFM, lastFMWhileWarm: lastFMWhileWarm,
            answeredPeople: Set(answered.map(\.queryID)).intersection(warm.values).count,
            answers: answers.count - 1, wrongAnswers: answers.count - answered.count,
            exit: exit?.description ?? "did not stop within 15 s of SIGTERM (killed)", stderrTail: child.stderrTail()
        )
    }

    /// Everyone in `people` types `typed` at once, a keystroke each every 50 ms; waits until
    /// the fake holds `expecting` inline answers in all. Returns each person's last query id.
    private func type(for people: [Int64], _ fakes: Fakes, _ child: ChildProcess, expecting: Int) async throws -> [Int64: String] {
        var last: [Int64: String] = [:]
        for length in 1...Self.typed.count {
            let text = String(Self.typed.prefix(length))
            for person in people { last[person] = await fakes.telegram.pushInlineQuery(text, userID: person) }
            try await Task.sleep(for: Self.keystrokeGap)
        }
        let done = await poll(timeout: .seconds(60 + people.count / 10), every: .milliseconds(20)) {
            await fakes.telegram.inlineAnswers.count >= expecting || child.exited != nil
        }
        if let exit = child.exited { throw LoadError("the bot ended while answering (\(exit.description))") }
        guard done else { throw LoadError("only \(await fakes.telegram.inlineAnswers.count) of \(expecting) inline answers arrived in time") }
        return last
    }
}
