import Foundation
import Testing
import TestSupport

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
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Swift.Result { try runBlocking(arguments, input: input, environment: environment) })
            }
        }
    }

    private static func runBlocking(_ arguments: [String], input: String, environment: [String: String]) throws -> Result {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vinylogue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        process.currentDirectoryURL = directory
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }
}

@Suite(.timeLimit(.minutes(2))) struct ExecutableTests {
    @Test func theDemoConsoleAnswersInOrderAndExitsZero() async throws {
        let result = try await Executable.run(
            ["console", "--demo"], input: "throwback alice 3\nthrowback nobody_here 2\ntb alice banana\n"
        )
        #expect(result.status == 0, "\(result.stderr)")
        let replies = result.stdout.components(separatedBy: "\n\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        #expect(replies.count == 3, "\(result.stdout)")
        guard replies.count == 3 else { return }
        #expect(replies[0].hasPrefix("alice · week of "))
        #expect(replies[0].contains(", 3 years ago"))
        #expect(replies[0].contains("1. "))
        #expect(replies[1] == "No Last.fm user is called “nobody_here”.")
        #expect(replies[2].contains("Usage: throwback [user] [years]"))
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
            let result = try await Executable.run(arguments, environment: ["LASTFM_API_KEY": "k"])
            #expect(result.status != 0)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("TELEGRAM_BOT_TOKEN is not set"))
        }
    }

    @Test func runWithARejectedTokenExitsWithAClearMessage() async throws {
        let telegram = FakeTelegram(token: "111:right-token")
        let url = try await telegram.start()
        let result = try await Executable.run(["run"], environment: [
            "TELEGRAM_BOT_TOKEN": "222:wrong-token", "TELEGRAM_API_URL": url.absoluteString,
            "LASTFM_API_KEY": "k", "LOG_LEVEL": "error",
        ])
        await telegram.stop()
        #expect(result.status != 0)
        #expect(result.stderr.contains("Telegram rejected the bot token (401 Unauthorized)"))
        #expect(!result.stderr.contains("222:wrong-token"))
    }

    @Test func theThrowbackCommandPrintsOneSummary() async throws {
        let result = try await Executable.run(["throwback", "bob", "2", "--demo"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("bob · week of "))
    }

    @Test func badArgumentsAreRefusedClearly() async throws {
        let result = try await Executable.run(["throwback", "alice", "0", "--demo"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("out of range"))
    }
}
