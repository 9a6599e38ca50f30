import ArgumentParser
import Foundation

/// Builds the release `vinylogue-bot` binaries to measure: this checkout's, and any git
/// ref's, each in a scratch folder of its own.
struct Builds {
    /// The package root: the folder with the `Package.swift` of vinylogue-bot.
    let root: URL

    /// Finds the package root above the current directory or above this executable (which
    /// `swift run` runs from `.build/<configuration>/`).
    static func findRoot() throws -> Builds {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map(URL.init(fileURLWithPath:))
        for start in [here, executable?.deletingLastPathComponent()].compactMap({ $0 }) {
            var folder = start.standardizedFileURL
            while folder.path != "/" {
                let manifest = folder.appendingPathComponent("Package.swift")
                if let text = try? String(contentsOf: manifest, encoding: .utf8), text.contains(#"name: "vinylogue-bot""#) {
                    return Builds(root: folder)
                }
                folder.deleteLastPathComponent()
            }
        }
        throw LoadError("cannot find the vinylogue-bot package: run this from the repository root")
    }

    /// How a binary is linked.
    enum Linking: String, CaseIterable, ExpressibleByArgument {
        /// The Swift runtime and Foundation linked in (`--static-swift-stdlib`): how this
        /// version's README runs the bot and how it is deployed.
        case `static`
        /// Linked against the toolchain's shared Swift libraries: plain `swift build -c
        /// release`, as READMEs before the deploy files ran the bot.
        case shared

        var flags: [String] {
            ["-c", "release", "--product", "vinylogue-bot"] + (self == .static ? ["--static-swift-stdlib"] : [])
        }
    }

    /// This checkout's binary, built (or brought up to date) first in `.build-static/`: a
    /// scratch path of its own, because `swift run` builds this tool without the static
    /// runtime, and sharing `.build/` would rebuild everything each time the two alternate.
    func currentBinary() async throws -> URL {
        let scratch = root.appendingPathComponent(".build-static")
        log("building the current vinylogue-bot (release, static Swift runtime) in \(relative(scratch))…")
        try await ExternalProgram.run(["swift", "build", "--package-path", root.path, "--scratch-path", scratch.path] + Linking.static.flags)
        return scratch.appendingPathComponent("release/vinylogue-bot")
    }

    /// This checkout's binary with the `PostgreSQL` trait, built in `.build-static-postgres/`:
    /// the trait changes what the bot's own modules are compiled with, so it gets a scratch
    /// path of its own, and measuring it beside the SQLite build never rebuilds either.
    func currentPostgresBinary() async throws -> URL {
        let scratch = root.appendingPathComponent(".build-static-postgres")
        log("building the current vinylogue-bot with PostgreSQL (release, static Swift runtime) in \(relative(scratch)); the first time takes several minutes…")
        try await ExternalProgram.run(
            ["swift", "build", "--package-path", root.path, "--scratch-path", scratch.path, "--traits", "PostgreSQL"] + Linking.static.flags
        )
        return scratch.appendingPathComponent("release/vinylogue-bot")
    }

    /// The release binary of `ref`, from `.build-compare/<ref>/`: its sources (from
    /// `git archive`, so the working tree is never touched) and its own scratch path. The
    /// sources are extracted once per commit (again if the ref now names another commit, a
    /// branch that moved); the build always runs, and does nothing when it is up to date.
    func binary(at ref: String, linking: Linking) async throws -> (binary: URL, commit: String) {
        let commit = try await ExternalProgram.output(["git", "-C", root.path, "rev-parse", "--verify", "\(ref)^{commit}"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let folder = root.appendingPathComponent(".build-compare/\(Self.folderName(ref))")
        let source = folder.appendingPathComponent("src")
        // One scratch path per way of linking, so that measuring both never rebuilds either.
        let scratch = folder.appendingPathComponent(linking == .static ? "build" : "build-shared")
        let stamp = folder.appendingPathComponent("commit")
        if (try? String(contentsOf: stamp, encoding: .utf8)) != commit {
            log("extracting \(ref) (\(commit.prefix(12))) into \(relative(source))…")
            try? FileManager.default.removeItem(at: source)
            try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
            try await extract(commit, into: source)
            try Data(commit.utf8).write(to: stamp)
        }
        log("building \(ref) (release, \(linking) Swift runtime) in \(relative(scratch)); the first time takes several minutes…")
        try await ExternalProgram.run(["swift", "build", "--package-path", source.path, "--scratch-path", scratch.path] + linking.flags)
        return (scratch.appendingPathComponent("release/vinylogue-bot"), commit)
    }

    /// A ref as a folder name: `origin/main` → `origin_main`.
    static func folderName(_ ref: String) -> String {
        String(ref.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "_" })
    }

    func relative(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        let prefix = root.standardizedFileURL.path + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// `git archive <commit> | tar -x -C <folder>`.
    private func extract(_ commit: String, into folder: URL) async throws {
        let pipe = Pipe()
        let git = ExternalProgram.make(["git", "-C", root.path, "archive", "--format=tar", commit])
        git.standardOutput = pipe
        let tar = ExternalProgram.make(["tar", "-x", "-C", folder.path])
        tar.standardInput = pipe
        try tar.run()
        try git.run()
        // Only the children hold the pipe now: tar sees the end of input when git exits.
        try pipe.fileHandleForReading.close()
        try pipe.fileHandleForWriting.close()
        for (name, process) in [("git archive", git), ("tar", tar)] {
            let status = await ExternalProgram.wait(process)
            if status != 0 { throw LoadError("\(name) failed (exit status \(status))") }
        }
    }
}

/// Progress, on stderr: stdout carries only the results.
func log(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
