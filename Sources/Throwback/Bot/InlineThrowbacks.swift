import Logging
import Networking
import Telegram

/// Answers inline queries (`@bot alice 3` typed in any chat) with throwbacks.
///
/// Telegram sends one query per keystroke. A query waits `pause` after it arrived; if the
/// same person typed on meanwhile, it is dropped unanswered and costs nothing (Telegram
/// shows only the answer to the text as it stands). The query at which they stop typing is
/// judged like a command: the rate limit, then the throwback command's own arguments and
/// guards, so an invalid name costs no Last.fm call; a refusal is one article saying why.
///
/// Results: the asked throwback, and for a query without years also the same user 2, 3, 5
/// and 10 years ago where those weeks have albums. A week whose collage was uploaded before
/// is offered as that photo with the chart as its caption, any other as the chart in text.
/// Each carries the ◀ ▶ buttons of a chat reply; a press edits the message it was sent as.
/// With inline feedback on and `INLINE_COLLAGE_CHAT_ID` set, a result sent as text gets its
/// week's collage once drawn: uploaded to that chat, then put into the message by `file_id`.
public struct InlineThrowbacks: Sendable {
    /// How long a keystroke waits for the next before it is answered.
    public static let pause = Duration.milliseconds(300)
    /// The further years offered when the query names none.
    static let moreYears = [2, 3, 5, 10]
    /// Telegram takes no answer to an inline query much later than this.
    static let deadline = Duration.seconds(10)
    /// The longest an edit of an inline message, and the collage upload it needs, waits out
    /// flood waits and retries: someone is looking at the message, and a longer wait (a 429
    /// may say an hour) would hold their queue of queries and presses as long.
    static let editPatience = Duration.seconds(10)
    /// Named queries are the same for everyone, and a past week never changes.
    static let cacheTime = 300
    /// "Me" differs per person, and a link may change; so does a play-count filter of one's own.
    static let personalCacheTime = 30

    private let router: CommandRouter
    private let throwback: ThrowbackCommand
    private let store: BotStore
    private let photos: CollagePhotos?
    private let telegram: any TelegramClient
    /// Where collages are uploaded for inline messages, which take no upload themselves.
    private let collageChat: Int64?
    private let metrics: BotMetrics
    private let clock: ElapsedClock
    /// Each asker's latest query id: a query is answered only while it is its asker's latest.
    private let latest = SharedBoundedCache<Int64, String>(capacity: 10_000)

    public init(
        router: CommandRouter, throwback: ThrowbackCommand, store: BotStore, photos: CollagePhotos?, telegram: any TelegramClient,
        collageChat: Int64? = nil, metrics: BotMetrics = .none, clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.collageChat = collageChat
        self.router = router
        self.throwback = throwback
        self.store = store
        self.photos = photos
        self.telegram = telegram
        self.metrics = metrics
        self.clock = ElapsedClock(clock)
    }

    /// Notes a query as its asker's latest: called in the order queries arrive.
    func arrived(_ query: InlineQuery) {
        latest.set(query.id, forKey: query.from.id)
    }

    /// Answers `query` once the pause after its arrival has passed, unless its asker typed on.
    /// Returns the names its buttons stand for, to keep with the handled update.
    func answer(_ query: InlineQuery, arrivedAt: Duration, logger: Logger) async -> YearNavigation.Buttons {
        try? await clock.sleep(arrivedAt + Self.pause - clock.elapsed())
        guard !Task.isCancelled, latest.value(forKey: query.from.id) == query.id else {
            count("superseded")
            return YearNavigation.Buttons()
        }
        latest.removeValue(forKey: query.from.id)
        let (outcome, answer, buttons) = await self.answer(to: query)
        let patience = arrivedAt + Self.deadline - clock.elapsed()
        guard patience > .zero else {
            logger.notice("an inline query waited too long to be answered")
            count("late")
            return YearNavigation.Buttons()
        }
        do {
            _ = try await telegram.send(answer.patient(for: patience))
            count(outcome)
        } catch {
            logger.notice("could not answer an inline query", metadata: ["error": "\(error)"])
            count("failed")
        }
        return buttons
    }

