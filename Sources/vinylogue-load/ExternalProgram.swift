import Foundation

/// Programs this tool runs to prepare a measurement (`swift build`, `git`, PostgreSQL's
/// `initdb` and `pg_ctl`), found on `PATH`, each waited for off the task pool.
enum ExternalProgram {
    /// Runs `arguments`, its output going to our stderr so that progress shows but never
    /// mixes with the results on stdout.
    static func run(_ arguments: [String], in directory: URL? = nil) async throws {
        let process = make(arguments, in: directory)
        process.standardOutput = FileHandle.standardError
        try process.run()
        let status = await wait(process)
        if status != 0 { throw LoadError("`\(arguments.prefix(3).joined(separator: " "))…` failed (exit status \(status))") }
    }

    /// Runs `arguments` and returns its stdout; its stderr goes to ours.
    @discardableResult
    static func output(_ arguments: [String], in directory: URL? = nil) async throws -> String {
        let process = make(arguments, in: directory)
        let file = try temporaryDirectory("output").appendingPathComponent("stdout")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        process.standardOutput = handle
        try process.run()
        try handle.close()
        let status = await wait(process)
        if status != 0 { throw LoadError("`\(arguments.joined(separator: " "))` failed (exit status \(status))") }
        return try String(contentsOf: file, encoding: .utf8)
    }

    /// Runs `arguments` to the end on this thread, its output discarded, and returns its exit
    /// status (nil if it could not start): for clean-up from a signal handler, where no task runs.
    @discardableResult
    static func runBlocking(_ arguments: [String], in directory: URL? = nil) -> Int32? {
        let process = make(arguments, in: directory)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A process for `arguments`, found on `PATH` by `env`.
    static func make(_ arguments: [String], in directory: URL? = nil) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        return process
    }

    /// Waits on a thread of its own: a build takes minutes, and blocking one of Swift's few
    /// cooperative threads that long would stall everything else.
    static func wait(_ process: Process) async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
    }
}
