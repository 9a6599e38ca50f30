import Logging

/// A log handler that removes secrets from every message and metadata value before passing
/// them on: the last line of defence, should any library print an object holding a secret.
public struct RedactingLogHandler: LogHandler {
    private var base: any LogHandler
    private let redactor: SecretRedactor

    public init(_ base: any LogHandler, redactor: SecretRedactor) {
        self.base = base
        self.redactor = redactor
    }

    public var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    public func log(event: LogEvent) {
        guard !redactor.isEmpty else { return base.log(event: event) }
        var event = event
        event.message = "\(redactor.redact(event.message.description))"
        event.metadata = event.metadata.map { $0.mapValues(redact) }
        event.error = event.error.map { RedactedError(description: redactor.redact("\($0)")) }
        // Metadata set on the logger itself is merged by the base handler: redact it too.
        var base = base
        base.metadata = base.metadata.mapValues(redact)
        base.log(event: event)
    }

    /// An error reduced to its redacted description.
    private struct RedactedError: Error, CustomStringConvertible {
        var description: String
    }

    private func redact(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(redactor.redact(text))
        case .stringConvertible(let convertible): .string(redactor.redact(convertible.description))
        case .array(let values): .array(values.map(redact))
        case .dictionary(let values): .dictionary(values.mapValues(redact))
        }
    }
}
