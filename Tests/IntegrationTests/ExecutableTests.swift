import Covers
import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport
import Throwback
import TestLogging

/// Runs the built `vinylogue-bot` executable the way a person would.
enum Executable {
    static var url: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vinylogue-bot")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the executable in an empty directory (no `.env`) with only `environment` set.
    /// The waiting happens on a thread of its own, off Swift's small cooperative pool.
    static func run(_ arguments: [String], input: String = "", environment: [String: String] = [:]) async throws -> Result {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let running = try start(arguments, in: directory, input: input, environment: environment)
        return await running.result()
    }

    /// The environment for `run` against the fakes.
    static func botEnvironment(_ telegram: URL, _ lastFM: URL, token: String, key: String, level: String) -> [String: String] {
        ["TELEGRAM_BOT_TOKEN": token, "TELEGRAM_API_URL": telegram.absoluteString, "LASTFM_API_KEY": key,
         "LASTFM_API_URL": lastFM.absoluteString, "LOG_LEVEL": level, "POLL_TIMEOUT": "30"]
    }

    /// A new empty directory to run in.
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vinylogue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Starts the executable in `directory`; its output is collected as it comes, so that a
    /// chatty process never blocks on a full pipe.
    ///
    /// Spawned with `posix_spawn` rather than Foundation's `Process`, whose `run()` in this
    /// toolchain reads past a `/proc/self/fd` entry and crashes now and then
    /// (swift-corelibs-foundation #5472, fixed after 6.3). The child starts in `directory`
    /// with only its three standard streams open, as `Process` did.
    static func start(_ arguments: [String], in directory: URL, input: String = "", environment: [String: String] = [:]) throws -> Running {
        let (stdin, stdout, stderr) = (try Channel(), try Channel(), try Channel())
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (childEnd, stream) in [(stdin.read, STDIN_FILENO), (stdout.write, STDOUT_FILENO), (stderr.write, STDERR_FILENO)] {
            try check(posix_spawn_file_actions_adddup2(&actions, childEnd, stream), "adddup2")
        }
        try check(SpawnExtensions.addChdir(&actions, directory.path), "addchdir")
        try check(SpawnExtensions.addCloseFrom(&actions, 3), "addclosefrom")

        let path = url.path
        let environment = environment.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        try check(posix_spawn(&pid, path, &actions, nil, argv, envp), "posix_spawn")

        // The parent keeps its ends only.
        close(stdin.read)
        close(stdout.write)
        close(stderr.write)
        let writer = FileHandle(fileDescriptor: stdin.write, closeOnDealloc: true)
        writer.write(Data(input.utf8))
        try writer.close()
        return Running(
            pid: pid,
            stdout: FileHandle(fileDescriptor: stdout.read, closeOnDealloc: true),
            stderr: FileHandle(fileDescriptor: stderr.read, closeOnDealloc: true)
        )
    }

    private static func check(_ code: Int32, _ what: String) throws {
        guard code == 0 else { throw SpawnError(what: what, code: code) }
    }

    struct SpawnError: Error, CustomStringConvertible {
        var what: String
        var code: Int32
        var description: String { "\(what) failed: \(String(cString: strerror(code)))" }
    }

