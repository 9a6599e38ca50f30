import Foundation
import TestSupport
import Throwback
import WeeklyCharts

/// Many chats' weekly posts due at the same minute, from a running `vinylogue-bot run`: the
/// time from the due minute to the last post, against the floor Telegram's flood limits set.
/// Started `lead` before the due minute, the bot has that long to fetch the posts' weeks ahead;
/// started at it, it has none, as a bot without prefetching.
struct WeeklyBurstLoad {
    var binary: URL
    var chats: Int
    var users: Int
    var lead: Duration

    struct Result {
        var chats: Int
        var users: Int
        var lead: Duration
        /// From the due minute to the moment the last post had arrived.
        var lastPost: Duration?
        var posted: Int
        var messages: Int
        var lastFMBeforeDue: Int
        var lastFMAfterDue: Int
        var refusals: [String: Int]
        var exit: String
        var stderrTail: [String]

        /// Telegram's overall limit, 30 messages a second: the last of `messages` sent at once
        /// goes in the window it fills (one message a chat: no per-chat limit applies).
        var floor: Duration { .seconds((max(messages, 1) - 1) / 30) }

        var rows: [(String, String)] {
            [
                ("chats due at once", "\(chats), \(users) tracked users each (text posts)"),
                ("bot started before the due minute", Report.seconds(lead)),
                ("posts sent", "\(posted) of \(chats)  (\(messages) messages)"),
                ("due minute to the last post", lastPost.map(Report.seconds) ?? "did not finish"),
                ("floor (Telegram's 30 messages a second)", Report.seconds(floor)),
                ("Last.fm requests before the due minute", "\(lastFMBeforeDue)"),
                ("Last.fm requests after it", "\(lastFMAfterDue)"),
                ("refused by the fakes", Report.counts(refusals)),
                ("after SIGTERM", exit),
            ]
        }
    }

    func run() async throws -> Result {
        // The first whole minute that leaves the bot `lead` and a few seconds to start.
        let earliest = Date().addingTimeInterval(lead.seconds + 5)
        let due = Date(timeIntervalSince1970: (earliest.timeIntervalSince1970 / 60).rounded(.up) * 60)
        let chatIDs = (1...chats).map { -3000 - Int64($0) }
        let rosters = Dictionary(uniqueKeysWithValues: chatIDs.map { chat in (chat, (1...users).map { "c\(-chat)u\($0)" }) })
        let from = Fakes.weekStart(yearsBefore: due, years: WeeklyPostComposer.yearsAgo)
        let fakes = try await Fakes.start { lastFM in
            for (index, name) in rosters.values.joined().enumerated() {
                // The week a year back has data, the 5- and 10-year ones do not: two requests a user.
                await lastFM.addUser(name, ranges: Fakes.weeklyRanges(weeks: 60, endingAt: due))
                await lastFM.setAlbumChart(user: name, from: from, to: from + Fakes.week, albums: Fakes.albums(3 + index % 5))
            }
        }
        let directory = try temporaryDirectory("weekly-burst")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let store = try BotStore(path: directory.appendingPathComponent("vinylogue.sqlite").path)
            for (chat, roster) in rosters {
                _ = try await store.addToRoster(roster, chat: chat, limit: roster.count)
                try await store.updateSettings(for: chat) { settings in
                    settings.weeklyPost = true
                    settings.covers = false
                    settings.weeklySince = Int64(Date().timeIntervalSince1970)
                }
            }
            let result = try await measure(fakes, directory, due: due, chats: Set(chatIDs))
            await fakes.stop()
            return result
        } catch {
            await fakes.stop()
            throw error
        }
    }

    private func measure(_ fakes: Fakes, _ directory: URL, due: Date, chats: Set<Int64>) async throws -> Result {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let weekday = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"][calendar.component(.weekday, from: due) - 1]
        let time = String(format: "%02d:%02d", calendar.component(.hour, from: due), calendar.component(.minute, from: due))
        let startAt = due.addingTimeInterval(-lead.seconds)
        if startAt > Date() { try await Task.sleep(for: .seconds(startAt.timeIntervalSinceNow)) }
        let environment = fakes.childEnvironment(["THROWBACK_SCHEDULE": "\(weekday) \(time)", "THROWBACK_TIMEZONE": "UTC", "POLL_TIMEOUT": "50"])
        let child = try ChildProcess.spawn(binary, ["run"], environment: environment, in: directory)
        if due > Date() { try await Task.sleep(for: .seconds(due.timeIntervalSinceNow)) }
        let lastFMBeforeDue = await fakes.lastFM.count()
        let dueInstant = ContinuousClock.now
        var lastPost: Duration?
        var seen = 0
        func posts() async -> [FakeTelegram.Call] { await fakes.sentMessages().filter { $0.chatID.map(chats.contains) ?? false } }
        // Done once every chat has its post and no message came for two seconds.
        while child.exited == nil, ContinuousClock.now - dueInstant < .seconds(600) {
            let sent = await posts()
            if sent.count > seen { (seen, lastPost) = (sent.count, ContinuousClock.now - dueInstant) }
            let allPosted = Set(sent.compactMap(\.chatID)).count == chats.count
            if allPosted, (ContinuousClock.now - dueInstant) - (lastPost ?? .zero) > .seconds(2) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let sent = await posts()
        let lastFMAfterDue = await fakes.lastFM.count() - lastFMBeforeDue
        let refusals = await fakes.refusals()
        child.terminate()
        let exit = await child.waitForExit(timeout: .seconds(15))
        let posted = Set(sent.compactMap(\.chatID)).count
        return Result(
            chats: chats.count, users: users, lead: lead, lastPost: posted == chats.count ? lastPost : nil, posted: posted, messages: sent.count,
            lastFMBeforeDue: lastFMBeforeDue, lastFMAfterDue: lastFMAfterDue, refusals: refusals,
            exit: exit?.description ?? "did not stop within 15 s of SIGTERM (killed)", stderrTail: child.stderrTail()
        )
    }
}
