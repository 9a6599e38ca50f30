import ArgumentParser
import CMalloc
import Foundation
import Throwback

@main
struct VinylogueBot: AsyncParsableCommand {
    /// This release, for `--version`.
    static let version = "1.0.0"

    static let configuration = CommandConfiguration(
        commandName: "vinylogue-bot",
        abstract: "Relive your music history: Last.fm throwbacks for group chats.",
        discussion: "Configuration comes from the environment and from .env in the working directory; see .env.example.",
        version: version,
        subcommands: [
            RunCommand.self, ConsoleCommand.self, ThrowbackCLICommand.self, PostWeeklyCommand.self, ChatsCommand.self, CheckCommand.self,
            HealthcheckCommand.self, BackupCommand.self,
        ],
        defaultSubcommand: RunCommand.self
    )

    static func main() async {
        limitMallocArenas()
        if let word = CommandLine.arguments.dropFirst().first, let problem = unknownCommand(word) {
            FileHandle.standardError.write(Data((problem + "\n").utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        await main(nil)
    }

    /// One malloc arena instead of glibc's eight per core, each of which keeps memory freed in
    /// it, however the binary is started (the deploy files used to set it in the environment).
    /// An environment that sets the limit itself (`GLIBC_TUNABLES=glibc.malloc.arena_max=…`) wins.
    static func limitMallocArenas() {
        if let tunables = getenv("GLIBC_TUNABLES"), String(cString: tunables).contains("glibc.malloc.arena_max") { return }
        cmalloc_limit_arenas(1)
    }

    /// What to say when `word`, the first argument, is neither an option nor a subcommand.
    /// Without this, `run`, the default, would take it and complain about whatever follows.
    static func unknownCommand(_ word: String) -> String? {
        let names = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        guard !word.hasPrefix("-"), !names.contains(word) else { return nil }
        let shown = word.prefix(40)
        guard let meant = NearMiss.of(word, among: names, maxDistance: word.count < 4 ? 1 : 2) else {
            return "unknown command '\(shown)'; the commands are \(names.dropLast().joined(separator: ", ")) (see vinylogue-bot --help)"
        }
        return "unknown command '\(shown)'; did you mean '\(meant)'?"
    }
}
