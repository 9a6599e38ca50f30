import Covers
import Foundation
import Testing
import TestSupport
import Throwback
import TestLogging
import WeeklyCharts

/// The operator's commands beside the bot: `post-weekly --dry-run`, `chats`, `backup`, and
/// `throwback --collage`, run as the built executable.
@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct OperatorCommandTests {
    /// Due every week from Sunday 12:01 UTC, just after the Last.fm week starts: due whenever this runs.
    static let schedule = "sun 12:01"

    /// The instant this week's post was due, and the week it shows.
    static var dueNow: (instant: Date, week: WeeklyChartRange) {
        let instant = PostingTime(schedule: WeeklySchedule(schedule)!, zone: .gmt).previous(atOrBefore: Date())
        return (instant, WeeklyPostComposer.week(at: instant))
    }

    /// Last.fm users with a long chart in the week this week's post shows, and covers for all.
    static func listeners(_ count: Int, on lastFM: FakeLastFM) async -> [String] {
        let end = Int(LastFMWeek.start(of: BotHarness.now).timeIntervalSince1970)
        let ranges = (1...(52 * 4)).reversed().map { (from: end - $0 * 604_800, to: end - ($0 - 1) * 604_800) }
        let names = (1...count).map { "listener\($0)" }
        for name in names {
            await lastFM.addUser(name, ranges: ranges)
            // This week's post's week, and those next to it, which a post due later shows.
            for offset in -1...2 {
                let from = dueNow.week.fromUnix + offset * 604_800
                await lastFM.setAlbumChart(user: name, from: from, to: from + 604_800, albums: (1...6).map { rank in
                    (String(repeating: "Long Artist Name \(rank) ", count: 6) + name, String(repeating: "An album that goes on ", count: 6) + "\(rank)", 20 - rank)
                })
            }
        }
        await lastFM.setDefaultCover(.jpeg(side: 300))
        return names
    }

    /// The messages a dry run printed: each one's kind, as its heading says, and its text.
    static func printedMessages(_ output: String) -> [(kind: String, text: String)] {
        let headings = output.matches(of: /\n\nmessage \d+ of \d+ \(([^)]*)\):\n/)
        return headings.indices.map { index in
            let end = index + 1 < headings.count ? headings[index + 1].range.lowerBound : output.endIndex
            var text = String(output[headings[index].range.upperBound..<end])
            if text.hasSuffix("\n") { text.removeLast() }
            return (String(headings[index].output.1), text)
        }
    }

    @Test func aDryRunPrintsEachMessageAsThePostSendsItAndRecordsNothing() async throws {
        let harness = try await BotHarness.start()
        let chat: Int64 = -9600
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("vinylogue.sqlite")
        _ = try await BotStore(path: database.path).addToRoster(await Self.listeners(6, on: harness.lastFM), chat: chat, limit: 50)
        var environment = Executable.botEnvironment(harness.telegramURL, harness.lastFMURL, token: harness.telegram.token, key: BotHarness.lastFMKey, level: "warning")
        environment["THROWBACK_CHAT_ID"] = "\(chat)"
        environment["THROWBACK_SCHEDULE"] = Self.schedule
        let run = { (arguments: [String]) in try await Executable.start(arguments, in: directory, environment: environment).result() }

        let bytes = try Data(contentsOf: database)
        let due = try await run(["post-weekly", "--dry-run"])
        #expect(due.status == 0, "\(due.stderr)")
        #expect(due.stdout.hasPrefix("[1/1] chat \(chat): due since Sun "), "\(due.stdout)")
        // Nothing recorded: no claim, no outbox row, no cached answer.
        #expect(try Data(contentsOf: database) == bytes)
        let log = (try? FileManager.default.attributesOfItem(atPath: database.path + "-wal")[.size] as? Int) ?? 0
        #expect(log == 0)
        #expect(await harness.telegram.calls.isEmpty)

        let posted = try await run(["post-weekly", "--chat", "\(chat)"])
        #expect(posted.status == 0, "\(posted.stderr)")
        let sent = await harness.telegram.delivered.filter { $0.chatID == chat }
        #expect(posted.stdout.contains("posted \(sent.count) messages for 6 users"), "\(posted.stdout)")

        // After the post, --force shows it as it would go out again.
        let again = try await run(["post-weekly", "--dry-run", "--force", "--chat", "\(chat)"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.hasPrefix("[1/1] chat \(chat): already posted this week; with --force it would go out again; \(sent.count) messages for 6 users:"))
        #expect(!again.stdout.contains("no weekly post due"))
        for output in [due.stdout, again.stdout] {
            let printed = Self.printedMessages(output)
            // A collage and three texts, split where the post split them.
            #expect(printed.count == 4 && sent.count == 4, "\(output)")
            #expect(printed.map(\.kind) == ["photo with caption"] + sent.dropFirst().map { "text, \($0.text?.utf16.count ?? 0) characters" })
            #expect(sent.map(\.method) == ["sendPhoto", "sendMessage", "sendMessage", "sendMessage"])
            #expect(printed.map(\.text) == sent.map { $0.caption ?? $0.text ?? "" })
        }
        await harness.stop()
    }

    @Test func aDryRunShowsAChatWhosePostIsOffAndNothingSuggestsAFlagAlreadyGiven() async throws {
        let harness = try await BotHarness.start()
        let chat: Int64 = -9601
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await BotStore(path: directory.appendingPathComponent("vinylogue.sqlite").path)
            .addToRoster(await Self.listeners(1, on: harness.lastFM), chat: chat, limit: 50)
        var environment = Executable.botEnvironment(harness.telegramURL, harness.lastFMURL, token: harness.telegram.token, key: BotHarness.lastFMKey, level: "warning")
        environment["THROWBACK_SCHEDULE"] = "mon 09:00"
        let run = { (arguments: [String]) in try await Executable.start(arguments, in: directory, environment: environment).result() }

        let preview = try await run(["post-weekly", "--dry-run", "--force", "--chat", "\(chat)"])
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(preview.stdout.hasPrefix("[1/1] chat \(chat): weekly post is off; were it on, it would post this Mon "), "\(preview.stdout)")
        #expect(Self.printedMessages(preview.stdout).map(\.kind).first == "photo with caption")
        #expect(preview.stdout.contains("listener1"))

        let real = try await run(["post-weekly", "--force", "--chat", "\(chat)"])
        #expect(real.status == 0, "\(real.stderr)")
        #expect(real.stdout == "Chat \(chat): nothing posted; its weekly post is off (an admin turns it on there with “weekly on”).\n")
        let none = try await run(["post-weekly", "--dry-run", "--force"])
        #expect(none.stdout == "No chat has its weekly post on; --chat ID shows any chat's post.\n")
        for output in [preview.stdout, real.stdout, none.stdout] { #expect(!output.contains("--force")) }
        #expect(await harness.telegram.calls("sendMessage").isEmpty)
        await harness.stop()
    }

    @Test func withoutADatabaseTheViewsSaySoAndCreateNone() async throws {
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ["LASTFM_API_KEY": "k", "THROWBACK_CHAT_ID": "-5"]
        for arguments in [["post-weekly", "--dry-run"], ["post-weekly", "--dry-run", "--force", "--chat", "-5"], ["chats"]] {
            let result = try await Executable.start(arguments, in: directory, environment: environment).result()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("There is no database at vinylogue.sqlite (DATABASE_PATH)"), "\(result.stdout)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }

    @Test func chatsListsEachChatWithItsRosterSettingsAndScheduleBesideTheRunningBot() async throws {
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Open, as the running bot keeps it.
        let store = try BotStore(path: directory.appendingPathComponent("vinylogue.sqlite").path)
        _ = try await store.addToRoster(["alice", "Bob"], chat: -42, limit: 50)
        try await store.updateSettings(for: -42) {
            $0.weeklyPost = true
            $0.schedule = "sun 20:59"
            $0.scheduleZone = "Asia/Tokyo"
            $0.minimumPlayCount = 3
        }
        _ = try await store.addToRoster(["lb:carol"], chat: 7, limit: 50)
        // Times just before the Last.fm week starts (Sunday 12:00 UTC), which are never due
        // but in that minute: the next is always a week away.
        let environment = ["THROWBACK_SCHEDULE": "sun 11:59", "THROWBACK_CHAT_ID": "-1001"]
        let result = try await Executable.start(["chats"], in: directory, environment: environment).result()
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "3 chats in vinylogue.sqlite:")
        #expect(result.stdout.contains("""
            chat -42
              tracks: alice, Bob
              filter: albums with at least 3 plays
              covers: on
              weekly post: on, sun 20:59 Asia/Tokyo (its own schedule); next due Sun
            """), "\(result.stdout)")
        #expect(result.stdout.contains("""
            chat -1001
              tracks: nobody
              filter: none, every album shows
              covers: on
              weekly post: on, sun 11:59 UTC (the default schedule); next due Sun
            """), "\(result.stdout)")
        #expect(result.stdout.contains("""
            chat 7
              tracks: lb:carol
              filter: none, every album shows
              covers: on
              weekly post: off, sun 11:59 UTC (the default schedule)

            """), "\(result.stdout)")
        // Chats in id order.
        #expect(lines.filter { $0.hasPrefix("chat ") } == ["chat -1001", "chat -42", "chat 7"])
        _ = try await store.roster(of: -42)
    }

    @Test func aBackupIntoAMissingFolderSaysSoInOneLine() async throws {
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try BotStore(path: directory.appendingPathComponent("vinylogue.sqlite").path)
        let missing = directory.appendingPathComponent("missing")
        let result = try await Executable.start(["backup", missing.appendingPathComponent("b.sqlite").path], in: directory).result()
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "Cannot write the backup: there is no folder \(missing.path).\n")
    }

    @Test func aCollageNamedPNGIsAPNGAndAnotherExtensionIsRefused() async throws {
        let folder = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("a.png").path
        let written = try await Executable.run(["throwback", "alice", "3", "--demo", "--collage", png])
        #expect(written.status == 0, "\(written.stderr)")
        let info = try ImageInfo(inspecting: try Data(contentsOf: URL(fileURLWithPath: png)))
        #expect(info.format == .png)
        #expect(info.dimensions == ImageDimensions(width: 900, height: 900))

        let gif = folder.appendingPathComponent("a.gif").path
        let refused = try await Executable.run(["throwback", "alice", "3", "--demo", "--collage", gif])
        #expect(refused.status == 64)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr == "--collage: a.gif: a collage is written as JPEG (.jpg) or PNG (.png); give a name ending in one of those.\n")
        #expect(!FileManager.default.fileExists(atPath: gif))
    }
}
