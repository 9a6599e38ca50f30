import Foundation
import Synchronization

/// A process under measurement: spawned with exactly the environment given (nothing is
/// inherited, so a `.env` or a stray variable of the caller cannot change the result), in a
/// directory of its own, with its stdout and stderr going to files in that directory.
final class ChildProcess: Sendable {
    /// How the process ended, and when: the instant is taken in the termination handler, so
    /// a wall time measured up to it does not depend on how often anyone polls.
    struct Exit: Sendable {
        var status: Int32
        var signalled: Bool
        var at: ContinuousClock.Instant

        var description: String { signalled ? "killed by signal \(status)" : "exit status \(status)" }
    }

    let pid: Int32
    let spawnedAt: ContinuousClock.Instant
    let stdoutURL: URL
    let stderrURL: URL
    private let process: Process
    private let exit: ExitRecord

    /// Where the termination handler, on a thread of Foundation's, leaves the exit.
    private final class ExitRecord: Sendable {
        let value = Mutex<Exit?>(nil)
    }

    private init(process: Process, spawnedAt: ContinuousClock.Instant, stdoutURL: URL, stderrURL: URL, exit: ExitRecord) {
        self.process = process
        self.pid = process.processIdentifier
        self.spawnedAt = spawnedAt
        self.stdoutURL = stdoutURL
        self.stderrURL = stderrURL
        self.exit = exit
    }

    /// Starts `executable` with `arguments` in `directory`; `stdout.txt` and `stderr.txt`
    /// there collect its output (files, not pipes: a chatty child never blocks on a full pipe).
    static func spawn(_ executable: URL, _ arguments: [String], environment: [String: String], in directory: URL) throws -> ChildProcess {
        let stdoutURL = directory.appendingPathComponent("stdout.txt")
        let stderrURL = directory.appendingPathComponent("stderr.txt")
        for url in [stdoutURL, stderrURL] {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        }
        let stdout = try FileHandle(forWritingTo: stdoutURL)
        let stderr = try FileHandle(forWritingTo: stderrURL)
        defer {
            try? stdout.close()
            try? stderr.close()
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = stderr
        let exit = ExitRecord()
        process.terminationHandler = { process in
            let now = ContinuousClock.now
            exit.value.withLock { $0 = Exit(status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal, at: now) }
        }
        let spawnedAt = ContinuousClock.now
        try process.run()
        return ChildProcess(process: process, spawnedAt: spawnedAt, stdoutURL: stdoutURL, stderrURL: stderrURL, exit: exit)
    }

    /// How the process ended, once it has.
    var exited: Exit? { exit.value.withLock { $0 } }

    /// Asks the process to stop, as systemd or `docker stop` would.
    func terminate() {
        if exited == nil { Glibc.kill(pid, SIGTERM) }
    }

    /// Waits up to `timeout` for the process to end; kills it if it has not by then (a hung
    /// child must not hang the benchmark) and reports that as a nil.
    func waitForExit(timeout: Duration) async -> Exit? {
        if await poll(timeout: timeout, { self.exited != nil }) { return exited }
        Glibc.kill(pid, SIGKILL)
        _ = await poll(timeout: .seconds(5)) { self.exited != nil }
        return nil
    }

    /// Its CPU time so far (user + system).
    var cpuTime: Duration? { ProcFS.cpuTime(pid: pid) }

    /// Its anonymous resident memory now (`RssAnon`: heap and stacks), in bytes: what no
    /// page-cache effect moves, and what grows when the bot holds more.
    var anonymousBytes: Int? { ProcFS.statusBytes(pid: pid, field: "RssAnon") }

    /// Its proportional set size now (`Pss` in `smaps_rollup`), in bytes: its resident pages,
    /// each shared one divided among the processes that map it.
    var proportionalBytes: Int? { ProcFS.rollupBytes(pid: pid, field: "Pss") }

    /// The highest resident set it has had (`VmHWM`), in bytes, file pages included.
    var peakResidentBytes: Int? { ProcFS.statusBytes(pid: pid, field: "VmHWM") }

    /// Its context switches so far, summed over its threads.
    var contextSwitches: ProcFS.ContextSwitches? { ProcFS.contextSwitches(pid: pid) }

    /// The last `count` lines it wrote to stderr (empty if it wrote nothing).
    func stderrTail(_ count: Int = 15) -> [String] {
        let text = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
        return Array(text.split(separator: "\n", omittingEmptySubsequences: true).suffix(count).map(String.init))
    }

    /// Everything it wrote to stdout.
    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
}

/// Readers of Linux's `/proc/<pid>` files.
enum ProcFS {
    /// Clock ticks per second, the unit of the CPU times in `/proc/<pid>/stat`.
    static let ticksPerSecond = Int(sysconf(Int32(_SC_CLK_TCK)))

