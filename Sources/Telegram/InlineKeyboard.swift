/// An inline keyboard: rows of callback buttons.
public struct InlineKeyboard: Sendable, Equatable {
    public struct Button: Sendable, Equatable {
        public var text: String
        public var callbackData: String

        public init(text: String, callbackData: String) {
            self.text = text
            self.callbackData = callbackData
        }
    }

    public var rows: [[Button]]

    public init(rows: [[Button]]) {
        self.rows = rows.filter { !$0.isEmpty }
    }

    var json: JSONValue {
        .object(["inline_keyboard": .array(rows.map { row in
            .array(row.map { .object(["text": .string($0.text), "callback_data": .string($0.callbackData)]) })
        })])
    }
}
