import ArgumentParser
import Foundation

/// A load benchmark of the release `vinylogue-bot` binary, run as a child process against
/// the project's HTTP fakes of Telegram and Last.fm on 127.0.0.1. Run it from the
/// repository root:
///
///     swift run -c release vinylogue-load throwbacks
///     swift run -c release vinylogue-load throwbacks --compare 7d75a0a
///     swift run -c release vinylogue-load throwbacks --postgres --no-covers --rounds 3
///     swift run -c release vinylogue-load weekly
///
/// It is a benchmark, not a test: it reports figures and asserts nothing.
@main
struct VinylogueLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vinylogue-load",
        abstract: "Measure the release vinylogue-bot binary against local fakes of Telegram and Last.fm.",
        discussion: """
            Run it from the repository root, e.g. `swift run -c release vinylogue-load throwbacks --compare 7d75a0a`. \
            Progress goes to stderr, results to stdout. On a shared machine absolute figures are noisy: \
            compare two builds in one run (--compare) and report the ratio.
            """,
        subcommands: [Throwbacks.self, Weekly.self, Inline.self, PiecesCommand.self]
    )
}

/// The binary to measure: `--binary`, or this checkout's release build.
struct BinaryOption: ParsableArguments {
    @Option(help: "The vinylogue-bot binary to measure (default: build this checkout's in .build-static/).")
    var binary: String?

    func resolve(_ builds: Builds) async throws -> URL {
        if let given = try Self.executable(binary) { return given }
        return try await builds.currentBinary()
    }

    /// The executable file at `path`; nil if no path is given.
    static func executable(_ path: String?) throws -> URL? {
        guard let path else { return nil }
        let url = URL(fileURLWithPath: path)
        guard FileManager.default.isExecutableFile(atPath: url.path) else { throw ValidationError("\(path) is not an executable file.") }
        return url
    }
}

/// `vinylogue-load inline`: people typing an inline query letter by letter.
struct Inline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time `vinylogue-bot run` answering inline queries typed letter by letter by many people at once."
    )

    @Option(name: .customShort("n"), help: "People typing at once.")
    var users = 200

    @OptionGroup var binary: BinaryOption

    func validate() throws {
        guard (1...5000).contains(users) else { throw ValidationError("-n must be between 1 and 5000.") }
    }

    func run() async throws {
        let builds = try Builds.findRoot()
        let current = try await binary.resolve(builds)
        log("\(users) people typing “\(InlineLoad.typed)”…")
        let result = try await InlineLoad(binary: current, users: users).run()
        print("inline: \(users) people typing at once, \(builds.relative(current))")
        print(Report.lines(result.rows))
        if let text = Report.stderr(result.stderrTail, of: "the bot") { print(text) }
    }
}

/// `vinylogue-load pieces`: the warm path's pieces timed in this process.
struct PiecesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pieces",
        abstract: "Time the pieces of a warm throwback in-process: parse, route, engine, format, encode.",
        discussion: "A micro-benchmark: run it before and after a change, in one sitting, and compare the two."
    )

    @Option(name: .customShort("n"), help: "Calls per batch of each piece.")
    var iterations = 20000

    @Option(help: "Time only the pieces whose name contains this (to profile one).")
    var only: String?

    func validate() throws {
        guard iterations >= 100 else { throw ValidationError("-n must be at least 100.") }
    }

    func run() async throws {
        let results = try await Pieces(iterations: iterations, only: only).run()
        print("pieces of a warm throwback, median of 5 batches of \(iterations) calls")
        print(Report.lines(results.map { ($0.0, Report.fixed($0.1 / .nanoseconds(1) / 1000, digits: 2) + " µs") }))
    }
}

/// `vinylogue-load weekly`: one cold weekly post, timed against the APIs' limits.
struct Weekly: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time `vinylogue-bot post-weekly` for one chat on a cold cache, or (--chats) many chats due at the same minute.",
        discussion: """
            The floor is what Last.fm's limit (5 requests a second after a burst of 5) and Telegram's \
            (one message a second per chat) allow at best; time/floor near 1 means the limits, not the bot, set the pace.
            """
    )

    @Option(help: "Tracked users on the chat's roster (on each chat's, with --chats).")
    var users = 25

    @Option(help: "Instead of one post: this many chats' posts due at the same minute, from a running bot, once started --lead seconds before it (time to fetch ahead) and once 3 s before (none).")
    var chats: Int?

    @Option(help: "With --chats: how long before the due minute the bot starts, in seconds.")
    var lead = 150

    @OptionGroup var binary: BinaryOption

    func validate() throws {
        guard (1...500).contains(users) else { throw ValidationError("--users must be between 1 and 500.") }
        if let chats, !(1...500).contains(chats) { throw ValidationError("--chats must be between 1 and 500.") }
        guard (3...3600).contains(lead) else { throw ValidationError("--lead must be between 3 and 3600 seconds.") }
    }

    func run() async throws {
        let builds = try Builds.findRoot()
        let current = try await binary.resolve(builds)
        if let chats {
            for lead in [lead, 3] {
                log("\(chats) chats due at once, the bot started \(lead) s before…")
                let result = try await WeeklyBurstLoad(binary: current, chats: chats, users: users, lead: .seconds(lead)).run()
                print("weekly: \(chats) chats' posts due at the same minute, \(builds.relative(current))")
                print(Report.lines(result.rows))
                if let text = Report.stderr(result.stderrTail, of: "the bot") { print(text) }
            }
            return
        }
        log("post-weekly for \(users) users…")
        let result = try await WeeklyLoad(binary: current, users: users).run()
        print("weekly: a cold post for \(users) tracked users, \(builds.relative(current))")
        print(Report.lines(result.rows))
        let output = result.stdout.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
        if !output.isEmpty { print("post-weekly printed:\n" + output) }
        if let text = Report.stderr(result.stderrTail, of: "post-weekly") { print(text) }
    }
}
