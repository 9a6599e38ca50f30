import Dispatch
import Foundation
import Synchronization

/// A throwaway PostgreSQL server for the bot to keep its state in, as `scripts/test` makes
/// one: a cluster made by `initdb` in a temporary directory, its server started on a free
/// loopback port with trusted local logins, and stopped and removed by `remove()`, or when
/// this tool is interrupted (SIGINT, SIGTERM).
///
/// The server keeps PostgreSQL's defaults (`fsync` on): as a deployment runs it, so that a
/// synced commit costs what it costs there. PostgreSQL refuses to run as root, so as root
/// the cluster belongs to `nobody`.
final class PostgresCluster: Sendable {
    let port: Int
    /// The temporary directory: the cluster's data, its log and its socket.
    private let directory: URL
    private let binaries: URL
    private let postmaster: Int32
    private let databases = Atomic<Int>(0)
    private let removed = Atomic<Bool>(false)
    private let interruptions: Mutex<[any DispatchSourceSignal]>

    private static let user = "vinylogue"

    /// Makes and starts a cluster. On failure nothing is left behind, and the server's log says why.
    static func start() async throws -> PostgresCluster {
        let binaries = try findBinaries()
        let directory = try temporaryDirectory("postgres")
        do {
            if getuid() == 0 {
                guard let nobody = getpwnam("nobody"), chown(directory.path, nobody.pointee.pw_uid, nobody.pointee.pw_gid) == 0 else {
                    throw LoadError("cannot give \(directory.path) to nobody, whom a root run's PostgreSQL runs as")
                }
            }
            try await ExternalProgram.output(asOwner([
                binaries.appendingPathComponent("initdb").path, "-D", "data", "-U", user, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync",
            ]), in: directory)
            let port = try await startServer(binaries, in: directory)
            let pidFile = try String(contentsOf: directory.appendingPathComponent("data/postmaster.pid"), encoding: .utf8)
            guard let postmaster = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }) else {
                throw LoadError("cannot read the PostgreSQL server's pid from postmaster.pid")
            }
            return PostgresCluster(port: port, directory: directory, binaries: binaries, postmaster: postmaster)
        } catch {
            stop(binaries, in: directory)
            throw error
        }
    }

    private init(port: Int, directory: URL, binaries: URL, postmaster: Int32) {
        self.port = port
        self.directory = directory
        self.binaries = binaries
        self.postmaster = postmaster
        // An interrupted run still removes its server: the handler runs on a queue, not in
        // the signal's context, and the default action is off while it is installed.
        var sources: [any DispatchSourceSignal] = []
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, 143)] {
            Glibc.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler {
                Self.stop(binaries, in: directory)
                exit(status)
            }
            source.resume()
            sources.append(source)
        }
        interruptions = Mutex(sources)
    }

    /// A new, empty database on this server, as a `DATABASE_URL`.
    func freshDatabase() async throws -> String {
        let name = "round_\(databases.add(1, ordering: .relaxed).newValue)"
        try await ExternalProgram.run(
            [binaries.appendingPathComponent("createdb").path, "-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, name], in: directory
        )
        return "postgres://\(Self.user)@127.0.0.1:\(port)/\(name)?sslmode=disable"
    }

    /// The server's CPU time so far: the postmaster's, its background processes' and every
    /// connection's, ended ones included.
    var cpuTime: Duration? { ProcFS.treeCPUTime(pid: postmaster) }

    /// Stops the server at once and removes its directory; again does nothing.
    func remove() {
        guard !removed.exchange(true, ordering: .relaxed) else { return }
        Self.stop(binaries, in: directory)
        for source in interruptions.withLock({ $0 }) { source.cancel() }
        for signal in [SIGINT, SIGTERM] { Glibc.signal(signal, SIG_DFL) }
    }

    /// Starts the server on a free loopback port and returns the port. A port free now may be
    /// taken before the server binds it, so a few are tried.
    ///
    /// The server runs in the foreground, as this tool's child, rather than as `pg_ctl start`'s
    /// daemon: Foundation learns that a child ended when a descriptor the child inherited
    /// closes, and a daemon started by that child keeps it open, so `pg_ctl start` would never
    /// be seen to end.
    private static func startServer(_ binaries: URL, in directory: URL) async throws -> Int {
        for _ in 1...5 {
            let port = Int.random(in: 20000..<60000)
            let server = try ChildProcess.spawn(
                URL(fileURLWithPath: "/usr/bin/env"),
                asOwner([
                    binaries.appendingPathComponent("postgres").path, "-D", "data",
                    "-c", "listen_addresses=127.0.0.1", "-p", "\(port)", "-k", directory.path,
                ]),
                environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"], in: directory
            )
            // Ready when the server says so in its pid file, as `pg_ctl -w` waits for it.
            let ready = await poll(timeout: .seconds(30), every: .milliseconds(50)) {
                server.exited != nil || Self.isReady(directory)
            }
            if ready && server.exited == nil { return port }
            let log = server.stderrTail(30).joined(separator: "\n")
            server.terminate()
            _ = await server.waitForExit(timeout: .seconds(10))
            if !log.contains("could not bind") && !log.contains("Address already in use") {
                throw LoadError("PostgreSQL did not start on 127.0.0.1:\(port)\n---- its log ----\n\(log)")
            }
        }
        throw LoadError("PostgreSQL found no free port on 127.0.0.1 in 5 tries")
    }

    /// Whether `postmaster.pid` says the server accepts connections (its 8th line, "ready").
    private static func isReady(_ directory: URL) -> Bool {
        let text = (try? String(contentsOf: directory.appendingPathComponent("data/postmaster.pid"), encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.count > 7 && lines[7].trimmingCharacters(in: .whitespaces) == "ready"
    }

    /// `pg_ctl stop -m immediate` if the server runs, then the directory removed; blocking, so
    /// that a signal handler can use it.
    private static func stop(_ binaries: URL, in directory: URL) {
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/postmaster.pid").path) {
            ExternalProgram.runBlocking(
                asOwner([binaries.appendingPathComponent("pg_ctl").path, "-D", "data", "-m", "immediate", "-w", "stop"]), in: directory
            )
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A server command as the cluster's owner: `nobody` when this tool runs as root.
    private static func asOwner(_ arguments: [String]) -> [String] {
        getuid() == 0 ? ["runuser", "-u", "nobody", "--"] + arguments : arguments
    }

    /// The folder of `initdb`, `pg_ctl` and `createdb`: that of the `initdb` on `PATH` (often a
    /// link into it), else Debian's newest under `/usr/lib/postgresql/<version>/bin`.
    private static func findBinaries() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let initdb = URL(fileURLWithPath: String(folder)).appendingPathComponent("initdb")
            if FileManager.default.isExecutableFile(atPath: initdb.path) {
                return initdb.resolvingSymlinksInPath().deletingLastPathComponent()
            }
        }
        let debian = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: debian.path)) ?? []
        if let newest = versions.compactMap(Int.init).sorted().last {
            return debian.appendingPathComponent("\(newest)/bin")
        }
        throw LoadError("--postgres needs PostgreSQL's initdb and pg_ctl: install PostgreSQL (Debian: apt-get install postgresql-15)")
    }
}
