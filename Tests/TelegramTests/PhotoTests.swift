import Clocks
import Foundation
import Networking
import Telegram
import Testing
import TestSupport
import TestLogging

/// A JPEG as far as its signature goes, holding the bytes a careless multipart encoder or
/// parser would trip over: line breaks, dashes, quotes, and every byte value.
private let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0] + Array("\r\n--\r\n\r\n\"--".utf8) + (0...255).map { UInt8($0) })
private let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
private let keyboard = InlineKeyboard(rows: [[.init(text: "◀", callbackData: "tb:prev"), .init(text: "▶", callbackData: "tb:next")]])
private let sentPhoto = #"{"ok":true,"result":{"message_id":5,"chat":{"id":-1,"type":"group"},"photo":[{"file_id":"s","width":90,"height":90},{"file_id":"big","width":800,"height":600},{"file_id":"m","width":320,"height":240}]}}"#

private func upload(_ data: Data = jpeg) -> PhotoSource {
    .upload(InputFile(filename: "collage.jpg", contentType: "image/jpeg", data: data))
}

@Suite(.capturingLogs) struct PhotoRequestTests {
    @Test func anUploadGoesAsAFormWithTheMarkupAsJSONAndTheBytesUnchanged() async throws {
        let (client, transport) = telegram([.respond(status: 200, body: sentPhoto)])
        let sent = try await client.sendPhoto(chatID: -1, photo: upload(), captionHTML: "<b>2023</b> & 42", replyTo: 4, keyboard: keyboard)
        #expect(sent.photoFileID == "big")
        let request = try #require(transport.requests.first)
        #expect(request.url.absoluteString == "http://fake/bot\(token)/sendPhoto")
        let contentType = try #require(request.headers["Content-Type"])
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        let form = try MultipartForm(body: request.body ?? Data(), contentType: contentType)
        #expect(form.fields["chat_id"] == "-1")
        #expect(form.fields["caption"] == "<b>2023</b> & 42")
        #expect(form.fields["parse_mode"] == "HTML")
        let markup = try JSONSerialization.jsonObject(with: Data((form.fields["reply_markup"] ?? "").utf8)) as? [String: Any]
        let rows = markup?["inline_keyboard"] as? [[[String: Any]]]
        #expect(rows?.first?.compactMap { $0["callback_data"] as? String } == ["tb:prev", "tb:next"])
        let reply = try JSONSerialization.jsonObject(with: Data((form.fields["reply_parameters"] ?? "").utf8)) as? [String: Any]
        #expect(reply?["message_id"] as? Int == 4)
        let photo = try #require(form.parts.first { $0.name == "photo" })
        #expect(photo.filename == "collage.jpg")
        #expect(photo.contentType == "image/jpeg")
        #expect(photo.data == jpeg)
        #expect(form.files.count == 1)
    }

    /// A picture Telegram will not take leaves the message its caption, as the same message
    /// would be without the picture: a new message as text, an edit of the caption only.
    @Test func withoutItsPhotoAMessageIsItsCaption() throws {
        let photo = TelegramRequest<SentMessage>.sendPhoto(
            chatID: -1, photo: upload(), captionHTML: "<b>2023</b>", replyTo: 4, topic: 9, keyboard: keyboard
        )
        let text = try #require(photo.withoutPhoto)
        #expect(text.method == "sendMessage")
        #expect(text.attachments.isEmpty)
        #expect(text.parameters == TelegramRequest<SentMessage>.sendMessage(chatID: -1, html: "<b>2023</b>", replyTo: 4, topic: 9, keyboard: keyboard).parameters)

        let edit = TelegramRequest<SentMessage>.editMessageMedia(chatID: -1, messageID: 5, photo: .fileID("big"), captionHTML: "week 2", keyboard: keyboard)
        let caption = try #require(edit.withoutPhoto)
        #expect(caption.method == "editMessageCaption")
        #expect(caption.parameters == TelegramRequest<IgnoredResult>.editMessageCaption(chatID: -1, messageID: 5, captionHTML: "week 2", keyboard: keyboard).parameters)

        #expect(TelegramRequest<SentMessage>.sendPhoto(chatID: -1, photo: upload(), captionHTML: "").withoutPhoto == nil)
        #expect(TelegramRequest<SentMessage>.sendMessage(chatID: -1, html: "hi").withoutPhoto == nil)
    }

