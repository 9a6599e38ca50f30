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

    /// Kept here, not in the base handler: it joins each event's own metadata and is
    /// redacted with it. (A stream handler would also re-render it on every change, and the
    /// bot sets a few keys for every update.)
    public var metadata: Logger.Metadata = [:]

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        if !metadata.isEmpty { event.metadata = metadata.merging(event.metadata ?? [:]) { _, new in new } }
        guard !redactor.isEmpty else { return base.log(event: event) }
        event.message = "\(redactor.redact(event.message.description))"
        event.metadata = event.metadata.map { $0.mapValues(redact) }
        event.error = event.error.map { RedactedError(description: redactor.redact("\($0)")) }
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
