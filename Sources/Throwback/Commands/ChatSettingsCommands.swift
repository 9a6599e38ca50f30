/// `filter <n>`: hides albums with fewer than n plays in this chat.
public struct FilterCommand: Command {
    public static let range = 1...1000
    public let spec = CommandSpec(name: "filter", arguments: "<n>", summary: "hide albums with fewer than n plays in this chat", adminOnly: true)
    public let guards: [any CommandGuard]
    let store: BotStore

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        invocation.takingTargetChat(andExactly: 1).flatMap { parsed in
            guard let n = Int(parsed.arguments[0]), Self.range.contains(n) else {
                return .failure(UsageError("The minimum play count is a number from \(Self.range.lowerBound) to \(Self.range.upperBound)."))
            }
            var numbered = parsed
            numbered.number = n
            return .success(numbered)
        }
    }

    public func execute(_ invocation: CommandInvocation) async -> BotReply {
        let n = invocation.number ?? 1
        return await savingState {
            try await store.updateSettings(for: invocation.targetChatID) { $0.minimumPlayCount = n }
            return .text(n == 1 ? "Showing every album again." : "Hiding albums with fewer than \(n) plays.")
        }
    }
}

/// `weekly on|off`: turns this chat's weekly post on or off.
public struct WeeklyCommand: Command {
    public let spec = CommandSpec(name: "weekly", arguments: "on|off", summary: "turn this chat's weekly throwback post on or off", adminOnly: true)
    public let guards: [any CommandGuard]
    let store: BotStore

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        invocation.takingTargetChat(andExactly: 1).flatMap { parsed in
            var toggled = parsed
            switch parsed.arguments[0].lowercased() {
            case "on": toggled.toggle = true
            case "off": toggled.toggle = false
            default: return .failure(UsageError("Say on or off."))
            }
            return .success(toggled)
        }
    }

    public func execute(_ invocation: CommandInvocation) async -> BotReply {
        let on = invocation.toggle ?? true
        return await savingState {
            try await store.updateSettings(for: invocation.targetChatID) {
                $0.weeklyEnabled = on
                if on { $0.active = true }
            }
            return .text(on ? "The weekly throwback post is on." : "The weekly throwback post is off.")
        }
    }
}
