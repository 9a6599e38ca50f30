/// The command router plus the pieces the Telegram handler needs directly: the throwback
/// command (for ◀ / ▶) and the rate limit (buttons are rate limited too).
public struct BotCommands: Sendable {
    public var router: CommandRouter
    public var throwback: ThrowbackCommand
    public var rateLimit: RateLimitGuard

    /// - Parameter observe: told how each command went, for metrics and logs.
    public init(_ dependencies: CommandSet.Dependencies, observe: @escaping @Sendable (CommandOutcome) -> Void = { _ in }) {
        router = CommandRouter(commands: CommandSet.standard(dependencies), hintGuards: [dependencies.rateLimit], observe: observe)
        throwback = CommandSet.throwback(dependencies)
        rateLimit = dependencies.rateLimit
    }
}
