/// The command router plus the pieces the Telegram handler needs directly: the throwback
/// command (for ◀ / ▶) and the rate limit (buttons are rate limited too).
public struct BotCommands: Sendable {
    public var router: CommandRouter
    public var throwback: ThrowbackCommand
    public var rateLimit: RateLimitGuard

    public init(_ dependencies: CommandSet.Dependencies) {
        router = CommandRouter(commands: CommandSet.standard(dependencies), hintGuards: [dependencies.rateLimit])
        throwback = CommandSet.throwback(dependencies)
        rateLimit = dependencies.rateLimit
    }
}
