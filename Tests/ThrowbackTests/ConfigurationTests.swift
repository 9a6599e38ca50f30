import Configuration
import Foundation
import Networking
import Throwback
import Testing
import TestLogging

private func load(_ environment: [String: String]) throws -> BotConfiguration {
    try BotConfiguration(reader: ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: environment)))
}

@Suite(.capturingLogs) struct ConfigurationTests {
    @Test func defaultsFollowTheContract() throws {
        let config = try load([:])
        #expect(config.telegramToken == nil)
        #expect(config.telegramAPIURL.absoluteString == "https://api.telegram.org")
        #expect(config.lastFMAPIURL.absoluteString == "https://ws.audioscrobbler.com/2.0/")
        #expect(config.databasePath == "vinylogue.sqlite")
        #expect(config.adminUserIDs.isEmpty)
        #expect(config.throwbackChatID == nil)
        #expect(config.schedule == WeeklySchedule("mon 09:00"))
        #expect(config.timeZone.secondsFromGMT() == 0)
        #expect(config.summary.contains("THROWBACK_TIMEZONE=UTC "))
        #expect(config.defaultPostingTime.description == "mon 09:00 UTC")
        #expect(config.pollTimeout == 50)
        #expect(config.logLevel == .info)
    }

    @Test func everyKeyIsRead() throws {
        let config = try load([
            "TELEGRAM_BOT_TOKEN": "123:abc", "TELEGRAM_API_URL": "http://127.0.0.1:8081",
            "LASTFM_API_KEY": "my-gnufm-key-of-thirty-two-chars", "LASTFM_API_URL": "https://libre.fm/2.0/", "DATABASE_PATH": "/tmp/x.sqlite",
            "ADMIN_USER_IDS": "1, 22,333", "THROWBACK_CHAT_ID": "-100123", "THROWBACK_SCHEDULE": "fri 18:30",
            "THROWBACK_TIMEZONE": "Europe/Berlin", "POLL_TIMEOUT": "25", "LOG_LEVEL": "DEBUG",
            "RATE_LIMIT_USER": "3", "RATE_LIMIT_CHAT": "12",
        ])
        #expect(config.telegramToken == "123:abc")
        #expect(config.telegramAPIURL.absoluteString == "http://127.0.0.1:8081")
        #expect(try config.requireLastFMKey() == "my-gnufm-key-of-thirty-two-chars")
        #expect(config.lastFMAPIURL.host == "libre.fm")
        #expect(config.databasePath == "/tmp/x.sqlite")
        #expect(config.adminUserIDs == [1, 22, 333])
        #expect(config.throwbackChatID == -100_123)
        #expect(config.schedule.description == "fri 18:30")
        #expect(config.timeZone.identifier == "Europe/Berlin")
        #expect(config.pollTimeout == 25)
        #expect(config.logLevel == .debug)
        #expect(config.rateLimits.user == .init(burst: 3, perMinute: 3))
        #expect(config.rateLimits.chat == .init(burst: 12, perMinute: 12))
    }

    @Test(arguments: ["UTC", "GMT", "Etc/UTC", "Europe/Berlin"])
    func theTimeZoneIsShownAsConfigured(name: String) throws {
        let config = try load(["THROWBACK_TIMEZONE": name, "THROWBACK_SCHEDULE": "fri 18:30"])
        #expect(config.summary.contains("THROWBACK_TIMEZONE=\(name) "))
        #expect(config.defaultPostingTime.description == "fri 18:30 \(name)")
    }

    @Test func quotesAroundValuesAreDropped() throws {
        let config = try load(["TELEGRAM_BOT_TOKEN": "\"123:abc\"", "LASTFM_API_KEY": "'key'"])
        #expect(config.telegramToken == "123:abc")
        #expect(config.lastFMAPIKey == "key")
    }

    @Test func aMissingKeyExplainsWhatToSet() throws {
        let config = try load([:])
        #expect(throws: ConfigurationError.self) { try config.requireLastFMKey() }
        do {
            _ = try config.requireLastFMKey()
        } catch {
            #expect("\(error)".contains("LASTFM_API_KEY is not set"))
            #expect(!"\(error)".contains("\n"))
        }
    }

    static let token = "123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0"
    static let key = "0f3a9c5e8b7d4a2f1e6c9b8a7d5e4f3a"

    @Test func aTokenAndKeyOfTheRightShapeAreTaken() throws {
        let config = try load(["TELEGRAM_BOT_TOKEN": Self.token, "LASTFM_API_KEY": Self.key])
        #expect(try config.requireBotCredentials() == (Secret(Self.token), Secret(Self.key)))
    }