    @Test func aPhotoByFileIDAndTextRequestsStayJSON() async throws {
        let (client, transport) = telegram([
            .respond(status: 200, body: sentPhoto), .respond(status: 200, body: #"{"ok":true,"result":{"message_id":6,"chat":{"id":-1,"type":"group"}}}"#),
        ])
        try await client.sendPhoto(chatID: -1, photo: .fileID("big"), captionHTML: "again")
        let text = try await client.sendMessage(chatID: -1, html: "hi")
        #expect(text.photoFileID == nil)
        for request in transport.requests {
            #expect(request.headers == ["Content-Type": "application/json"])
            #expect((try JSONSerialization.jsonObject(with: request.body ?? Data())) is [String: Any])
        }
        let body = try JSONSerialization.jsonObject(with: transport.requests[0].body ?? Data()) as? [String: Any]
        #expect(body?["photo"] as? String == "big")
    }

    @Test func anEditedPhotoNamesItsPartInTheMedia() async throws {
        let (client, transport) = telegram([.respond(status: 200, body: sentPhoto)])
        try await client.editMessageMedia(chatID: -1, messageID: 5, photo: upload(), captionHTML: "week 2", keyboard: keyboard)
        let request = try #require(transport.requests.first)
        let form = try MultipartForm(body: request.body ?? Data(), contentType: request.headers["Content-Type"] ?? "")
        let media = try JSONSerialization.jsonObject(with: Data((form.fields["media"] ?? "").utf8)) as? [String: Any]
        #expect(media?["type"] as? String == "photo")
        #expect(media?["caption"] as? String == "week 2")
        #expect(media?["parse_mode"] as? String == "HTML")
        let part = try #require((media?["media"] as? String)?.split(separator: "attach://").last.map(String.init))
        #expect(form.files[part] == jpeg)
    }

    /// A photo sent again would show twice; its edits, made twice, change nothing more.
    @Test func aPhotoIsNeverSentTwiceButItsEditsMayGoAgain() {
        #expect(!TelegramRequest<SentMessage>.sendPhoto(chatID: 1, photo: .fileID("x"), captionHTML: "").isRepeatable)
        #expect(TelegramRequest<SentMessage>.editMessageMedia(chatID: 1, messageID: 2, photo: .fileID("x"), captionHTML: "").isRepeatable)
        #expect(TelegramRequest<IgnoredResult>.editMessageCaption(chatID: 1, messageID: 2, captionHTML: "").isRepeatable)
    }

    @Test func theLargestSizeGivesTheFileIDAndBothTypesRoundTrip() throws {
        let body = #"{"message_id":5,"chat":{"id":-1},"photo":[{"file_id":"a","width":800,"height":800},{"file_id":"b","width":90,"height":90},{"file_id":"c","width":800,"height":800}]}"#
        let sent = try JSONDecoder().decode(SentMessage.self, from: Data(body.utf8))
        #expect(sent.photoFileID == "c")
        #expect(try JSONDecoder().decode(SentMessage.self, from: JSONEncoder().encode(sent)) == sent)
        let malformed = #"{"message_id":5,"chat":{"id":-1},"photo":"nope"}"#
        #expect(try JSONDecoder().decode(SentMessage.self, from: Data(malformed.utf8)) == SentMessage(messageID: 5, chatID: -1))

        let message = try JSONDecoder().decode(Message.self, from: Data(#"{"message_id":1,"chat":{"id":1,"type":"group"},"caption":"x","photo":[{"file_id":"a"}]}"#.utf8))
        #expect(message.hasPhoto)
        #expect(try JSONDecoder().decode(Message.self, from: JSONEncoder().encode(message)) == message)
        let text = Message(messageID: 1, chat: Chat(id: 1, type: "group"), text: "hi")
        #expect(!text.hasPhoto)
        #expect(try JSONDecoder().decode(Message.self, from: JSONEncoder().encode(text)) == text)
    }

    @Test func captionsAreCountedOnceParsed() {
        #expect(TelegramHTML.captionProblem(in: "") == nil)
        #expect(TelegramHTML.captionProblem(in: "<b>" + String(repeating: "&amp;", count: 1024) + "</b>") == nil)
        #expect(TelegramHTML.captionProblem(in: String(repeating: "a", count: 1025)) == "message caption is too long")
        #expect(TelegramHTML.captionProblem(in: "<b>x") != nil)
    }

    @Test(arguments: [
        ("multipart/form-data; boundary=b", "no boundary at all"),
        ("multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue\r\n--b"),
        ("multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue"),
        ("multipart/form-data; boundary=b", "--b\r\nContent-Type: text/plain\r\n\r\nvalue\r\n--b--\r\n"),
        ("multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"a\"\r\nvalue\r\n--b--\r\n"),
        ("multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n2\r\n--b--\r\n"),
        ("multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--b--\r\ntrailing"),
        ("multipart/form-data", "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--b--\r\n"),
        ("multipart/form-data; boundary=c", "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--b--\r\n"),
    ])
    func theStrictParserRefusesMalformedForms(contentType: String, body: String) {
        #expect(throws: MultipartForm.ParseError.self) { try MultipartForm(body: Data(body.utf8), contentType: contentType) }
    }

    @Test func theStrictParserReadsAWellFormedForm() throws {
        let body = "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n"
            + "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x;y.png\"\r\nContent-Type: image/png\r\n\r\n\r\n--\r\n--b--\r\n"
        let form = try MultipartForm(body: Data(body.utf8), contentType: #"multipart/form-data; boundary="b""#)
        #expect(form.fields == ["a": "1"])
        #expect(form.files == ["f": Data("\r\n--".utf8)])
        #expect(form.parts.last?.filename == "x;y.png")
    }
}

/// A client whose calls are each a second after the one before, on `clock`.
struct SecondApart: TelegramClient {
    let base: any TelegramClient
    let clock: TestClock<Duration>

    func send<Response>(_ request: TelegramRequest<Response>) async throws -> Response {
        await clock.advance(by: .seconds(1))
        return try await base.send(request)
    }
}

/// Photo calls through the production HTTP client and transport, against the fake Telegram.
@Suite(.capturingLogs) struct FakeTelegramPhotoTests {
    /// Runs `body` against a started fake at its base URL, which is stopped however `body`
    /// ends. A second passes on the fake's clock before each call, as the bot's outbox spaces
    /// messages to a chat, so that its flood limit never comes into these tests.
    private func withFake(_ body: (FakeTelegram, SecondApart, URL) async throws -> Void) async throws {
        let fake = FakeTelegram()
        let url = try await fake.start()
        let clock = TestClock()
        await fake.useClock(clock)
        let client = SecondApart(base: HTTPTelegramClient(transport: CurlTransport(), baseURL: url, token: Secret(fake.token)), clock: clock)
        do {
            try await body(fake, client, url)
        } catch {
            await fake.stop()
            throw error
        }
        await fake.stop()
    }

    @Test func anUploadCanBeSentAgainByItsFileIDWithoutUploadingIt() async throws {
        try await withFake { fake, client, _ in
            let first = try await client.sendPhoto(chatID: -5, photo: upload(), captionHTML: "<b>2023</b>", keyboard: keyboard)
            let fileID = try #require(first.photoFileID)
            #expect(await fake.uploadedPhotos == [jpeg])
            #expect(await fake.photoData(fileID: fileID) == jpeg)
            let call = try #require(await fake.calls("sendPhoto").first)
            #expect(call.contentType.hasPrefix("multipart/form-data"))
            #expect(call.files["photo"] == jpeg)
            #expect(call.chatID == -5)
            #expect(call.caption == "<b>2023</b>")
            #expect(call.buttonData == ["tb:prev", "tb:next"])

            let again = try await client.sendPhoto(chatID: -5, photo: .fileID(fileID), captionHTML: "again", replyTo: first.messageID)
            // The answer names the same photo.
            #expect(again.photoFileID == fileID)
            #expect(again.messageID != first.messageID)
            #expect(await fake.uploadedPhotos.count == 1)
            #expect(await fake.calls("sendPhoto").last?.contentType == "application/json")
            #expect(await fake.sentMessageIDs == [first.messageID, again.messageID])
            #expect(await fake.delivered.count == 2)
            #expect(await fake.photoMessage(chat: -5, messageID: again.messageID)?.caption == "again")
        }
    }

    @Test func aTextMessageStillGoesAsJSON() async throws {
        try await withFake { fake, client, _ in
            let sent = try await client.sendMessage(chatID: -5, html: "hi")
            let call = try #require(await fake.calls("sendMessage").first)
            #expect(call.contentType == "application/json")
            #expect(call.form == nil)
            #expect(await fake.textMessage(chat: -5, messageID: sent.messageID) == "hi")
            #expect(await fake.photoMessage(chat: -5, messageID: sent.messageID) == nil)
        }
    }

    @Test(arguments: [
        (PhotoSource.fileID("photo-404"), "<b>x</b>", "Bad Request: wrong file identifier/HTTP URL specified"),
        (upload(Data("GIF89a".utf8)), "x", "Bad Request: IMAGE_PROCESS_FAILED"),
        (upload(Data()), "x", "Bad Request: IMAGE_PROCESS_FAILED"),
        (upload(png), String(repeating: "a", count: 1025), "Bad Request: message caption is too long"),
        (upload(), "<b>x", "Bad Request: can't parse entities: can't find end tag corresponding to start tag \"b\""),
    ])
    func badPhotosAndCaptionsAreRefused(photo: PhotoSource, caption: String, description: String) async throws {
        try await withFake { fake, client, _ in
            await #expect(throws: TelegramError.badRequest(description)) {
                try await client.sendPhoto(chatID: -5, photo: photo, captionHTML: caption)
            }
            #expect(await fake.delivered.isEmpty)
            #expect(await fake.uploadedPhotos.isEmpty)
            #expect(await fake.refusals.map(\.description) == [description])
        }
    }

    @Test func aCaptionOf1024ParsedUnitsIsTaken() async throws {
        try await withFake { _, client, _ in
            let caption = "<i>" + String(repeating: "&lt;", count: 1024) + "</i>"
            let sent = try await client.sendPhoto(chatID: -5, photo: upload(png), captionHTML: caption)
            #expect(sent.photoFileID != nil)
        }
    }

    @Test func editMessageMediaReplacesThePhotoInPlace() async throws {
        try await withFake { fake, client, _ in
            let sent = try await client.sendPhoto(chatID: -5, photo: upload(), captionHTML: "week 1", keyboard: keyboard)
            let other = jpeg + Data("other".utf8)
            let edited = try await client.editMessageMedia(
                chatID: -5, messageID: sent.messageID, photo: upload(other), captionHTML: "week 2", keyboard: keyboard
            )
            #expect(edited.messageID == sent.messageID)
            let newID = try #require(edited.photoFileID)
            #expect(newID != sent.photoFileID)
            let shown = try #require(await fake.photoMessage(chat: -5, messageID: sent.messageID))
            #expect(shown.fileID == newID)
            #expect(shown.caption == "week 2")
            #expect(await fake.photoData(fileID: newID) == other)
            #expect(await fake.uploadedPhotos == [jpeg, other])
            #expect(await fake.sentMessageIDs == [sent.messageID])

            // Back to the first photo by its file id: nothing is uploaded.
            let firstID = try #require(sent.photoFileID)
            let back = try await client.editMessageMedia(
                chatID: -5, messageID: sent.messageID, photo: .fileID(firstID), captionHTML: "week 1", keyboard: keyboard
            )
            #expect(back.photoFileID == firstID)
            #expect(await fake.photoMessage(chat: -5, messageID: sent.messageID)?.fileID == firstID)
            #expect(await fake.uploadedPhotos.count == 2)

            await #expect(throws: TelegramError.self) {
                try await client.editMessageMedia(
                    chatID: -5, messageID: sent.messageID, photo: .fileID(firstID), captionHTML: "week 1", keyboard: keyboard
                )
            }
            #expect(await fake.refusals.last?.description.hasPrefix("Bad Request: message is not modified") == true)
            await #expect(throws: TelegramError.badRequest("Bad Request: message to edit not found")) {
                try await client.editMessageMedia(chatID: -5, messageID: 1, photo: upload(), captionHTML: "x")
            }
        }
    }

    @Test func anAttachedPartMustBeInTheBody() async throws {
        try await withFake { fake, client, _ in
            let sent = try await client.sendPhoto(chatID: -5, photo: upload(), captionHTML: "week 1")
            var request = TelegramRequest<SentMessage>.editMessageMedia(chatID: -5, messageID: sent.messageID, photo: upload(), captionHTML: "x")
            request.attachments = ["elsewhere": InputFile(filename: "a.jpg", contentType: "image/jpeg", data: jpeg)]
            await #expect(throws: TelegramError.badRequest("Bad Request: wrong file identifier/HTTP URL specified")) {
                try await client.send(request)
            }
            #expect(await fake.photoMessage(chat: -5, messageID: sent.messageID)?.caption == "week 1")
        }
    }

