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
            print(demo ? "Demo mode: try “throwback alice 3”. “quit” or Ctrl-D quits." : "Type a command, e.g. “help”. “quit” or Ctrl-D quits.")
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
            guard let reply = await router.reply(to: line, context: context), let text = reply.rendered(with: .plain) else { continue }
            print(TerminalText.printable(text))
            let moves = YearNavigation.moves(from: reply)
            if !moves.isEmpty {
                let choices = moves.map { "\($0.label): “throwback \($0.target.user) \($0.target.yearsAgo)”" }
                print(TerminalText.printable(choices.joined(separator: "   ")))
            }
            print()
        }
    }
}
