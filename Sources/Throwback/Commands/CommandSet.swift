import LastFM
import Networking
import Telegram

/// The bot's full command set, wired with its guards: the one place that says which
/// guard protects which command.
public enum CommandSet {
    public struct Dependencies: Sendable {
        public var engine: ThrowbackEngine
        public var lastFM: any LastFMClient
        public var store: BotStore
        public var rateLimit: RateLimitGuard
        public var breaker: CircuitBreaker
        public var admin: AdminGuard
        public var validUser: ValidLastFMUserGuard

        public init(
            engine: ThrowbackEngine, lastFM: any LastFMClient, store: BotStore, rateLimit: RateLimitGuard,
            breaker: CircuitBreaker, admin: AdminGuard, validUser: ValidLastFMUserGuard
        ) {
            self.engine = engine
            self.lastFM = lastFM
            self.store = store
            self.rateLimit = rateLimit
            self.breaker = breaker
            self.admin = admin
            self.validUser = validUser
        }
    }

    /// Every command, in the order `help` and the command menu list them.
    public static func standard(_ d: Dependencies) -> [any Command] {
        let healthy = LastFMHealthGuard(breaker: d.breaker)
        var commands: [any Command] = [
            throwback(d),
            LinkCommand(store: d.store, guards: [d.rateLimit, healthy, d.validUser]),
            UnlinkCommand(store: d.store, guards: [d.rateLimit]),
            TrackCommand(store: d.store, guards: [d.rateLimit, d.admin, healthy, d.validUser]),
            UntrackCommand(store: d.store, guards: [d.rateLimit, d.admin]),
            TrackedCommand(store: d.store, guards: [d.rateLimit, d.admin]),
            ImportCommand(store: d.store, lastFM: d.lastFM, guards: [d.rateLimit, d.admin, healthy, d.validUser]),
            FilterCommand(store: d.store, guards: [d.rateLimit, d.admin]),
            WeeklyCommand(store: d.store, guards: [d.rateLimit, d.admin]),
        ]
        commands.insert(HelpCommand(guards: [d.rateLimit], otherSpecs: commands.map(\.spec)), at: 3)
        return commands
    }

    /// `throwback`, guarded by the rate limit, the account link (for `me`) and Last.fm's health.
    public static func throwback(_ d: Dependencies) -> ThrowbackCommand {
        ThrowbackCommand(
            engine: d.engine, store: d.store,
            guards: [d.rateLimit, LinkedAccountGuard(store: d.store), LastFMHealthGuard(breaker: d.breaker)]
        )
    }

    /// The Telegram command menu, from the same declarations.
    public static func menu(_ commands: [any Command]) -> [BotCommand] {
        commands.map { BotCommand(command: $0.spec.name, description: String($0.spec.summary.prefix(256))) }
    }
}
