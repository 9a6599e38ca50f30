/// Languages in the Bot API's profile methods (core.telegram.org/bots/api#setmycommands,
/// #setmydescription, #setmyshortdescription): `language_code` is a two-letter ISO 639-1
/// code, or empty (or absent) for everyone whose language has no text of its own.
extension FakeTelegram {
    /// The call's `language_code`, "" for none; nil when it is not a two-letter code.
    func languageCode(of call: Call) -> String? {
        let code = call.parameters["language_code"] as? String ?? ""
        guard code.isEmpty || (code.count == 2 && code.allSatisfy { $0.isASCII && $0.isLowercase }) else { return nil }
        return code
    }
}
