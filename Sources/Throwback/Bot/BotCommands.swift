/// The command router plus the command the Telegram handler needs directly: `throwback`,
/// for ◀ / ▶.
public struct BotCommands: Sendable {
    public var router: CommandRouter
    public var throwback: ThrowbackCommand
    /// Wakes the weekly post when a chat's settings change outside a command.
    public var scheduleChanges: ScheduleChanges

    /// - Parameter observe: told how each command went, for metrics and logs.
    public init(_ dependencies: CommandSet.Dependencies, observe: @escaping @Sendable (CommandOutcome) -> Void = { _ in }) {
        router = CommandRouter(
            commands: CommandSet.standard(dependencies), store: dependencies.store, admission: dependencies.rateLimit, observe: observe
        )
        throwback = CommandSet.throwback(dependencies)
        scheduleChanges = dependencies.weekly.changes
    }
}
