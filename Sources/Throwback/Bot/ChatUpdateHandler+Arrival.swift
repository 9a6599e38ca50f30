import Telegram

// Arrival: what an update is, judged in the order updates arrive.
extension ChatUpdateHandler {
    /// What an update is, with the rate limit's verdict: called in the order updates arrive.
    public func arrive(_ update: Update) async -> Arrival {
        let arrivedAt = clock.elapsed()
        func arrival(_ chat: Int64?, _ kind: Arrival.Kind, _ language: Language = .english) -> Arrival {
            Arrival(update: update, chat: chat ?? 0, kind: kind, arrivedAt: arrivedAt, language: language)
        }
        if let message = update.message, let newID = message.migrateToChatID {
            return arrival(message.chat.id, .migration(to: newID))
        }
        if let change = update.myChatMember {
            return arrival(change.chat.id, .membership(change))
        }
        if let message = update.message, let text = message.text, var context = Self.invocation(for: message) {
            let parsed = router.parse(text, context: context)
            // Group chatter is ignored before its chat's language is looked up.
            if case .notACommand = parsed, !context.isPrivateChat { return arrival(message.chat.id, .ignored) }
            context.language = await language(of: message.chat, sender: message.from)
            guard let admission = await router.admission(for: parsed, context: context) else { return arrival(message.chat.id, .ignored) }
            return arrival(message.chat.id, .message(message, parsed, context, admission), context.language)
        }
        if let post = update.channelPost, let text = post.text {
            // Only a channel's admins can post in it, on its behalf.
            var context = CommandInvocation(
                chatID: post.chat.id, isPrivateChat: false, userID: post.chat.id, senderChatID: post.chat.id, messageID: post.messageID
            )
            let parsed = router.parse(text, context: context)
            // In a channel the bot answers `id` alone: whatever it posts there, every subscriber reads.
            guard case .command(let spec, _) = parsed, spec.name == IDCommand.name else { return arrival(post.chat.id, .ignored) }
            context.language = await language(of: post.chat, sender: nil)
            guard let admission = await router.admission(for: parsed, context: context) else { return arrival(post.chat.id, .ignored) }
            return arrival(post.chat.id, .message(post, parsed, context, admission), context.language)
        }
        if let query = update.callbackQuery {
            let chat = query.message?.chat
            // An inline message's chat is unknown to the bot: the presser's language.
            let language = if let chat { await language(of: chat, sender: query.from) } else { Language(telegramCode: query.from.languageCode) }
            let context = CommandInvocation(
                chatID: chat?.id ?? query.from.id, isPrivateChat: chat?.isPrivate ?? true, userID: query.from.id, language: language
            )
            return arrival(context.chatID, .press(query, await router.admit(context)), language)
        }
        if let query = update.inlineQuery {
            // Judged once its asker stops typing, not per keystroke; queued with their
            // private chat, so that their keystrokes are answered in order.
            inline.arrived(query)
            return arrival(query.from.id, .inline(query))
        }
        if let chosen = update.chosenInlineResult {
            return arrival(chosen.from.id, .chosen(chosen))
        }
        return arrival(update.chatID, .ignored)
    }

    /// The language of answers in `chat`: the one its admins chose with `language`, else in a
    /// private chat the person's Telegram language, else English.
    func language(of chat: Chat, sender: User?) async -> Language {
        if let chosen = try? await store.settings(for: chat.id).chosenLanguage { return chosen }
        return chat.isPrivate ? Language(telegramCode: sender?.languageCode) : .english
    }

    /// Who sent a message, as a command sees it; nil for senders that never command the bot:
    /// other bots, channels, and a linked channel's automatic forwards.
    static func invocation(for message: Message) -> CommandInvocation? {
        guard let sender = message.from, message.isAutomaticForward != true, sender.id != channelForwarder else { return nil }
        let anonymousAdmin = message.isFromAnonymousAdmin
        guard !sender.isBot || anonymousAdmin else { return nil }
        return CommandInvocation(
            chatID: message.chat.id, isPrivateChat: message.chat.isPrivate, userID: sender.id,
            senderChatID: anonymousAdmin ? message.chat.id : nil, topicID: message.topicID, messageID: message.messageID
        )
    }
}