    /// A result was sent. One sent as text for want of an uploaded collage gets the collage
    /// now: drawn, uploaded to the collage chat, and put into the message by its `file_id`,
    /// which is kept first: replayed after a crash, the update finds the upload and puts it in.
    func sent(_ chosen: ChosenInlineResult, logger: Logger) async {
        metrics.increment("vinylogue_inline_results_chosen_total")
        guard let collageChat, let photos, let inlineMessageID = chosen.inlineMessageID,
              let target = await YearNavigation(store: store).target(from: chosen.resultID)
        else { return }
        let minimum = (try? await store.settings(for: chosen.from.id).minimumPlayCount) ?? 1
        let language = Language(telegramCode: chosen.from.languageCode)
        let reply = await throwback.throwback(user: target.user, yearsAgo: target.yearsAgo, minimumPlayCount: minimum, in: language)
        guard case .throwback(.chart(let summary)) = reply, let photo = await photos.photo(for: summary) else { return }
        let caption = CollagePhotos.captionFormatter.speaking(language).format(summary)
        do {
            let fileID: String
            switch photo {
            case .stored(let stored, _):
                fileID = stored
            case .rendered:
                // Not through the outbox: this upload to the bot's own collage chat is how the
                // picture gets a file_id, needed now, and nobody waits to read it there.
                let upload = try await telegram.send(
                    TelegramRequest<SentMessage>.sendPhoto(chatID: collageChat, photo: photo.source, captionHTML: caption).patient(for: Self.editPatience)
                )
                guard let uploaded = upload.photoFileID else { return }
                if let key = photo.reusableKey { await photos.uploaded(key, as: upload) }
                fileID = uploaded
            }
            let keyboard = YearNavigation.buttons(for: reply, in: language).keyboard
            _ = try await telegram.send(
                TelegramRequest.editInlineMessagePhoto(inlineMessageID, fileID: fileID, captionHTML: caption, keyboard: keyboard).patient(for: Self.editPatience)
            )
        } catch let error as TelegramError where error.verdict == .refused(.alreadyDone) {
            // It was sent as that photo already.
        } catch {
            logger.notice("could not put a collage into an inline message", metadata: ["error": "\(error)"])
        }
    }

    /// Shows `reply` in a message sent in inline mode, after a ◀ ▶ press on it: as that
    /// week's collage where it was uploaded before (a text message then becomes a photo),
    /// else as text. Telegram does not say whether the message is text or a photo: text is
    /// tried first, and a photo keeps its picture and changes its caption.
    func edit(_ inlineMessageID: String, to reply: BotReply, keyboard: InlineKeyboard?, in language: Language, logger: Logger) async {
        let caption = reply.rendered(with: CollagePhotos.captionFormatter.speaking(language)) ?? ""
        do {
            if case .throwback(.chart(let summary)) = reply, let fileID = await photos?.uploadedFileID(for: summary) {
                _ = try await telegram.send(
                    TelegramRequest.editInlineMessagePhoto(inlineMessageID, fileID: fileID, captionHTML: caption, keyboard: keyboard).patient(for: Self.editPatience)
                )
                return
            }
            do {
                _ = try await telegram.send(
                    TelegramRequest.editInlineMessageText(inlineMessageID, html: reply.rendered(with: .telegram.speaking(language)) ?? "", keyboard: keyboard)
                        .patient(for: Self.editPatience)
                )
            } catch TelegramError.badRequest(let description) where description.contains("no text in the message") {
                _ = try await telegram.send(
                    TelegramRequest.editInlineMessageCaption(inlineMessageID, captionHTML: caption, keyboard: keyboard).patient(for: Self.editPatience)
                )
            }
        } catch let error as TelegramError where error.verdict == .refused(.alreadyDone) {
            // Pressed twice: it shows that year already.
        } catch {
            logger.notice("could not edit an inline message", metadata: ["error": "\(error)"])
        }
    }

    /// The answer to `query`, as it would be sent now, without the pause: for the fuzz harness.
    public func answerRequest(for query: InlineQuery) async -> TelegramRequest<TelegramOK> {
        await answer(to: query).1
    }

