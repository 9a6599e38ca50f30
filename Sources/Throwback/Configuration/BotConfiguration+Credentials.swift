import Networking

extension BotConfiguration {
    /// The bot token, or an error that says how to set it or what is wrong with it.
    public func requireTelegramToken() throws(ConfigurationError) -> Secret {
        guard let token = telegramToken else {
            throw .missing(key: "TELEGRAM_BOT_TOKEN", hint: "create a bot with @BotFather and paste its token")
        }
        if let problem = SecretShape.telegramTokenProblem(token.reveal()) {
            throw .malformed(key: "TELEGRAM_BOT_TOKEN", problem: problem)
        }
        return token
    }

    /// The Last.fm key, or an error that says how to set it or what is wrong with it.
    public func requireLastFMKey() throws(ConfigurationError) -> Secret {
        guard let key = lastFMAPIKey else {
            throw .missing(
                key: "LASTFM_API_KEY",
                hint: "get one at https://www.last.fm/api/account/create, or try `vinylogue-bot console --demo`"
            )
        }
        // A Last.fm-compatible server (GNU FM) takes any 32 characters; Last.fm itself issues hex.
        let atLastFM = lastFMAPIURL.host?.lowercased() == "ws.audioscrobbler.com"
        if let problem = SecretShape.lastFMKeyProblem(key.reveal(), hexOnly: atLastFM) {
            throw .malformed(key: "LASTFM_API_KEY", problem: problem)
        }
        return key
    }

    /// What `run` needs, the bot token and the Last.fm key (and, for a webhook, `HTTP_PORT`), or
    /// one error naming every problem with them: fixing one only to be told of the next wastes a restart.
    public func requireBotCredentials() throws(ConfigurationError) -> (token: Secret, lastFMKey: Secret) {
        var problems: [ConfigurationError] = []
        func attempt(_ body: () throws(ConfigurationError) -> Secret) -> Secret? {
            do {
                return try body()
            } catch {
                problems.append(error)
                return nil
            }
        }
        let token = attempt(requireTelegramToken)
        let key = attempt(requireLastFMKey)
        if let port = webhookPortProblem { problems.append(port) }
        if let token, let key, problems.isEmpty { return (token, key) }
        throw problems.count == 1 ? problems[0] : .several(problems)
    }
}