    /// `pid`'s CPU time so far (user + system, of every thread, those that ended too), to the
    /// nanosecond: its CPU-time clock. Not `/proc/<pid>/stat`'s, which counts in clock ticks of
    /// 10 ms: a burst of 2,000 warm updates takes about 400 ms of CPU, so a difference of two
    /// readings in ticks is off by up to 5%, and a ratio of two such differences by up to 10%.
    static func cpuTime(pid: Int32) -> Duration? {
        var clock = clockid_t()
        var time = timespec()
        guard clock_getcpuclockid(pid, &clock) == 0, clock_gettime(clock, &time) == 0 else { return nil }
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// The fields of `/proc/<pid>/stat` from field 3 (state) on, at offset 0: the command name
    /// (field 2) is in parentheses and may hold spaces, so the split starts after its last `)`.
    static func statFields(pid: Int32) -> [Substring]? {
        guard let text = read("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// A `kB` field of `/proc/<pid>/status`, such as `VmRSS`, in bytes.
    static func statusBytes(pid: Int32, field: String) -> Int? {
        guard let text = read("/proc/\(pid)/status") else { return nil }
        return self.field(in: text, field).map { $0 * 1024 }
    }

    /// A `kB` field of `/proc/<pid>/smaps_rollup`, such as `Pss`, in bytes.
    static func rollupBytes(pid: Int32, field: String) -> Int? {
        guard let text = read("/proc/\(pid)/smaps_rollup") else { return nil }
        return self.field(in: text, field).map { $0 * 1024 }
    }

    /// Voluntary switches are waits (a futex, a poll); involuntary ones are preemptions.
    struct ContextSwitches: Sendable {
        var voluntary = 0
        var involuntary = 0

        var total: Int { voluntary + involuntary }

        static func - (lhs: Self, rhs: Self) -> Self {
            Self(voluntary: lhs.voluntary - rhs.voluntary, involuntary: lhs.involuntary - rhs.involuntary)
        }
    }

    /// The context switches of every live thread of `pid`: `/proc/<pid>/status` counts only
    /// the main thread's, so each `/proc/<pid>/task/<tid>/status` is read. A thread that ended
    /// (an idle worker thread of the system's pool ends after a while) took its counts with it.
    static func contextSwitches(pid: Int32) -> ContextSwitches? {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        var sum = ContextSwitches()
        for thread in threads {
            guard let text = read("/proc/\(pid)/task/\(thread)/status") else { continue }
            sum.voluntary += field(in: text, "voluntary_ctxt_switches") ?? 0
            sum.involuntary += field(in: text, "nonvoluntary_ctxt_switches") ?? 0
        }
        return sum
    }

    /// The number after `name:` on its line of a `/proc` status-like text.
    private static func field(in text: String, _ name: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return line.dropFirst(name.count + 1).split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) }
        }
        return nil
    }

    /// The CPU time of this process's children that have ended and been waited for: the
    /// only way to read a child's CPU time after it exits, since its `/proc` entry is gone.
    static func endedChildrenCPUTime() -> Duration {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        func duration(_ time: timeval) -> Duration { .seconds(time.tv_sec) + .microseconds(time.tv_usec) }
        return duration(usage.ru_utime) + duration(usage.ru_stime)
    }

    /// `/proc` files report a size of 0, so they are read to the end rather than by size.
    private static func read(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return (try? handle.readToEnd()).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// Checks `condition` every `interval` until it holds (true) or `timeout` passes (false).
///
/// Polling rather than the fakes' `waitFor…` methods: those wait on a continuation that
/// nothing cancels, so a bot that never answers would hang the benchmark instead of
/// reporting how far it got.
func poll(
    timeout: Duration, every interval: Duration = .milliseconds(20), _ condition: @Sendable () async -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if await condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: interval)
    }
}
