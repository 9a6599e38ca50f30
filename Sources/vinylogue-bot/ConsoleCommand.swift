import ArgumentParser
import Foundation
import Throwback

/// `vinylogue-bot console [--demo] [--user-id N]`: chat with the bot in a terminal, one line
/// in, one reply out. It is a private chat with the bot, so every command is available;
/// links and rosters live in memory for the session.
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Chat with the bot in the terminal; “quit”, “exit” or end of input ends it."
    )

    @Flag(help: ArgumentHelp("Use built-in offline sample listening data: no key, no network. \(DemoListeningData().unknownUserHint)"))
    var demo = false

    @Option(help: "The Telegram user id to chat as (for link and admin commands).")
    var userID: Int64 = 1

    @Option(help: ArgumentHelp(
        "The language the bot answers in, as a Telegram app in that language would have it: \(Language.supported.map(\.rawValue).joined(separator: ", ")).",
        valueName: "code"
    ))
    var language: Language = .english

    @Option(help: ArgumentHelp(
        "Write each throwback's album-cover collage into this folder, created if needed (typing “collage on” writes them to the current one).",
        valueName: "folder"
    ))
    var collageDir: String?

    func run() async throws {
        if let collageDir, let problem = OutputPath.problem(preparingFolder: collageDir) {
            throw Environment.fail(TerminalText.printable("--collage-dir: \(problem)."), code: .validationFailure)
        }
        let environment = try await Environment.load()
        let session = try environment.terminalSession(demo: demo)
        let router = session.commands.router
        var collageFolder = collageDir
        let context = CommandInvocation(chatID: userID, isPrivateChat: true, userID: userID, language: language)
        let formatter = ChartFormatter.plain.speaking(language)
        let interactive = isatty(STDIN_FILENO) == 1
        if interactive {
            print(demo ? "Demo mode: try “throwback alice 3”. “quit” or Ctrl-D quits." : "Type a command, e.g. “help”. “quit” or Ctrl-D quits.")
            print(collageDir.map { "Album-cover collages go to \(TerminalText.printable($0))." }
                ?? "“collage on” saves each throwback’s album-cover collage as a JPEG in this folder.")
        }
        while true {
            if interactive { print("> ", terminator: "") }
            guard let line = readLine() else {
                // Leave the shell's prompt on a line of its own after Ctrl-D.
                if interactive { print() }
                break
            }
            let command = line.trimmingCharacters(in: .whitespaces)
            if command.isEmpty { continue }
            if ["quit", "exit"].contains(command.lowercased()) { break }
            if let setting = Self.collageSetting(command) {
                // The current folder by its path: "." reads as the end of the sentence.
                collageFolder = setting ? (collageFolder ?? FileManager.default.currentDirectoryPath) : nil
                print(collageFolder.map { "Collages will be written to \(TerminalText.printable($0))." } ?? "Collages are off.")
                print()
                continue
            }
            guard let reply = await router.reply(to: line, context: context), let text = reply.rendered(with: formatter) else { continue }
            print(TerminalText.printable(text))
            if let folder = collageFolder, let summary = CollageFile.summary(in: reply) {
                let path = URL(fileURLWithPath: folder).appendingPathComponent(CollageFile.name(for: summary)).path
                do {
                    try await CollageFile.write(reply, to: path, photos: session.photos)
                    print(TerminalText.printable("Collage written to \(path)"))
                } catch {
                    print(TerminalText.printable("\(error)"))
                }
            }
            let moves = YearNavigation.moves(from: reply, in: language)
            if !moves.isEmpty {
                let choices = moves.map { "\($0.label): “throwback \($0.target.user) \($0.target.yearsAgo)”" }
                print(TerminalText.printable(choices.joined(separator: "   ")))
            }
            print()
        }
    }

    /// `collage on` / `collage off`: whether to write collages (a console setting, not a bot command).
    static func collageSetting(_ line: String) -> Bool? {
        switch line.lowercased().split(separator: " ", omittingEmptySubsequences: true) {
        case ["collage", "on"]: true
        case ["collage", "off"]: false
        default: nil
        }
    }
}