    /// A pipe: its read end and its write end.
    private struct Channel {
        let read: Int32
        let write: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw SpawnError(what: "pipe", code: errno) }
            (read, write) = (ends[0], ends[1])
        }
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np` and `…_addclosefrom_np` (2.29 and
    /// 2.34), which Swift's Glibc module does not declare.
    private enum SpawnExtensions {
        typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

        static func addChdir(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: String) -> Int32 {
            unsafeBitCast(symbol("posix_spawn_file_actions_addchdir_np"), to: AddChdir.self)(actions, path)
        }

        static func addCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) -> Int32 {
            unsafeBitCast(symbol("posix_spawn_file_actions_addclosefrom_np"), to: AddCloseFrom.self)(actions, lowest)
        }

        private static func symbol(_ name: String) -> UnsafeMutableRawPointer {
            guard let found = dlsym(dlopen(nil, RTLD_NOW), name) else { fatalError("this glibc has no \(name)") }
            return found
        }
    }

    /// A started executable.
    struct Running: Sendable {
        let pid: pid_t
        private let stdout: Output
        private let stderr: Output

        init(pid: pid_t, stdout: FileHandle, stderr: FileHandle) {
            self.pid = pid
            self.stdout = Output(stdout)
            self.stderr = Output(stderr)
        }

        /// Sends SIGTERM, as systemd or docker stop would.
        func terminate() {
            _ = Glibc.kill(pid, SIGTERM)
        }

        /// Sends SIGKILL, as the OOM killer or `kill -9` would: the process gets no chance to
        /// tidy up.
        func kill() {
            _ = Glibc.kill(pid, SIGKILL)
        }

        /// Returns once standard error holds `text`, or false if the process ended without it.
        func waitForLog(_ text: String) async -> Bool {
            await stderr.wait(for: text)
        }

        /// Waits for the exit, off the cooperative pool, and reaps the process: call it once.
        /// The status is the exit code, or the signal that ended the process.
        func result() async -> Result {
            let (out, err) = (await stdout.all(), await stderr.all())
            let status = await withCheckedContinuation { continuation in
                Thread.detachNewThread { [pid] in
                    var raw: Int32 = 0
                    while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
                    // WIFEXITED and friends are macros Swift cannot import.
                    let signal = raw & 0x7f
                    continuation.resume(returning: signal == 0 ? (raw >> 8) & 0xff : signal)
                }
            }
            return Result(status: status, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
        }
    }

    /// One output stream of a process, read as it comes on a thread of its own, so that a
    /// chatty process never blocks on a full pipe and a test can wait for a line.
    final class Output: Sendable {
        private struct State {
            var data = Data()
            var ended = false
            var waiters: [(text: String, continuation: CheckedContinuation<Bool, Never>)] = []
        }

        private let state = Mutex(State())

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                while true {
                    let chunk = handle.availableData
                    let ready = state.withLock { state -> [(CheckedContinuation<Bool, Never>, Bool)] in
                        if chunk.isEmpty { state.ended = true } else { state.data.append(chunk) }
                        let text = String(decoding: state.data, as: UTF8.self)
                        let done = state.waiters.filter { state.ended || text.contains($0.text) }
                        state.waiters.removeAll { state.ended || text.contains($0.text) }
                        return done.map { ($0.continuation, text.contains($0.text)) }
                    }
                    for (waiter, found) in ready { waiter.resume(returning: found) }
                    if chunk.isEmpty { return }
                }
            }
        }

        func wait(for text: String) async -> Bool {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool? in
                    let found = String(decoding: state.data, as: UTF8.self).contains(text)
                    if found || state.ended { return found }
                    state.waiters.append((text, continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        }

        /// Everything, once the stream has ended.
        func all() async -> Data {
            _ = await wait(for: "\u{0}never\u{0}")
            return state.withLock { $0.data }
        }
    }
}

@Suite(.capturingLogs, .timeLimit(.minutes(2))) struct ExecutableTests {
    @Test func theDemoConsoleAnswersInOrderAndExitsZero() async throws {
        let result = try await Executable.run(
            ["console", "--demo"],
            input: "throwback alice 3\nthrowback nobody_here 2\ntb alice banana\nthrowback a\u{1B}[2Jb 3\nquit\nthrowback alice 2\n"
        )
        #expect(result.status == 0, "\(result.stderr)")
        let replies = result.stdout.components(separatedBy: "\n\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        #expect(replies.count == 4, "\(result.stdout)")
        guard replies.count == 4 else { return }
        #expect(replies[0].hasPrefix("alice · week of "))
        #expect(replies[0].contains(", 3 years ago"))
        #expect(replies[0].contains("1. "))
        // The ◀ ▶ buttons, as a line a person can act on.
        #expect(replies[0].hasSuffix("◀ 4 years ago: “throwback alice 4”   2 years ago ▶: “throwback alice 2”"))
        #expect(replies[1] == "No Last.fm user is called “nobody_here”. " + DemoListeningData().unknownUserHint)
        #expect(replies[1].contains("alice, bob, carol and dave") && replies[1].contains("librefm:carol"))
        #expect(replies[2].contains("Usage: throwback [user] [years]"))
        // A typed escape sequence is shown, not obeyed.
        #expect(replies[3].contains("a\\u{1B}[2Jb"))
        #expect(!result.stdout.contains("\u{1B}"))
    }

    @Test func withoutAKeyTheCLISaysWhatToSetInOneLine() async throws {
        let result = try await Executable.run(["throwback", "alice", "3"])
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("LASTFM_API_KEY is not set"))
    }

    @Test func runWithoutATokenSaysWhatToSetInOneLine() async throws {
        for arguments in [["run"], []] {
            let result = try await Executable.run(arguments, environment: ["LASTFM_API_KEY": BotHarness.lastFMKey])
            #expect(result.status != 0)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("TELEGRAM_BOT_TOKEN is not set"))
        }
    }

    @Test func runWithARejectedTokenExitsWithAClearMessage() async throws {
        let telegram = FakeTelegram(token: "111:right-token-0123456789abcdefghijklm")
        let url = try await telegram.start()
        let result = try await Executable.run(["run"], environment: [
            "TELEGRAM_BOT_TOKEN": "222:wrong-token-0123456789abcdefghijklm", "TELEGRAM_API_URL": url.absoluteString,
            "LASTFM_API_KEY": BotHarness.lastFMKey, "LOG_LEVEL": "error",
        ])
        await telegram.stop()
        #expect(result.status != 0)
        #expect(result.stderr.contains("Telegram rejected the bot token (401 Unauthorized): check TELEGRAM_BOT_TOKEN."))
        #expect(!result.stderr.contains("404 Not Found"))
        // Stopping is no error: nothing the shutdown cancelled is logged as one.
        #expect(!result.stderr.split(separator: "\n").contains { $0.contains(" error ") || $0.contains("CancellationError") }, "\(result.stderr)")
        #expect(!result.stderr.contains("222:wrong-token-0123456789abcdefghijklm"))
    }

    /// A wrong API URL is not a wrong token: the message names the 404 and both suspects.
    @Test func runAndCheckNameA404AsA404() async throws {
        let nothingHere = try await FakeHTTPServer.start { _ in .json(#"{"ok":false,"error_code":404,"description":"Not Found"}"#, status: 404) }
        let refusing = try RefusingPort()
        let apiURL = nothingHere.baseURL.appendingPathComponent("wrong/path").absoluteString
        let environment = [
            "TELEGRAM_BOT_TOKEN": "111:some-token-0123456789abcdefghijklmn", "TELEGRAM_API_URL": apiURL,
            "LASTFM_API_KEY": BotHarness.lastFMKey, "LASTFM_API_URL": refusing.baseURL.appendingPathComponent("2.0/").absoluteString,
            "LISTENBRAINZ_API_URL": refusing.baseURL.appendingPathComponent("1/").absoluteString,
            "LIBREFM_API_URL": refusing.baseURL.appendingPathComponent("librefm/").absoluteString,
        ]
        var quietRun = environment
        quietRun["LOG_LEVEL"] = "error"
        let run = try await Executable.run(["run"], environment: quietRun)
        let check = try await Executable.run(["check"], environment: environment)
        await nothingHere.stop()

        #expect(run.status != 0)
        #expect(!run.stderr.split(separator: "\n").contains { $0.contains(" error ") || $0.contains("CancellationError") }, "\(run.stderr)")
        #expect(run.stderr.contains("\(apiURL) answered 404 Not Found: the API URL or the bot token is wrong; check TELEGRAM_API_URL and TELEGRAM_BOT_TOKEN."))
        #expect(!run.stderr.contains("401 Unauthorized"))
        #expect(!run.stderr.contains("111:some-token-0123456789abcdefghijklmn"))

        // check: one line per service and nothing else, each naming where it asked and why it failed.
        #expect(check.status != 0)
        #expect(check.stderr.isEmpty, "\(check.stderr)")
        let lines = check.stdout.split(separator: "\n")
        #expect(lines.count == 4, "\(check.stdout)")
        guard lines.count == 4 else { return }
        #expect(lines[0] == "Telegram: \(apiURL) answered 404 Not Found: the API URL or the bot token is wrong; check TELEGRAM_API_URL and TELEGRAM_BOT_TOKEN.")
        #expect(lines[1].hasPrefix("Last.fm: could not ask \(refusing.baseURL.absoluteString)/2.0/: network: "), "\(lines[1])")
        #expect(lines[1].contains("connect"), "\(lines[1])")
        #expect(lines[2].hasPrefix("ListenBrainz: could not ask \(refusing.baseURL.absoluteString)/1/: network: "), "\(lines[2])")
        #expect(lines[3].hasPrefix("Libre.fm: could not ask \(refusing.baseURL.absoluteString)/librefm/: network: "), "\(lines[3])")
    }

    @Test func theThrowbackCommandPrintsOneSummary() async throws {
        let result = try await Executable.run(["throwback", "bob", "2", "--demo"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("bob · week of "))
    }

    /// The README's examples of each service, in the demo.
    @Test(arguments: ["lb:bob", "librefm:carol"])
    func theThrowbackCommandPrintsAChartOfEveryServiceInTheDemo(name: String) async throws {
        let result = try await Executable.run(["throwback", name, "3", "--demo"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("\(name) · week of "), "\(result.stdout)")
        #expect(result.stdout.contains(", 3 years ago"), "\(result.stdout)")
    }

    @Test(arguments: ["console", "throwback"])
    func theHelpNamesTheDemosUsers(command: String) async throws {
        let result = try await Executable.run([command, "--help"])
        #expect(result.status == 0, "\(result.stderr)")
        let help = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for name in ["alice", "bob", "carol", "dave", "lb:bob", "librefm:carol", "lb:erin"] { #expect(help.contains(name), "\(help)") }
    }

    @Test func theDemoThrowbackWritesACollageOffline() async throws {
        let folder = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("a.jpg").path
        let result = try await Executable.run(["throwback", "alice", "3", "--demo", "--collage", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("Collage written to \(path)\n"))
        let info = try ImageInfo(inspecting: try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(info.format == .jpeg)
        #expect(info.dimensions == ImageDimensions(width: 900, height: 900))
    }

    /// libgd and the forty codec libraries it depends on (about 6 MiB resident) are opened
    /// when the first collage is drawn, not at start. glibc's `LD_DEBUG=files` names every
    /// library the process loads, `dlopen` included.
    @Test func libgdIsLoadedOnlyWhenACollageIsDrawn() async throws {
        let text = try await Executable.run(["throwback", "alice", "3", "--demo"], environment: ["LD_DEBUG": "files"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stderr.contains("libcurl.so.4"), "LD_DEBUG lists the libraries loaded at start")
        #expect(!text.stderr.contains("libgd.so.3"))

        let folder = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("a.jpg").path
        let collage = try await Executable.run(["throwback", "alice", "3", "--demo", "--collage", path], environment: ["LD_DEBUG": "files"])
        #expect(collage.status == 0, "\(collage.stderr)")
        #expect(collage.stderr.contains("libgd.so.3"))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func theDemoConsoleWritesCollagesWhereAsked() async throws {
        let folder = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await Executable.run(["console", "--demo", "--collage-dir", folder.path], input: "throwback alice 3\ncollage off\ntb bob 2\n")
        #expect(result.status == 0, "\(result.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(written.count == 1)
        let name = try #require(written.first)
        #expect(name.hasPrefix("alice-") && name.hasSuffix("-3y.jpg"))
        #expect(result.stdout.contains("Collage written to \(folder.appendingPathComponent(name).path)"))
        #expect(result.stdout.contains("Collages are off."))
        _ = try ImageInfo(inspecting: try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    @Test func aCollageFileThatCannotBeWrittenIsRefusedAtStartInOneLine() async throws {
        let folder = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let intoFolder = try await Executable.run(["throwback", "alice", "3", "--demo", "--collage", folder.path])
        #expect(intoFolder.status == 64)
        #expect(intoFolder.stdout.isEmpty)
        #expect(intoFolder.stderr == "--collage: \(folder.path) is a folder; give a file name, such as \(folder.path)/collage.jpg.\n")

        let noFolder = try await Executable.run(["throwback", "alice", "3", "--demo", "--collage", folder.path + "/missing/a.jpg"])
        #expect(noFolder.status == 64)
        #expect(noFolder.stderr == "--collage: there is no folder \(folder.path)/missing.\n")
    }

    @Test func aCollageFolderThatDoesNotExistIsCreatedAndAFileIsRefusedInOneLine() async throws {
        let folder = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let created = folder.appendingPathComponent("new/collages")
        let console = try await Executable.run(["console", "--demo", "--collage-dir", created.path], input: "throwback alice 3\n")
        #expect(console.status == 0, "\(console.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: created.path)
        #expect(written.count == 1 && written.allSatisfy { $0.hasSuffix(".jpg") }, "\(written)")

        let file = folder.appendingPathComponent("notes.txt")
        try Data("x".utf8).write(to: file)
        let refused = try await Executable.run(["console", "--demo", "--collage-dir", file.path], input: "throwback alice 3\n")
        #expect(refused.status == 64)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr == "--collage-dir: \(file.path) is a file, not a folder.\n")
    }

    @Test func collageOnNamesTheCurrentFolderByItsPath() async throws {
        let folder = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let here = folder.resolvingSymlinksInPath().path
        let result = try await Executable.start(["console", "--demo"], in: folder, input: "collage on\nthrowback alice 3\n").result()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Collages will be written to \(here).\n"), "\(result.stdout)")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
        #expect(result.stdout.contains("Collage written to \(here)/\(name)\n"), "\(result.stdout)")
    }

    /// `run` is the default, so a mistyped subcommand used to be read as an argument of `run`.
    @Test func aMistypedSubcommandIsNamedWithTheOneMeant() async throws {
        let typo = try await Executable.run(["consol", "--demo"])
        #expect(typo.status == 64)
        #expect(typo.stdout.isEmpty)
        #expect(typo.stderr == "unknown command 'consol'; did you mean 'console'?\n")

        let unknown = try await Executable.run(["frobnicate"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("unknown command 'frobnicate'; the commands are run, console, throwback,"), "\(unknown.stderr)")
        #expect(unknown.stderr.split(separator: "\n").count == 1)
    }

    @Test func badArgumentsAreRefusedClearly() async throws {
        let result = try await Executable.run(["throwback", "alice", "0", "--demo"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("out of range"))
    }

    private func botEnvironment(_ telegram: URL, _ lastFM: URL, token: String, key: String, level: String) -> [String: String] {
        Executable.botEnvironment(telegram, lastFM, token: token, key: key, level: level)
    }

    @Test func sigtermEndsTheBotCleanlyWithEverySlotBlockedAndTheWorkIsDoneOnceAfterTheRestart() async throws {
        let harness = try await BotHarness.start()
        let gates = await harness.slowUsers(20)
        for chat in 1...20 {
            await harness.telegram.pushMessage("/tb slow\(chat) 3", chatID: -Int64(chat), userID: Int64(chat), messageID: Int64(chat))
        }
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = botEnvironment(harness.telegramURL, harness.lastFMURL, token: harness.telegram.token, key: BotHarness.lastFMKey, level: "error")
        let first = try Executable.start(["run"], in: directory, environment: environment)
        try await harness.lastFM.waitForCalls(count: 16)
        first.terminate()
        let stopped = await first.result()
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(await harness.telegram.delivered.isEmpty)

        for gate in gates { await gate.open() }
        let second = try Executable.start(["run"], in: directory, environment: environment)
        try await harness.telegram.waitForCalls("sendMessage", count: 20)
        second.terminate()
        #expect(await second.result().status == 0)
        let answered = await harness.telegram.delivered.compactMap(\.replyToMessageID)
        #expect(answered.sorted() == (1...20).map { Int64($0) })
        await harness.stop()
    }

    @Test func atTraceLevelTheBinaryLogsNeitherSecretWhileBothAPIsFail() async throws {
        let harness = try await BotHarness.start()
        let token = harness.telegram.token
        await harness.telegram.inject(.raw(status: 502, body: "<html>proxy error for /bot\(token)/getUpdates</html>"), method: "getUpdates")
        await harness.telegram.inject(.error(code: 500, description: "upstream failed: /bot\(token)/sendMessage"), method: "sendMessage")
        await harness.lastFM.inject(.raw(status: 502, body: "<html>api_key=\(BotHarness.lastFMKey)</html>"), times: 2)
        await harness.telegram.pushMessage("/tb alice 3", chatID: -1)
        await harness.telegram.pushMessage("/link nobody_here", chatID: -1)
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let running = try Executable.start(["run"], in: directory, environment: botEnvironment(
            harness.telegramURL, harness.lastFMURL, token: token, key: BotHarness.lastFMKey, level: "trace"
        ))
        try await harness.telegram.waitForCalls("sendMessage", count: 3)
        running.terminate()
        let result = await running.result()
        #expect(result.status == 0)
        #expect(result.stderr.contains("Telegram polling failed"))
        #expect(!result.stderr.contains(token))
        #expect(!result.stderr.contains(BotHarness.lastFMKey))
        await harness.stop()
    }

    @Test func theDemoConsoleShowsAWeeklyPost() async throws {
        let result = try await Executable.run(["console", "--demo"], input: "track alice\ntrack bob\npostnow\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("This week one year ago"))
        let post = try #require(result.stdout.range(of: "This week one year ago"))
        let text = result.stdout[post.lowerBound...]
        #expect(text.contains("alice") && text.contains("bob"))
        #expect(text.range(of: "alice")!.lowerBound < text.range(of: "bob")!.lowerBound)
        #expect(!text.contains("<b>"))
    }

    /// Inline mode is Telegram's: in a terminal, help does not send people to type a username.
    @Test func theConsoleHelpLeavesOutInlineMode() async throws {
        let result = try await Executable.run(["console", "--demo"], input: "help\nhelp link\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.components(separatedBy: "throwback [user] [years]").count == 3, "\(result.stdout)")
        #expect(!result.stdout.contains("username"), "\(result.stdout)")
    }

    /// Foundation calls UTC "GMT"; the weekly replies say the zone as the admin wrote it.
    @Test func theWeeklyRepliesNameUTCAsUTC() async throws {
        let result = try await Executable.run(["console", "--demo"], input: "weekly mon 09:00 UTC\nweekly on\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("(mon 09:00 UTC)"), "\(result.stdout)")
        #expect(result.stdout.contains(", 09:00 (UTC)."), "\(result.stdout)")
        #expect(!result.stdout.contains("GMT"), "\(result.stdout)")
    }

    @Test func postWeeklyPostsOnceAWeekUnlessForcedAndDryRunSendsNothing() async throws {
        let harness = try await BotHarness.start()
        let chat: Int64 = -9500
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("vinylogue.sqlite").path
        _ = try await BotStore(path: database).addToRoster(["alice", "bob"], chat: chat, limit: 50)
        // Due every week from Sunday 12:01 UTC, just after the Last.fm week starts: due whenever this runs.
        var environment = botEnvironment(harness.telegramURL, harness.lastFMURL, token: harness.telegram.token, key: BotHarness.lastFMKey, level: "warning")
        environment["THROWBACK_CHAT_ID"] = "\(chat)"
        environment["THROWBACK_SCHEDULE"] = "sun 12:01"
        let run = { (arguments: [String]) in
            try await Executable.start(arguments, in: directory, environment: environment).result()
        }
        // A dry run sends nothing, so it needs no token.
        var withoutToken = environment
        withoutToken["TELEGRAM_BOT_TOKEN"] = nil
        let dry = try await Executable.start(["post-weekly", "--dry-run"], in: directory, environment: withoutToken).result()
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("This week one year ago") && dry.stdout.contains("alice"))
        #expect(await harness.telegram.calls("sendMessage").isEmpty)

        let first = try await run(["post-weekly"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("chat \(chat): posted 1 message for 2 users"))
        let again = try await run(["post-weekly"])
        #expect(again.stdout.contains("No chat has a weekly post due"))
        let forced = try await run(["post-weekly", "--force", "--chat", "\(chat)"])
        #expect(forced.stdout.contains("posted 1 message"))
        #expect(await harness.telegram.delivered.count == 2)
        await harness.stop()
    }

    @Test func jsonLogsAreOneObjectALineWithoutSecrets() async throws {
        let harness = try await BotHarness.start()
        let token = harness.telegram.token
        await harness.telegram.inject(.error(code: 500, description: "upstream failed: /bot\(token)/sendMessage"), method: "sendMessage")
        await harness.lastFM.inject(.raw(status: 502, body: "<html>api_key=\(BotHarness.lastFMKey)</html>"))
        await harness.telegram.pushMessage("/tb alice 3", chatID: -1)
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var environment = botEnvironment(harness.telegramURL, harness.lastFMURL, token: token, key: BotHarness.lastFMKey, level: "trace")
        environment["LOG_FORMAT"] = "json"
        let running = try Executable.start(["run"], in: directory, environment: environment)
        try await harness.telegram.waitForCalls("sendMessage", count: 2)
        running.terminate()
        let result = await running.result()
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count > 5)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["level"] is String && object?["message"] is String && object?["ts"] is String, "\(line)")
        }
        #expect(result.stderr.contains("starting vinylogue-bot"))
        #expect(result.stderr.contains("TELEGRAM_BOT_TOKEN=set"))
        #expect(result.stderr.contains("THROWBACK_TIMEZONE=UTC "))
        #expect(!result.stderr.contains(token))
        #expect(!result.stderr.contains(BotHarness.lastFMKey))
        await harness.stop()
    }

    @Test func backupWritesADatabaseThatOpensWithTheSameRosters() async throws {
        let directory = try Executable.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try BotStore(path: directory.appendingPathComponent("vinylogue.sqlite").path)
        _ = try await store.addToRoster(["alice", "Bob"], chat: -42, limit: 50)
        let copy = directory.appendingPathComponent("backup.sqlite").path
        let result = try await Executable.start(["backup", copy], in: directory).result()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await BotStore(path: copy).roster(of: -42).map(\.lastFMName) == ["alice", "Bob"])
        let again = try await Executable.start(["backup", copy], in: directory).result()
        #expect(again.status != 0)
        #expect(again.stderr.contains("already exists"))
    }

    @Test(arguments: [["--help"], ["run", "--help"], ["console", "--help"], ["throwback", "--help"], ["post-weekly", "--help"], ["chats", "--help"],
                      ["check", "--help"], ["healthcheck", "--help"], ["backup", "--help"], ["--version"], ["help"], ["help", "console"]])
    func everySubcommandExplainsItself(arguments: [String]) async throws {
        let result = try await Executable.run(arguments)
        #expect(result.status == 0)
        #expect(!result.stdout.isEmpty)
        // A line continuation written as an escaped backslash shows up in the help.
        #expect(!result.stdout.contains("\\"), "\(result.stdout)")
    }
}
