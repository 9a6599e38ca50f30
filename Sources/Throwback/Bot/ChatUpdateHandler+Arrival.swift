import Telegram

// Arrival: what an update is, judged in the order updates arrive.
extension ChatUpdateHandler {
    /// What an update is, with the rate limit's verdict: called in the order updates arrive.
    public func arrive(_ update: Update) async -> Arrival {
        let arrivedAt = clock.elapsed()
        func arrival(_ chat: Int64?, _ kind: Arrival.Kind) -> Arrival {
            Arrival(update: update, chat: chat ?? 0, kind: kind, arrivedAt: arrivedAt)
        }
        if let message = update.message, let newID = message.migrateToChatID {
            return arrival(message.chat.id, .migration(to: newID))
        }
        if let change = update.myChatMember {
            return arrival(change.chat.id, .membership(change))
        }
        if let message = update.message, let text = message.text, let context = Self.invocation(for: message) {
            let parsed = router.parse(text, context: context)
            guard let admission = await router.admission(for: parsed, context: context) else { return arrival(message.chat.id, .ignored) }
            return arrival(message.chat.id, .message(message, parsed, context, admission))
        }
        if let post = update.channelPost, let text = post.text {
            // Only a channel's admins can post in it, on its behalf.
            let context = CommandInvocation(
                chatID: post.chat.id, isPrivateChat: false, userID: post.chat.id, senderChatID: post.chat.id, messageID: post.messageID
            )
            let parsed = router.parse(text, context: context)
            // In a channel the bot answers `id` alone: whatever it posts there, every subscriber reads.
            guard case .command(let spec, _) = parsed, spec.name == IDCommand.name,
                  let admission = await router.admission(for: parsed, context: context)
            else { return arrival(post.chat.id, .ignored) }
            return arrival(post.chat.id, .message(post, parsed, context, admission))
        }
        if let query = update.callbackQuery {
            let chat = query.message?.chat
            let context = CommandInvocation(chatID: chat?.id ?? query.from.id, isPrivateChat: chat?.isPrivate ?? true, userID: query.from.id)
            return arrival(context.chatID, .press(query, await router.admit(context)))
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
