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
            With HTTP_PORT set it asks the running bot's /healthz, which is healthy while polling works \
            and the database takes writes. Without it, it only checks that the database takes writes.
            """
    )

    func run() async throws {
        let environment = try await Environment.load()
        let configuration = environment.configuration
        guard let port = configuration.httpPort else {
            do {
                guard let store = try environment.openExistingStore() else {
                    print("unhealthy: no database at \(configuration.databasePath)")
                    throw ExitCode.failure
                }
                try await store.checkWritable()
            } catch let exit as ExitCode {
                throw exit
            } catch {
                print("unhealthy: the database does not take writes: \(error)")
                throw ExitCode.failure
            }
            print("database OK; the HTTP endpoint is off (set HTTP_PORT to check the running bot)")
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
        do {
            guard let store = try environment.openExistingStore() else {
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

/// `vinylogue-bot check`: tries the token and the key, and says in one line each what is
/// wrong. The clients log nothing here: their warnings would only repeat those lines.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check TELEGRAM_BOT_TOKEN with Telegram and LASTFM_API_KEY with Last.fm, then exit."
    )

    func run() async throws {
        let environment = try await Environment.load(logsWarnings: false)
        let configuration = environment.configuration
        let quiet = Logger(label: "check", factory: { _ in SwiftLogNoOpLogHandler() })
        // A misspelt key is often why a check fails, so its hint comes first.
        for warning in environment.warnings { print("Configuration: \(warning)") }
        var problems = 0
        if let token = configuration.telegramToken {
            let apiURL = configuration.telegramAPIURL
            let telegram = HTTPTelegramClient(transport: environment.transport, baseURL: apiURL, token: token, logger: quiet)
            do {
                let me = try await telegram.getMe()
                print("Telegram: OK, the token belongs to @\(me.username ?? me.firstName).")
            } catch let error as TelegramError {
                print("Telegram: \(error.refusal(at: apiURL) ?? "could not ask \(apiURL.absoluteString): \(error).")")
                problems += 1
            }
        } else {
            print("Telegram: TELEGRAM_BOT_TOKEN is not set; create a bot with @BotFather and paste its token.")
            problems += 1
        }
        if let key = configuration.lastFMAPIKey {
            let apiURL = configuration.lastFMAPIURL
            let lastFM = HTTPLastFMClient(transport: environment.transport, baseURL: apiURL, apiKey: key, logger: quiet)
            do {
                _ = try await lastFM.userInfo("rj")
                print("Last.fm: OK, the key works.")
            } catch LastFMError.userNotFound {
                // The key was accepted: only the sample user is missing (Libre.fm).
                print("Last.fm: OK, the key works.")
            } catch LastFMError.invalidKey {
                print("Last.fm: the API key was refused: check LASTFM_API_KEY.")
                problems += 1
            } catch let error as LastFMError {
                print("Last.fm: could not ask \(apiURL.absoluteString): \(Self.reason(error)).")
                problems += 1
            }
        } else {
            print("Last.fm: LASTFM_API_KEY is not set; get one at https://www.last.fm/api/account/create.")
            problems += 1
        }
        do {
            // Before the first start there is nothing to count.
            if let store = try environment.openExistingStore() {
                for line in try store.sizes().lines { print(line) }
            }
        } catch {
            // Opening failed with its reason on standard error, or the count failed.
            if !(error is ExitCode) { print("Database: could not count its rows: \(error)") }
            problems += 1
        }
        if problems > 0 { throw ExitCode.failure }
    }

    /// Why a Last.fm call failed, in the words the Telegram line uses for its own failures.
    static func reason(_ error: LastFMError) -> String {
        switch error {
        case .transport(let text): "network: \(text)"
        case .temporarilyUnavailable(let text): "server error: \(text)"
        case .rateLimited: "rate limited (error 29)"
        case let .rejected(code, message): "refused (\(code)): \(message.prefix(200))"
        case .undecodable(let text): "undecodable response: \(text.prefix(200))"
        case .userNotFound, .privateProfile, .invalidKey: error.userMessage
        }
    }
}
