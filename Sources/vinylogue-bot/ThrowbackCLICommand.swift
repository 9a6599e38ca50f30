import ArgumentParser
import Foundation
import Throwback

/// `vinylogue-bot throwback <user> [years]`: print one summary and exit.
struct ThrowbackCLICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "throwback",
        abstract: "Print one user's throwback and exit."
    )

    @Argument(help: "A Last.fm username, or lb:name (ListenBrainz), librefm:name (Libre.fm).")
    var user: String

    @Argument(help: "How many years back (1–\(ThrowbackEngine.yearRange.upperBound)).")
    var years = 1

    @Option(name: .customLong("min-plays"), help: "Hide albums with fewer plays than this.")
    var minimumPlays = 1

    @Flag(help: ArgumentHelp("Use built-in offline sample listening data instead of the services. \(DemoListeningData().unknownUserHint)"))
    var demo = false

    @Option(help: ArgumentHelp("Also write the week's album-cover collage to this file: JPEG (.jpg), or PNG (.png).", valueName: "file"))
    var collage: String?

    @Option(help: ArgumentHelp("The language of the answer: \(Language.supported.map(\.rawValue).joined(separator: ", ")).", valueName: "code"))
    var language: Language = .english

    func validate() throws {
        guard ListenerName.isValid(user) else {
            throw ValidationError(ListenerName.syntaxHelp(user, in: language))
        }
        guard ThrowbackEngine.yearRange.contains(years) else {
            throw ValidationError(ThrowbackError.yearsOutOfRange(years).userMessage(in: language))
        }
    }

    func run() async throws {
        if let collage, let problem = CollageFile.problem(writingTo: collage) {
            throw Environment.fail(TerminalText.printable("--collage: \(problem)."), code: .validationFailure)
        }
        let environment = try await Environment.load()
        let session = try environment.terminalSession(demo: demo)
        let reply = await session.commands.throwback.throwback(user: user, yearsAgo: years, minimumPlayCount: minimumPlays, in: language)
        print(TerminalText.printable(reply.rendered(with: ChartFormatter.plain.speaking(language)) ?? ""))
        if case .text = reply { throw ExitCode.failure }
        if let collage {
            do {
                try await CollageFile.write(reply, to: collage, photos: session.photos)
                print("Collage written to \(TerminalText.printable(collage))")
            } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                throw ExitCode.failure
            }
        }
    }
}
