import ArgumentParser
import Foundation
import LastFM
import ListenBrainz
import Logging
import Networking
import Telegram
import Throwback

/// `vinylogue-bot check`: asks every service the bot uses whether it answers and takes the
/// configured token or key, and says in one line each what is wrong. A token or key that
/// cannot be one is named as such, without a request. The clients log nothing here: their
/// warnings would only repeat those lines.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the token and keys with Telegram, Last.fm, ListenBrainz and Libre.fm, then exit.",
        discussion: "One line per service; the exit code is 0 when every line says OK."
    )

    func run() async throws {
        let environment = try await Environment.load(logsWarnings: false)
        // A misspelt key is often why a check fails, so its hint comes first.
        for warning in environment.warnings { print("Configuration: \(warning)") }
        let services = ServiceCheck(configuration: environment.configuration, transport: environment.transport)
        // Asked at once: a service that does not answer holds up no other line.
        async let telegram = services.telegram()
        async let lastFM = services.lastFM()
        async let listenBrainz = services.listenBrainz()
        async let libreFM = services.libreFM()
        let lines = await telegram + [lastFM, listenBrainz, libreFM]
        // Names and messages come from the servers: shown, never obeyed by the terminal.
        for line in lines { print("\(line.service): \(TerminalText.printable(line.text))") }
        var failed = lines.contains { !$0.isOK }
        do {
            // Before the first start there is nothing to count.
            if let store = try await environment.openExistingStore() {
                for line in try store.sizes().lines { print(line) }
                // Read from the cache alone: no key is sent anywhere. A database of another
                // version may lack a column it reads: its rows are counted all the same.
                let assembly = BotAssembly(configuration: environment.configuration, lastFMTransport: environment.transport, lastFMKey: Secret(""))
                if try store.hasCurrentSchema() { print(try await assembly.weeklyPrefetchCoverage(store: store).line) }
            }
        } catch {
            // Opening failed with its reason on standard error, or the count failed.
            if !(error is ExitCode) { print("Database: could not count its rows: \(error)") }
            failed = true
        }
        if failed { throw ExitCode.failure }
    }
}

/// One line of `check` per service.
struct ServiceCheck: Sendable {
    struct Line: Sendable {
        var service: String
        var isOK: Bool
        var text: String
    }

    let configuration: BotConfiguration
    let transport: any HTTPTransport
    private let quiet = Logger(label: "check", factory: { _ in SwiftLogNoOpLogHandler() })
    /// Any name will do: Last.fm knows it, and a server that does not still answers for it.
    private static let sampleUser = "rj"

    init(configuration: BotConfiguration, transport: any HTTPTransport) {
        self.configuration = configuration
        self.transport = transport
    }

    /// The token's line and, once Telegram took the token, the webhook's.
    func telegram() async -> [Line] {
        let line = { (isOK: Bool, text: String) in [Line(service: "Telegram", isOK: isOK, text: text)] }
        let token: Secret
        do {
            token = try configuration.requireTelegramToken()
        } catch {
            return line(false, error.description)
        }
        let apiURL = configuration.telegramAPIURL
        let telegram = HTTPTelegramClient(transport: transport, baseURL: apiURL, token: token, logger: quiet)
        do {
            let me = try await telegram.getMe()
            return line(true, "OK, the token belongs to @\(me.username ?? me.firstName).") + [await webhook(telegram)]
        } catch let error as TelegramError {
            return line(false, error.refusal(at: apiURL) ?? "could not ask \(apiURL.absoluteString): \(error).")
        } catch {
            return line(false, "could not ask \(apiURL.absoluteString): \(error).")
        }
    }

    func lastFM() async -> Line {
        let line = { (isOK: Bool, text: String) in Line(service: "Last.fm", isOK: isOK, text: text) }
        let key: Secret
        do {
            key = try configuration.requireLastFMKey()
        } catch {
            return line(false, error.description)
        }
        let apiURL = configuration.lastFMAPIURL
        let lastFM = HTTPLastFMClient(transport: transport, baseURL: apiURL, apiKey: key, logger: quiet)
        do {
            _ = try await lastFM.userInfo(Self.sampleUser)
            return line(true, "OK, the key works.")
        } catch let error as ListeningError where error.unknownName != nil {
            // The key was accepted: only the sample user is missing (a Last.fm-compatible server).
            return line(true, "OK, the key works.")
        } catch let error as ListeningError where error.reason == .credentialsRefused {
            return line(false, "the API key was refused: check LASTFM_API_KEY.")
        } catch {
            return line(false, "could not ask \(apiURL.absoluteString): \(Self.reason(error)).")
        }
    }

    /// With a token, whose it is; without one, only that ListenBrainz answers.
    func listenBrainz() async -> Line {
        let line = { (isOK: Bool, text: String) in Line(service: "ListenBrainz", isOK: isOK, text: text) }
        let apiURL = configuration.listenBrainzAPIURL
        let client = HTTPListenBrainzClient(transport: transport, baseURL: apiURL, token: configuration.listenBrainzToken, logger: quiet)
        do {
            switch try await client.validateToken() {
            case .valid(let user):
                return line(true, "OK, the token belongs to \(user).")
            case .invalid:
                return line(false, "LISTENBRAINZ_TOKEN was refused: copy it again from https://listenbrainz.org/settings/, or leave it empty.")
            case .noToken:
                return line(true, "OK (no token set; LISTENBRAINZ_TOKEN only raises the rate limit).")
            }
        } catch {
            return line(false, "could not ask \(apiURL.absoluteString): \(Self.reason(error)).")
        }
    }

    /// Libre.fm needs no key: that it answers `user.getInfo`, even with "no such user", is enough.
    func libreFM() async -> Line {
        let line = { (isOK: Bool, text: String) in Line(service: "Libre.fm", isOK: isOK, text: text) }
        let apiURL = configuration.libreFMAPIURL
        let client = HTTPLastFMClient(
            transport: transport, baseURL: apiURL, apiKey: BotAssembly.libreFMKey, service: ScrobbleSource.libreFM.serviceName, logger: quiet
        )
        do {
            _ = try await client.userInfo(Self.sampleUser)
        } catch let error as ListeningError where error.unknownName != nil || error.rejectionCode == 7 {
            // GNU FM's error 7, "Invalid resource specified", is its "no such user".
        } catch {
            return line(false, "could not ask \(apiURL.absoluteString): \(Self.reason(error)).")
        }
        return line(true, "OK, the server answers.")
    }

    /// Why a call failed, for the end of a line.
    static func reason(_ error: any Error) -> String {
        switch error {
        case let error as ListeningError:
            switch error.reason {
            case .transport(let text): "network: \(text)"
            case .temporarilyUnavailable(let text): "server error: \(text)"
            case .rateLimited: "rate limited"
            case let .rejected(code, message): "refused (\(code)): \(message.prefix(200))"
            case .undecodable(let text): "undecodable response: \(text.prefix(200))"
            case .credentialsRefused: "the key or token was refused"
            case .userNotFound, .privateProfile: error.userMessage
            }
        default:
            "\(error)"
        }
    }
}
