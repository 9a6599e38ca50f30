import Configuration
import Foundation
import Networking
import Testing
import TestLogging
import Throwback

/// `TELEGRAM_WEBHOOK_URL`, `TELEGRAM_WEBHOOK_SECRET` and `TELEGRAM_WEBHOOK_MAX_CONNECTIONS`.
@Suite(.capturingLogs) struct WebhookConfigurationTests {
    static let token = "123456:ABCdefGHIjklMNOpqrSTUvwxYZ0123456_-"
    static let key = "0f3a9c5e8b7d4a2f1e6c9b8a7d5e4f3a"

    private func load(_ environment: [String: String]) throws -> BotConfiguration {
        try BotConfiguration(reader: ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: environment)))
    }

    @Test func theURLMustBeHTTPSWithAHostAndNotTheBotsOwnPaths() throws {
        #expect(try load(["TELEGRAM_WEBHOOK_URL": "https://bot.example.org/telegram"]).webhookURL?.path == "/telegram")
        #expect(try load([:]).webhookURL == nil)
        for bad in ["http://bot.example.org/telegram", "https:///telegram", "bot.example.org", "https://bot.example.org/healthz"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try load(["TELEGRAM_WEBHOOK_URL": bad]) }
        }
        do {
            _ = try load(["TELEGRAM_WEBHOOK_URL": "http://bot.example.org/telegram"])
        } catch {
            #expect("\(error)".contains("TELEGRAM_WEBHOOK_URL") && "\(error)".contains("https"))
        }
    }

    @Test func aSetSecretIsCheckedAsTelegramChecksItAndNeverRepeated() throws {
        #expect(try load(["TELEGRAM_WEBHOOK_SECRET": "Abc_123-xyz"]).webhookSecret == Secret("Abc_123-xyz"))
        for bad in ["has space", "semi;colon", String(repeating: "a", count: 257), "ünïcode"] {
            do {
                _ = try load(["TELEGRAM_WEBHOOK_SECRET": bad])
                Issue.record("\(bad) was taken")
            } catch {
                #expect("\(error)".hasPrefix("TELEGRAM_WEBHOOK_SECRET "))
                #expect(!"\(error)".contains(bad))
            }
        }
        #expect(BotConfiguration.secretKeys.contains("TELEGRAM_WEBHOOK_SECRET"))
    }

    /// HMAC-SHA256 of “vinylogue-bot webhook secret” keyed with the token, in hex: what
    /// `printf %s 'vinylogue-bot webhook secret' | openssl dgst -sha256 -hmac "$TOKEN"` prints.
    @Test func withoutASecretOneIsDerivedFromTheToken() throws {
        let configuration = try load(["TELEGRAM_WEBHOOK_URL": "https://bot.example.org/hook"])
        let derived = configuration.webhookSecret(token: Secret(Self.token)).reveal()
        #expect(derived == "1645b80482bd935402d237248782900cf6ff6a5ef3cd061c4ad20d12eed2f8ca")
        #expect(derived == configuration.webhookSecret(token: Secret(Self.token)).reveal())
        #expect(derived != configuration.webhookSecret(token: Secret("654321:" + Self.token.dropFirst(7))).reveal())
        #expect(!derived.contains(Self.token.split(separator: ":")[1].prefix(8)))
    }

    @Test func aWebhookWithoutHTTPPortIsNamedWithEveryOtherMissingKey() throws {
        let configuration = try load(["TELEGRAM_WEBHOOK_URL": "https://bot.example.org/hook"])
        do {
            _ = try configuration.requireBotCredentials()
            Issue.record("run would start")
        } catch {
            let lines = error.description.split(separator: "\n")
            #expect(lines.count == 3, "\(error.description)")
            #expect(lines.contains { $0.hasPrefix("TELEGRAM_BOT_TOKEN is not set") })
            #expect(lines.contains { $0.hasPrefix("LASTFM_API_KEY is not set") })
            #expect(lines.contains { $0.hasPrefix("HTTP_PORT is not set") && $0.contains("TELEGRAM_WEBHOOK_URL") })
        }
        let complete = try load([
            "TELEGRAM_WEBHOOK_URL": "https://bot.example.org/hook", "HTTP_PORT": "8080", "TELEGRAM_BOT_TOKEN": Self.token, "LASTFM_API_KEY": Self.key,
        ])
        #expect(try complete.requireBotCredentials().token == Secret(Self.token))
    }

    @Test func maxConnectionsIsOneToAHundredAndFortyByDefault() throws {
        #expect(try load([:]).webhookMaxConnections == 40)
        #expect(try load(["TELEGRAM_WEBHOOK_MAX_CONNECTIONS": "100"]).webhookMaxConnections == 100)
        #expect(throws: ConfigurationError.self) { try load(["TELEGRAM_WEBHOOK_MAX_CONNECTIONS": "0"]) }
        #expect(throws: ConfigurationError.self) { try load(["TELEGRAM_WEBHOOK_MAX_CONNECTIONS": "101"]) }
    }
}
