import ArgumentParser

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
            RunCommand.self, ConsoleCommand.self, ThrowbackCLICommand.self, PostWeeklyCommand.self, CheckCommand.self,
            HealthcheckCommand.self, BackupCommand.self,
        ],
        defaultSubcommand: RunCommand.self
    )
}