    /// The answer, how it is counted, and the names its buttons stand for.
    private func answer(to query: InlineQuery) async -> (String, TelegramRequest<TelegramOK>, YearNavigation.Buttons) {
        let asker = query.from.id
        // Inline mode has no chat of its own: the asker's Telegram language.
        let language = Language(telegramCode: query.from.languageCode)
        let noThrowback = language.text(.inlineNoThrowbackTitle)
        func refusal(_ text: String, _ outcome: String) -> (String, TelegramRequest<TelegramOK>, YearNavigation.Buttons) {
            let result = InlineQueryResult.article(id: "refusal", title: noThrowback, description: String(text.prefix(120)), html: TelegramHTML.escape(text))
            return (outcome, .answerInlineQuery(id: query.id, results: [result], cacheTime: 0, isPersonal: true), YearNavigation.Buttons())
        }
        var invocation = CommandInvocation(chatID: asker, isPrivateChat: true, userID: asker, language: language)
        if case .refused(let reply) = await router.admit(invocation) {
            return refusal(reply.rendered(with: .plain) ?? language.text(.inlineTooMany), "refused")
        }
        invocation.arguments = query.query.split(whereSeparator: \.isWhitespace).map(String.init)
        let parsed: CommandInvocation
        switch throwback.parse(invocation) {
        case .success(let value): parsed = value
        case .failure(let error): return refusal(error.problem ?? language.text(.inlineUsage), "usage")
        }
        if parsed.lastFMUser == nil, (try? await store.linkedName(of: asker)) == nil {
            let button = InlineQueryResultsButton(text: language.text(.inlineLink), startParameter: HelpCommand.linkStart)
            return ("not_linked", .answerInlineQuery(id: query.id, results: [], cacheTime: 0, isPersonal: true, button: button), YearNavigation.Buttons())
        }
        let allowed: CommandInvocation
        switch await router.authorize(throwback, parsed) {
        case .success(let value): allowed = value
        case .failure(let denial): return refusal(denial.reply.rendered(with: .plain) ?? language.text(.inlineUnavailable), "refused")
        }
        guard case .reply(let reply) = await throwback.execute(allowed) else { return refusal(language.text(.inlineNoThrowback), "failed") }
        guard case .throwback(.chart(let summary)) = reply else {
            // No week to show (no history then, an unknown user, Last.fm down): say so.
            let plain = reply.rendered(with: ChartFormatter.plain.speaking(language)) ?? language.text(.inlineNoThrowback)
            let html = reply.rendered(with: .telegram.speaking(language)) ?? TelegramHTML.escape(plain)
            let article = InlineQueryResult.article(id: "asked", title: noThrowback, description: String(plain.prefix(120)), html: html)
            return ("answered", .answerInlineQuery(id: query.id, results: [article], cacheTime: 0, isPersonal: parsed.lastFMUser == nil), YearNavigation.Buttons())
        }
        // Telegram shows an answer that is not personal to anyone who types the same text: only
        // one drawn with the default filter is the same for everyone.
        let personal = parsed.lastFMUser == nil || summary.minimumPlayCount != ChatSettings(id: asker).minimumPlayCount
        let cacheTime = personal ? Self.personalCacheTime : Self.cacheTime
        var buttons = YearNavigation.Buttons()
        var results = [await result(for: summary, buttons: &buttons, in: language)]
        let namesYears = invocation.arguments.last.flatMap(CommandParser.years) != nil
        if !namesYears {
            for years in Self.moreYears where years != summary.yearsAgo {
                let more = await throwback.throwback(user: summary.user, yearsAgo: years, minimumPlayCount: summary.minimumPlayCount, in: language)
                if case .throwback(.chart(let other)) = more, !other.albums.isEmpty {
                    results.append(await result(for: other, buttons: &buttons, in: language))
                }
            }
        }
        return ("answered", .answerInlineQuery(id: query.id, results: results, cacheTime: cacheTime, isPersonal: personal), buttons)
    }

    /// A chart as a result: its uploaded collage where there is one, else text; with the ◀ ▶
    /// buttons of a chat reply, whose names join `buttons`.
    private func result(for summary: ChartSummary, buttons: inout YearNavigation.Buttons, in language: Language) async -> InlineQueryResult {
        let navigation = YearNavigation.buttons(for: .throwback(.chart(summary)), in: language)
        buttons.names += navigation.names
        let keyboard = navigation.keyboard
        // The id names the throwback, so that a chosen result can be drawn as a collage.
        let id = YearNavigation.data(for: YearNavigation.Target(user: summary.user, yearsAgo: summary.yearsAgo), names: &buttons.names)
        let title = language.text(.inlineTitle, summary.user, language.yearsAgo(summary.yearsAgo))
        if let fileID = await photos?.uploadedFileID(for: summary) {
            let caption = CollagePhotos.captionFormatter.speaking(language).format(summary)
            return .cachedPhoto(id: id, fileID: fileID, title: title, captionHTML: caption, keyboard: keyboard)
        }
        let top = summary.albums.first.map { "\($0.artist) – \($0.name)" }
        return .article(id: id, title: title, description: top, html: ChartFormatter.telegram.speaking(language).format(summary), keyboard: keyboard)
    }

    private func count(_ outcome: String) {
        metrics.increment("vinylogue_inline_queries_total", [("outcome", outcome)])
    }
}