    /// Said before any request, and without the token itself.
    @Test(arguments: [
        ("https://api.telegram.org/bot\(ConfigurationTests.token)/getMe", "is a URL, not a token: keep only the part between “/bot” and the next “/”."),
        ("api.telegram.org/bot\(ConfigurationTests.token)", "is a URL, not a token"),
        ("bot\(ConfigurationTests.token)", "starts with “bot”, which belongs to the URL, not to the token"),
        ("123456:AAHdqTcvCH1vGWJx\tfSeofSAs0K5PALDsaw0", "has a space in it"),
        ("123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0\n2", "has a line break in it"),
        ("\(ConfigurationTests.token)”", "has a quotation mark in it"),
        ("123456AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0", "has no colon"),
        ("bob:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0", "does not start with the bot’s id"),
        ("123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", "has 34 characters after the colon, where a bot token has 35"),
        ("123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDs.w0", "has a character after the colon that no bot token has"),
    ])
    func aMalformedTokenIsNamed(token: String, problem: String) throws {
        let config = try load(["TELEGRAM_BOT_TOKEN": token])
        #expect {
            try config.requireTelegramToken()
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("TELEGRAM_BOT_TOKEN \(problem)") && !text.contains("AAHdq") && !text.contains("\n")
        }
    }

    @Test(arguments: [
        ("abcde", "https://ws.audioscrobbler.com/2.0/", "is too short (5 characters; Last.fm keys have 32)."),
        ("\(ConfigurationTests.key)0", "https://ws.audioscrobbler.com/2.0/", "is too long (33 characters; Last.fm keys have 32)."),
        (ConfigurationTests.key.uppercased(), "https://ws.audioscrobbler.com/2.0/", "has characters no Last.fm key has"),
        ("https://www.last.fm/api/account?api_key=\(ConfigurationTests.key)", "https://ws.audioscrobbler.com/2.0/", "is a URL, not a key"),
        ("0f3a9c5e8b7d 4a2f1e6c9b8a7d5e4f3a", "https://libre.fm/2.0/", "has a space in it"),
        ("abcde", "https://libre.fm/2.0/", "is too short (5 characters; Last.fm keys have 32)."),
    ])
    func aMalformedKeyIsNamed(key: String, url: String, problem: String) throws {
        let config = try load(["LASTFM_API_KEY": key, "LASTFM_API_URL": url])
        #expect {
            try config.requireLastFMKey()
        } throws: { error in
            "\(error)".hasPrefix("LASTFM_API_KEY \(problem)") && !"\(error)".contains("0f3a9c")
        }
    }

    /// A Last.fm-compatible server (GNU FM) takes any 32 characters: only Last.fm's own keys are hex.
    @Test func aKeyForAnotherServerNeedsOnlyItsLength() throws {
        let config = try load(["LASTFM_API_KEY": "my-gnufm-key-of-thirty-two-chars", "LASTFM_API_URL": "https://libre.fm/2.0/"])
        #expect(try config.requireLastFMKey() == "my-gnufm-key-of-thirty-two-chars")
    }

    @Test func everyProblemWithTheBotsKeysIsNamedAtOnceOneALine() throws {
        let config = try load(["LASTFM_API_KEY": "abcde"])
        #expect {
            try config.requireBotCredentials()
        } throws: { error in
            "\(error)".split(separator: "\n").map(String.init) == [
                ConfigurationError.missing(key: "TELEGRAM_BOT_TOKEN", hint: "create a bot with @BotFather and paste its token").description,
                "LASTFM_API_KEY is too short (5 characters; Last.fm keys have 32).",
            ]
        }
    }

    @Test(arguments: [
        ["ADMIN_USER_IDS": "1,bob"], ["THROWBACK_SCHEDULE": "someday"], ["THROWBACK_TIMEZONE": "Mars/Olympus"],
        ["POLL_TIMEOUT": "0"], ["LOG_LEVEL": "loud"], ["RATE_LIMIT_USER": "0"], ["RATE_LIMIT_USER": "15,45,3"], ["RATE_LIMIT_USER": "15,"], ["RATE_LIMIT_CHAT": "lots"], ["LOG_FORMAT": "xml"], ["HTTP_PORT": "70000"], ["TELEGRAM_API_URL": "ftp://x"], ["THROWBACK_CHAT_ID": "general"],
    ])
    func invalidValuesAreNamed(environment: [String: String]) {
        #expect {
            try load(environment)
        } throws: { error in
            "\(error)".contains(environment.keys.first!)
        }
    }

    @Test func theEnvironmentFileIsReadAsPeopleWriteIt() throws {
        let contents = "# settings\r\nexport TELEGRAM_BOT_TOKEN=123:abc\r\nLASTFM_API_KEY=abc # my key\r\n"
            + "THROWBACK_SCHEDULE=\"fri 18:30\"  # quoted\r\nDATABASE_PATH=/data/a#b.sqlite\r\n\r\nLOG_LEVEL = debug\r\n"
        let parsed = EnvironmentFile.parse(contents)
        #expect(parsed.variables == [
            "TELEGRAM_BOT_TOKEN": "123:abc", "LASTFM_API_KEY": "abc", "THROWBACK_SCHEDULE": "fri 18:30",
            "DATABASE_PATH": "/data/a#b.sqlite", "LOG_LEVEL": "debug",
        ])
        #expect(parsed.ignoredLines.isEmpty)
    }

    /// Writes `bytes` as a `.env` in a new folder and loads it with `environment`.
    private func loadFile(_ bytes: [UInt8], environment: [String: String] = [:]) throws -> BotConfiguration.Loaded {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(".env").path
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return try BotConfiguration.load(environment: environment, environmentFile: file)
    }

    /// Windows editors save UTF-8 with a byte-order mark in front of the first key.
    @Test func aByteOrderMarkIsNotPartOfTheFirstKey() throws {
        let loaded = try loadFile([0xEF, 0xBB, 0xBF] + Array("TELEGRAM_BOT_TOKEN=123:abc\r\nLOG_LEVEL=debug\r\n".utf8))
        #expect(loaded.configuration.telegramToken == "123:abc")
        #expect(loaded.configuration.logLevel == .debug)
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
    }

    /// The line is named by its number only: its text may hold a secret.
    @Test func aLineWithoutAnEqualsSignIsNamedByItsNumber() throws {
        let loaded = try loadFile(Array("# keys\nLASTFM_API_KEY=abc\n\nTELEGRAM_BOT_TOKEN 123:secret\n=orphan\nLOG_LEVEL=debug\n".utf8))
        #expect(loaded.configuration.lastFMAPIKey == "abc")
        #expect(loaded.configuration.logLevel == .debug)
        #expect(loaded.configuration.telegramToken == nil)
        #expect(loaded.warnings.count == 2, "\(loaded.warnings)")
        #expect(loaded.warnings.first?.hasPrefix("line 4 of ") == true, "\(loaded.warnings)")
        #expect(loaded.warnings.first?.hasSuffix(".env is not KEY=value and is ignored") == true, "\(loaded.warnings)")
        #expect(loaded.warnings.last?.hasPrefix("line 5 of ") == true, "\(loaded.warnings)")
        #expect(!loaded.warnings.joined().contains("secret"))
    }

    /// A key that looks like a known one but is not shows the invisible character that makes it differ.
    @Test func anInvisibleCharacterInAKeyIsShown() throws {
        let loaded = try loadFile(Array("LASTFM\u{200B}_API_KEY=abc\n".utf8))
        #expect(loaded.warnings.count == 1)
        #expect(loaded.warnings.first?.hasPrefix("LASTFM\\u{200B}_API_KEY in ") == true, "\(loaded.warnings)")
        #expect(loaded.warnings.first?.hasSuffix("did you mean LASTFM_API_KEY?") == true, "\(loaded.warnings)")
    }

    @Test func aMisspeltKeyIsNamedWithASuggestionAndTheEnvironmentWins() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(".env").path
        try Data("LASTFM_APIKEY=abc\r\nLOG_LEVEL=debug\r\nPOLL_TIMEOUT=20\r\n".utf8).write(to: URL(fileURLWithPath: file))
        let loaded = try BotConfiguration.load(environment: ["POLL_TIMEOUT": "30", "TELEGRAM_TOKEN": "x", "HOME": "/root"], environmentFile: file)
        #expect(loaded.configuration.logLevel == .debug)
        #expect(loaded.configuration.pollTimeout == 30)
        #expect(loaded.configuration.lastFMAPIKey == nil)
        #expect(loaded.warnings.count == 2)
        #expect(loaded.warnings.contains { $0.contains("LASTFM_APIKEY") && $0.contains("did you mean LASTFM_API_KEY?") })
        #expect(loaded.warnings.contains { $0.contains("TELEGRAM_TOKEN") && $0.contains("did you mean TELEGRAM_BOT_TOKEN?") })
    }

    @Test func theSummaryShowsSecretsOnlyAsSetOrUnset() throws {
        let config = try load(["TELEGRAM_BOT_TOKEN": "123:very-secret", "LOG_FORMAT": "json", "HTTP_PORT": "9090"])
        #expect(config.summary.contains("TELEGRAM_BOT_TOKEN=set"))
        #expect(config.summary.contains("LASTFM_API_KEY=unset"))
        #expect(config.summary.contains("HTTP_PORT=9090"))
        #expect(!config.summary.contains("very-secret"))
        #expect(config.logFormat == .json)
    }

    @Test func theListeningSourcesHaveDefaultsAndTheirTokenIsASecret() throws {
        let defaults = try load([:])
        #expect(defaults.listenBrainzAPIURL.absoluteString == "https://api.listenbrainz.org/1/")
        #expect(defaults.listenBrainzToken == nil)
        #expect(defaults.libreFMAPIURL.absoluteString == "https://libre.fm/2.0/")
        #expect(defaults.coverArtArchiveURL.absoluteString == "https://coverartarchive.org/")
        #expect(BotConfiguration.secretKeys.contains("LISTENBRAINZ_TOKEN"))

        let config = try load([
            "LISTENBRAINZ_API_URL": "http://127.0.0.1:9001", "LISTENBRAINZ_TOKEN": "lb-very-secret-token",
            "LIBREFM_API_URL": "http://127.0.0.1:9002/2.0/", "COVER_ART_ARCHIVE_URL": "http://127.0.0.1:9003/",
        ])
        #expect(config.listenBrainzAPIURL.absoluteString == "http://127.0.0.1:9001")
        #expect(config.listenBrainzToken == "lb-very-secret-token")
        #expect(config.libreFMAPIURL.port == 9002)
        #expect(config.coverArtArchiveURL.port == 9003)
        #expect(config.summary.contains("LISTENBRAINZ_TOKEN=set"))
        #expect(!config.summary.contains("very-secret"))
        #expect(throws: (any Error).self) { try load(["LISTENBRAINZ_API_URL": "ftp://example.org"]) }
    }

    /// `.env.example` is where a new admin learns the keys: each one the bot reads is there,
    /// set or commented out as `# KEY=default`, after a line that explains it, and nothing else is.
    @Test func envExampleExplainsEveryKeyAndOnlyThose() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let lines = try String(contentsOf: root.appendingPathComponent(".env.example"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var listed: [String] = []
        for (index, line) in lines.enumerated() {
            let setting = line.hasPrefix("# ") ? String(line.dropFirst(2)) : line
            let key = String(setting.prefix { $0 != "=" })
            guard setting.contains("="), !key.isEmpty, key.allSatisfy({ $0.isUppercase || $0 == "_" }) else { continue }
            listed.append(key)
            #expect(index > 0 && lines[index - 1].hasPrefix("# "), "\(key) has no explanation above it")
        }
        #expect(listed == BotConfiguration.keys)
    }

    /// Under `docker run --env-file .env`, every line of a `.env` copied from the example
    /// wins over the image's settings: it must set none of those the image sets.
    @Test func envExampleLeavesTheImageSettingsAlone() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let example = try String(contentsOf: root.appendingPathComponent(".env.example"), encoding: .utf8)
        let dockerfile = try String(contentsOf: root.appendingPathComponent("deploy/Dockerfile"), encoding: .utf8)
        let set = Set(example.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.prefix { $0 != "=" }) })
        for key in ["DATABASE_PATH", "HTTP_HOST", "HTTP_PORT"] {
            #expect(dockerfile.contains("\(key)="), "the image sets \(key)")
            #expect(!set.contains(key), "\(key) in .env.example overrides the image's")
        }
    }

    /// An empty `HTTP_PORT` in the environment, as `docker run --env-file` passes on, turns
    /// the endpoint off; the operator is told why.
    @Test func anEmptyHTTPPortInTheEnvironmentIsNamed() throws {
        let loaded = try BotConfiguration.load(environment: ["HTTP_PORT": ""], environmentFile: "/nonexistent/.env")
        #expect(loaded.configuration.httpPort == nil)
        #expect(loaded.warnings.contains { $0.hasPrefix("HTTP_PORT is set but empty in the environment") }, "\(loaded.warnings)")
        let unset = try BotConfiguration.load(environment: [:], environmentFile: "/nonexistent/.env")
        #expect(unset.warnings.isEmpty)
    }
}