    @Test func editsMustSuitTheKindOfMessage() async throws {
        try await withFake { _, client, _ in
            let photo = try await client.sendPhoto(chatID: -5, photo: upload(), captionHTML: "week 1")
            let text = try await client.sendMessage(chatID: -5, html: "hi")
            await #expect(throws: TelegramError.badRequest("Bad Request: there is no text in the message to edit")) {
                try await client.editMessageText(chatID: -5, messageID: photo.messageID, html: "week 2")
            }
            await #expect(throws: TelegramError.badRequest("Bad Request: there is no media in the message to edit")) {
                try await client.editMessageMedia(chatID: -5, messageID: text.messageID, photo: upload(), captionHTML: "x")
            }
            await #expect(throws: TelegramError.badRequest("Bad Request: there is no caption in the message to edit")) {
                try await client.editMessageCaption(chatID: -5, messageID: text.messageID, captionHTML: "x")
            }
        }
    }

    @Test func editMessageCaptionReplacesOnlyTheCaption() async throws {
        try await withFake { fake, client, _ in
            let sent = try await client.sendPhoto(chatID: -5, photo: upload(), captionHTML: "week 1", keyboard: keyboard)
            try await client.editMessageCaption(chatID: -5, messageID: sent.messageID, captionHTML: "<i>week 1</i>", keyboard: keyboard)
            let shown = try #require(await fake.photoMessage(chat: -5, messageID: sent.messageID))
            #expect(shown.fileID == sent.photoFileID)
            #expect(shown.caption == "<i>week 1</i>")
            await #expect(throws: TelegramError.self) {
                try await client.editMessageCaption(chatID: -5, messageID: sent.messageID, captionHTML: "<i>week 1</i>", keyboard: keyboard)
            }
            #expect(await fake.refusals.last?.description.hasPrefix("Bad Request: message is not modified") == true)
            await #expect(throws: TelegramError.badRequest("Bad Request: message caption is too long")) {
                try await client.editMessageCaption(chatID: -5, messageID: sent.messageID, captionHTML: String(repeating: "a", count: 1025))
            }
        }
    }

    @Test func aButtonUnderAPhotoComesWithThePhoto() async throws {
        try await withFake { fake, client, _ in
            let photo = try await client.sendPhoto(chatID: -5, photo: upload(), captionHTML: "week 1", keyboard: keyboard)
            let text = try await client.sendMessage(chatID: -5, html: "hi", keyboard: keyboard)
            await fake.pushCallback(data: "tb:next", chatID: -5, messageID: photo.messageID)
            await fake.pushCallback(data: "tb:next", chatID: -5, messageID: text.messageID)
            let updates = try await client.getUpdates(offset: nil, timeout: 0, allowedUpdates: ["callback_query"]).map(\.update)
            #expect(updates.map { $0.callbackQuery?.message?.hasPhoto } == [true, false])
            #expect(updates.first?.callbackQuery?.message?.text == nil)
        }
    }

    @Test func aMalformedFormIsRefused() async throws {
        try await withFake { fake, _, base in
            let response = try await CurlTransport().send(HTTPRequest(
                method: "POST", url: base.appending(path: "bot\(fake.token)/sendPhoto"), headers: ["Content-Type": "multipart/form-data; boundary=xyz"],
                body: Data("--xyz\r\nContent-Disposition: form-data; name=\"chat_id\"\r\n\r\n-5\r\n".utf8)
            ))
            #expect(response.status == 400)
            let body = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            #expect((body?["description"] as? String)?.hasPrefix("Bad Request: can't parse multipart/form-data") == true)
            #expect(await fake.delivered.isEmpty)
        }
    }

    /// A wrong expectation in a test must fail it when its suite's time limit cancels it, not
    /// hang the run: the fake's waits end on cancellation.
    @Test(.timeLimit(.minutes(1))) func aWaitThatIsNeverMetEndsWhenItsTaskIsCancelled() async throws {
        try await withFake { fake, client, _ in
            let waiting = Task { try await fake.waitForCalls("sendMessage", count: 2) }
            let waitingForever = Task { try await fake.waitForDeliveries(5) }
            _ = try await client.sendMessage(chatID: -5, html: "one")
            waiting.cancel()
            waitingForever.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            await #expect(throws: CancellationError.self) { try await waitingForever.value }
            let met = Task { try await fake.waitForCalls("sendMessage", count: 1) }
            try await met.value
        }
    }
}
