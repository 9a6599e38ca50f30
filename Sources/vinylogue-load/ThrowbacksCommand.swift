import ArgumentParser
import Foundation

/// `vinylogue-load throwbacks`: CPU, memory and cache behaviour of `vinylogue-bot run`
/// under a burst of throwback requests.
struct Throwbacks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time `vinylogue-bot run` answering a burst of /tb requests from distinct users.",
        discussion: """
            The bot starts on a fresh database. --warm requests fill its Last.fm cache, then -n requests \
            arrive at once, each from a new user in a private chat. The bot keeps to Telegram's flood limit \
            of 30 messages a second, so 2000 requests take a little over a minute.
            """
    )

    @Option(name: .customShort("n"), help: "Requests in the measured phase.")
    var updates = 2000

    @Option(help: "Requests to warm up with, answered before measuring.")
    var warm = 50

    @OptionGroup var binary: BinaryOption

    @Option(help: "Also build this git ref (in .build-compare/) and measure both binaries, alternating.")
    var compare: String?

    @Option(help: "Rounds of the comparison; each measures both binaries.")
    var rounds = 2

    /// Measures the bot on PostgreSQL beside SQLite: this checkout is also built with the
    /// `PostgreSQL` trait (in `.build-static-postgres/`), and the two binaries alternate
    /// rounds as with `--compare`. The PostgreSQL one keeps its state in a throwaway cluster
    /// this tool makes (`initdb` in a temporary directory, `pg_ctl` on a loopback port), a new
    /// database each round, and removes at exit, an interrupted or failed run included. Its
    /// server's CPU per update (all its processes) is reported apart from the bot's.
    @Flag(help: ArgumentHelp(
        "Also build this checkout with the PostgreSQL trait and measure it beside the SQLite build, alternating rounds, on a throwaway PostgreSQL server started (and removed) by this tool; the server's CPU is reported apart from the bot's.",
        discussion: "--binary, if given, is the SQLite side."
    ))
    var postgres = false

    @Option(help: "With --postgres: the vinylogue-bot binary built with the PostgreSQL trait to measure (default: build this checkout's in .build-static-postgres/).")
    var postgresBinary: String?

    @Option(help: "How to link the compared ref: static, as this version runs and deploys the bot, or shared, as plain `swift build -c release` did before.")
    var refLinking: Builds.Linking = .static

    @Flag(inversion: .prefixedNo, help: "Give the chart's albums cover art, so that every reply is a collage (--no-covers: text replies).")
    var covers = true

    @Option(name: .customLong("env"), help: ArgumentHelp(
        "Set a variable in the bot's environment, e.g. --env GLIBC_TUNABLES=glibc.malloc.arena_max=1 to give a ref older than the bot's own arena limit the one the deploy files gave it.",
        valueName: "NAME=VALUE"
    ))
    var variables: [String] = []

    /// `--env` as a dictionary.
    var environment: [String: String] {
        Dictionary(variables.map { variable in
            let parts = variable.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }) { _, later in later }
    }

    func validate() throws {
        guard updates >= 1, warm >= 1 else { throw ValidationError("-n and --warm must be at least 1.") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1.") }
        if postgres && compare != nil { throw ValidationError("--postgres and --compare each make a comparison of their own: give one.") }
        if postgresBinary != nil && !postgres { throw ValidationError("--postgres-binary goes with --postgres.") }
        for variable in variables where variable.split(separator: "=", maxSplits: 1).first.map({ $0.isEmpty || !variable.contains("=") }) ?? true {
            throw ValidationError("--env takes NAME=VALUE, not '\(variable)'.")
        }
    }

    func run() async throws {
        let builds = try Builds.findRoot()
        if postgres {
            print(try await measureBesidePostgres(builds))
            return
        }
        if let compare {
            // The ref first: its build is the long one, and it fails early on a bad ref.
            let (refBinary, commit) = try await builds.binary(at: compare, linking: refLinking)
            let current = try await binary.resolve(builds)
            let name = commit.hasPrefix(compare) ? compare : "\(compare) (\(commit.prefix(9)))"
            let label = refLinking == .static ? name : "\(name), \(refLinking)"
            print(try await Comparison(
                first: .init(name: "current", binary: current), second: .init(name: label, binary: refBinary),
                updates: updates, warmUp: warm, rounds: rounds, covers: covers, environment: environment
            ).run())
            return
        }
        let current = try await binary.resolve(builds)
        let result = try await ThrowbackLoad(binary: current, updates: updates, warmUp: warm, covers: covers, environment: environment, progress: { log($0) }).run()
        print("throwbacks: \(updates) requests after \(warm) to warm up, \(covers ? "collage" : "text") replies, \(builds.relative(current))")
        print(Report.lines(result.rows))
        if let text = Report.stderr(result.stderrTail, of: "the bot") { print(text) }
    }
}

extension Throwbacks {
    /// `--postgres`: the SQLite build and the PostgreSQL one, alternating rounds, the latter on
    /// a throwaway server that is removed whatever happens; returns the report.
    func measureBesidePostgres(_ builds: Builds) async throws -> String {
        // The PostgreSQL build first: on a first run it is the long one.
        let postgresBinary: URL
        if let given = try BinaryOption.executable(self.postgresBinary) {
            postgresBinary = given
        } else {
            postgresBinary = try await builds.currentPostgresBinary()
        }
        let sqlite = try await binary.resolve(builds)
        let cluster = try await PostgresCluster.start()
        log("a throwaway PostgreSQL server on 127.0.0.1:\(cluster.port)")
        let report: Result<String, any Error>
        do {
            report = .success(try await Comparison(
                first: .init(name: "SQLite", binary: sqlite), second: .init(name: "PostgreSQL", binary: postgresBinary, postgres: cluster),
                updates: updates, warmUp: warm, rounds: rounds, covers: covers, environment: environment
            ).run())
        } catch {
            report = .failure(error)
        }
        cluster.remove()
        return try report.get()
    }
}
