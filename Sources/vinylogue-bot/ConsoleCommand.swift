import ArgumentParser
import Foundation
import Throwback

/// `vinylogue-bot console [--demo] [--user-id N]`: chat with the bot in a terminal, one line
/// in, one reply out. It is a private chat with the bot, so every command is available;
/// links and rosters live in memory for the session.
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Chat with the bot in the terminal; exits at end of input."
    )

    @Flag(help: "Use built-in offline sample listening data (users alice, bob, carol, dave): no key, no network.")
    var demo = false

    @Option(help: "The Telegram user id to chat as (for link and admin commands).")
    var userID: Int64 = 1

    func run() async throws {
        let environment = try await Environment.load()
        let router = try environment.terminalCommands(demo: demo).router
        let context = CommandInvocation(chatID: userID, isPrivateChat: true, userID: userID)
        let interactive = isatty(STDIN_FILENO) == 1
        if interactive {
            print(demo ? "Demo mode: try “throwback alice 3”. Ctrl-D quits." : "Type a command, e.g. “help”. Ctrl-D quits.")
        }
        while true {
            if interactive { print("> ", terminator: "") }
            guard let line = readLine() else { break }
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            if let reply = await router.reply(to: line, context: context)?.rendered(with: .plain) {
                print(reply)
                print()
            }
        }
    }
}
