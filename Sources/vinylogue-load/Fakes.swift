import Foundation
import TestSupport
import Throwback
import WeeklyCharts

/// The project's HTTP fakes of Telegram and Last.fm on 127.0.0.1, and the environment that
/// points a `vinylogue-bot` child process at them. Each measurement gets fresh fakes, so
/// one run's recorded calls never slow down or skew the next.
struct Fakes {
    static let token = "42:LOAD-benchmark_0123456789abcdefghij"
    static let lastFMKey = "10ad0be4c4a12c0ffee0123456789abc"
    static let week = Int(LastFMWeek.length)

    let telegram: FakeTelegram
    let lastFM: FakeLastFM
    let telegramURL: URL
    let lastFMURL: URL

    /// Starts both fakes; `prepare` adds Last.fm fixtures before anything can ask for them.
    static func start(prepare: (FakeLastFM) async -> Void) async throws -> Fakes {
        let telegram = FakeTelegram(token: token, botUsername: "VinylogueLoadBot")
        let lastFM = FakeLastFM()
        await prepare(lastFM)
        return Fakes(telegram: telegram, lastFM: lastFM, telegramURL: try await telegram.start(), lastFMURL: try await lastFM.start())
    }

    func stop() async {
        await telegram.stop()
        await lastFM.stop()
    }

    /// Runs `vinylogue-bot run` from `binary` against these fakes in a new directory, hands it
    /// to `measure`, and stops the fakes; a failed measurement ends the bot and says what its
    /// stderr said last.
    func measureBot<Result>(
        _ binary: URL, purpose: String, environment: [String: String] = [:], _ measure: (ChildProcess) async throws -> Result
    ) async throws -> Result {
        let outcome: Swift.Result<Result, any Error>
        do {
            let directory = try temporaryDirectory(purpose)
            defer { try? FileManager.default.removeItem(at: directory) }
            let child: ChildProcess
            do {
                child = try ChildProcess.spawn(
                    binary, ["run"], environment: childEnvironment(["POLL_TIMEOUT": "50"].merging(environment) { _, given in given }), in: directory
                )
            } catch {
                throw LoadError("could not start \(binary.path): \(error)")
            }
            do {
                outcome = .success(try await measure(child))
            } catch {
                child.terminate()
                _ = await child.waitForExit(timeout: .seconds(10))
                throw LoadError("\(error)" + ThrowbackLoad.tail(child.stderrTail()))
            }
        } catch {
            outcome = .failure(error)
        }
        await stop()
        return try outcome.get()
    }

    /// The child's whole environment: these keys and `extra`, nothing inherited but `PATH`.
    func childEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "TELEGRAM_BOT_TOKEN": Self.token,
            "TELEGRAM_API_URL": telegramURL.absoluteString,
            "LASTFM_API_KEY": Self.lastFMKey,
            "LASTFM_API_URL": lastFMURL.absoluteString,
            // Errors only: the benchmark measures the bot's work, not its logging; and a
            // non-empty stderr then means something went wrong.
            "LOG_LEVEL": "error",
        ].merging(extra) { _, new in new }
    }

    /// Messages Telegram accepted so far: text, or a photo (a throwback's collage).
    func sentMessages() async -> [FakeTelegram.Call] {
        await telegram.delivered.filter { $0.method == "sendMessage" || $0.method == "sendPhoto" }
    }

    /// The calls the fake Telegram refused on the Bot API's rules, counted by method and code.
    func refusals() async -> [String: Int] {
        await Dictionary(telegram.refusals.map { ("\($0.method) \($0.code)", 1) }, uniquingKeysWith: +)
    }

    // MARK: Fixtures

    /// `weeks` consecutive Last.fm weeks ending where the current week starts, oldest first,
    /// as `user.getweeklychartlist` lists them.
    static func weeklyRanges(weeks: Int, endingAt now: Date = Date()) -> [(from: Int, to: Int)] {
        let end = Int(LastFMWeek.start(of: now).timeIntervalSince1970)
        return (1...weeks).reversed().map { (from: end - $0 * week, to: end - ($0 - 1) * week) }
    }

    /// The start of the Last.fm week that holds the instant `years` years before `instant`:
    /// the week the bot shows for a throwback of that many years.
    static func weekStart(yearsBefore instant: Date, years: Int) -> Int {
        Int(LastFMWeek.start(of: WeekFinder.date(yearsBefore: instant, years: years)).timeIntervalSince1970)
    }

    /// A chart of `count` albums with falling play counts; one name needs HTML escaping, so
    /// every reply exercises it as real charts do.
    static func albums(_ count: Int) -> [(artist: String, name: String, plays: Int)] {
        let catalogue = [
            ("Beach House", "Bloom"), ("Radiohead", "OK Computer"), ("Burial", "Untrue"), ("Simon & Garfunkel", "Bookends"),
            ("Low", "Double Negative"), ("Massive Attack", "Mezzanine"), ("Björk", "Homogenic"), ("Portishead", "Dummy"),
            ("Slowdive", "Souvlaki"), ("Talk Talk", "Spirit of Eden"), ("Cocteau Twins", "Heaven or Las Vegas"), ("Grouper", "Ruins"),
        ]
        return (0..<count).map { index in
            let (artist, name) = catalogue[index % catalogue.count]
            return (artist, name, max(1, 40 - index * 3))
        }
    }
}
