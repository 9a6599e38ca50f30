/// `language`, `language <code>`: the language this chat's replies and weekly post are
/// written in. Until an admin chooses, a group speaks English and a private chat its person's
/// Telegram language.
public struct LanguageCommand: Command {
    public let spec = CommandSpec(
        name: "language", arguments: "[code]", summary: "the language I speak in this chat (en, de, es, fr, pt-BR, ru)", adminOnly: true
    )
    public let guards: [any CommandGuard]

    public init(guards: [any CommandGuard]) {
        self.guards = guards
    }

    public func parse(_ invocation: CommandInvocation) -> Result<CommandInvocation, UsageError> {
        let parsed = invocation.targetingTheChatNamedLast()
        guard parsed.arguments.count <= 1 else { return .failure(UsageError()) }
        if let code = parsed.arguments.first, Language(code: code) == nil {
            return .failure(UsageError(invocation.language.text(.languageUnknown, String(code.prefix(20)), Language.choices)))
        }
        return .success(parsed)
    }

    public func execute(_ invocation: CommandInvocation) async -> CommandResult {
        let chat = invocation.targetChatID
        let asked = invocation.language
        // In its own chat the asker already hears the chat's language.
        let unchosen: Language = chat == invocation.chatID ? asked : .english
        guard let chosen = invocation.arguments.first.flatMap(Language.init(code:)) else {
            return .change { transaction in
                let current = try transaction.settings(for: chat).chosenLanguage ?? unchosen
                return .text(asked.text(.languageCurrent, current.nativeName, current.rawValue, Language.choices))
            }
        }
        return .change { transaction in
            try transaction.updateSettings(for: chat) { $0.language = chosen.rawValue }
            // Said in the language just chosen: the first words the chat reads in it.
            return .text(chosen.text(.languageSet))
        }
    }
}
