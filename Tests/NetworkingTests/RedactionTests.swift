import Foundation
import Logging
import Networking
import Testing
import TestLogging
import TestSupport

@Suite(.capturingLogs) struct RedactionTests {
    @Test func aSecretIsRedactedWhereverItIsLogged() {
        let token = "123456:SECRET-token"
        let capture = LogCapture()
        var logger = Logger(label: "test") { label in
            RedactingLogHandler(capture.handler(label), redactor: SecretRedactor(secrets: [Secret(token)]))
        }
        logger.logLevel = .trace
        logger[metadataKey: "url"] = "https://api.telegram.org/bot\(token)/getMe"
        logger.trace("asked https://api.telegram.org/bot\(token)/getUpdates", metadata: ["request": "bot\(token)"])
        logger.error("failed", metadata: ["nested": ["list": ["\(token)"]]])
        let logged = capture.allLines
        #expect(logged.count == 2)
        #expect(logged.allSatisfy { !$0.contains(token) })
        // The logger's own metadata still reaches every line, redacted.
        #expect(logged.allSatisfy { $0.contains("api.telegram.org/bot") })
    }

    /// A token in a URL's query is percent-encoded (`:` as `%3A` or `%3a`), and a key inside
    /// JSON may have its `/` escaped (`\/`, `\u002F`): a library that logs either form must not
    /// leak the secret.
    @Test func aSecretIsRedactedInEveryFormItIsWrittenIn() throws {
        let token = "123456:SECRET-token"
        let key = "s3cr3t/with \"odd\" parts"
        let capture = LogCapture()
        let logger = Logger(label: "test") { label in
            RedactingLogHandler(capture.handler(label), redactor: SecretRedactor(secrets: [Secret(token), Secret(key)]))
        }
        let json = String(decoding: try JSONEncoder().encode(["key": key]), as: UTF8.self)
        logger.error("callback https://example.org/hook?token=123456%3ASECRET-token&again=123456%3aSECRET-token")
        logger.error("body \(json)", metadata: ["form": "k=s3cr3t%2Fwith+%22odd%22+parts", "escaped": "s3cr3t\\u002Fwith \\u0022odd\\u0022 parts"])
        let logged = capture.allLines.joined(separator: "\n")
        #expect(json.contains(#"s3cr3t\/with \"odd\" parts"#))
        for leaked in ["SECRET-token", "s3cr3t", "odd", "parts"] {
            #expect(!logged.contains(leaked), "\(leaked) leaked: \(logged)")
        }
        #expect(logged.contains("token=<redacted>&again=<redacted>"))
    }
}

/// SHA-256 and HMAC-SHA256 against the published test vectors (FIPS 180-4 examples, RFC 4231).
@Suite struct SHA256Tests {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func hashesMatchFIPSExamples() {
        #expect(hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hex(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func hmacMatchesRFC4231() {
        #expect(hex(SHA256.hmac(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(hex(SHA256.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // A key longer than a block is hashed first.
        #expect(hex(SHA256.hmac(
            key: [UInt8](repeating: 0xaa, count: 131), message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        )) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func aSecretMatchesOnlyItself() {
        let secret = Secret("abc_DEF-123")
        #expect(secret.matches("abc_DEF-123"))
        #expect(!secret.matches("abc_DEF-124"))
        #expect(!secret.matches("abc_DEF-12"))
        #expect(!secret.matches("abc_DEF-1234"))
        #expect(!secret.matches(""))
        #expect(!Secret("").matches(""))
    }
}
