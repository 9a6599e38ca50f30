import ArgumentParser
import Foundation
import Throwback

/// `vinylogue-bot console [--demo]`: chat with the bot in a terminal, one line in, one reply out.
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Chat with the bot in the terminal; exits at end of input."
    )

    @Flag(help: "Use built-in offline sample listening data (users alice, bob, carol, dave): no key, no network.")
    var demo = false

    func run() async throws {
        let environment = try await Environment.load()
        let lastFM = try environment.lastFMClient(demo: demo)
        let responder = CommandResponder(engine: ThrowbackEngine(lastFM: lastFM))
        let interactive = isatty(STDIN_FILENO) == 1
        if interactive {
            print(demo ? "Demo mode: try “throwback alice 3”. Ctrl-D quits." : "Type a command, e.g. “help”. Ctrl-D quits.")
        }
        while true {
            if interactive { print("> ", terminator: "") }
            guard let line = readLine() else { break }
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            if let reply = await responder.reply(to: line) {
                print(reply.rendered(with: .plain))
                print()
            }
        }
    }
}
