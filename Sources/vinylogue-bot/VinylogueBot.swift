import ArgumentParser

@main
struct VinylogueBot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vinylogue-bot",
        abstract: "Relive your music history: Last.fm throwbacks for group chats.",
        discussion: "Configuration comes from the environment and from .env in the working directory; see .env.example.",
        subcommands: [RunCommand.self, ConsoleCommand.self, ThrowbackCLICommand.self, PostWeeklyCommand.self],
        defaultSubcommand: RunCommand.self
    )
}
