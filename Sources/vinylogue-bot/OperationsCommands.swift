import ArgumentParser
import Foundation
import LastFM
import Logging
import Networking
import Telegram
import Throwback

/// `vinylogue-bot healthcheck`: exits 0 when the running bot is healthy, 1 otherwise.
struct HealthcheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "Exit 0 if the running bot is healthy, 1 if not (for container health checks).",
        discussion: """
            Healthy: Telegram answered a poll recently (on a webhook: Telegram took the webhook and \
            the HTTP server answers) and the database takes writes. With HTTP_PORT set it asks the \
            running bot's /healthz; without it, it reads when the bot last polled from the database, \
            where the bot notes it.
            """
    )

    func run() async throws {
        let environment = try await Environment.load()
        let configuration = environment.configuration
        guard let port = configuration.httpPort else {
            // A webhook is served on HTTP_PORT: without one, `run` refuses to start.
            if configuration.webhookURL != nil {
                print("unhealthy: TELEGRAM_WEBHOOK_URL is set without HTTP_PORT, so the bot cannot run")
                throw ExitCode.failure
            }
            guard let store = try await environment.openExistingStore() else {
                print("unhealthy: no database at \(configuration.databasePath)")
                throw ExitCode.failure
            }
            switch await BotHealth.checkStamped(in: store, pollTimeout: configuration.pollTimeout, now: Date()) {
            case .success(let seconds):
                print("healthy: Telegram answered a poll \(seconds) s ago, and the database takes writes")
            case .failure(let unhealthy):
                print("unhealthy: \(unhealthy.reason)")
                throw ExitCode.failure
            }
            return
        }
        // A server bound to every address answers on loopback.
        let bare = configuration.httpHost.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let host = ["0.0.0.0", "::", ""].contains(bare) ? "127.0.0.1" : bare
        guard let url = URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/healthz") else {
            print("unhealthy: HTTP_HOST “\(configuration.httpHost)” is not an address to ask")
            throw ExitCode.failure
        }
        do {
            let response = try await environment.transport.send(HTTPRequest(url: url, timeout: .seconds(5)))
            let body = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard response.status == 200 else {
                print("unhealthy: \(body.isEmpty ? "HTTP \(response.status)" : body)")
                throw ExitCode.failure
            }
            print("healthy")
        } catch let error as TransportError {
            print("unhealthy: \(url.absoluteString) did not answer (\(error.description))")
            throw ExitCode.failure
        }
    }
}

/// `vinylogue-bot backup <file>`: a consistent copy of the database, while the bot runs.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database to a new file with SQLite's online backup; safe while the bot runs."
    )

    @Argument(help: "The file to write; it must not exist yet.")
    var file: String

    func run() async throws {
        let environment = try await Environment.load()
        if let problem = OutputPath.problem(writingTo: file, example: "vinylogue-backup.sqlite") {
            throw Environment.fail(TerminalText.printable("Cannot write the backup: \(problem)."), code: .validationFailure)
        }
        guard !FileManager.default.fileExists(atPath: file) else {
            throw Environment.fail(TerminalText.printable("\(file) already exists; choose a new file name."), code: .validationFailure)
        }
        if environment.configuration.databaseURL != nil {
            throw Environment.fail(
                "The state is in PostgreSQL (DATABASE_URL), whose own tool backs it up while the bot runs: "
                    + "pg_dump --format=custom --file=vinylogue.dump \"$DATABASE_URL\" (see deploy/README.md).",
                code: .validationFailure
            )
        }
        do {
            guard let store = try await environment.openExistingStore() else {
                throw Environment.fail("There is no database at \(environment.configuration.databasePath) (DATABASE_PATH).")
            }
            try store.backup(to: file)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw Environment.fail("The backup failed: \(error)")
        }
        print("Backed up \(environment.configuration.databasePath) to \(file).")
    }
}
