import Foundation
import Logging
import Synchronization

/// Writes one JSON object a line to standard error, for log shippers: `ts`, `level`,
/// `label`, `message`, and the metadata as an object. Wrap it in `RedactingLogHandler` like
/// any other handler.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let write: @Sendable (String) -> Void

    /// - Parameter write: where lines go; standard error by default.
    public init(label: String, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra) { _, new in new } }
        if let error = event.error { fields["error"] = "\(error)" }
        var line = "{\"ts\":\(JSONString.quoted(Self.timestamp(Date()))),\"level\":\(JSONString.quoted(event.level.rawValue))"
        line += ",\"label\":\(JSONString.quoted(label)),\"message\":\(JSONString.quoted(event.message.description))"
        if !fields.isEmpty { line += ",\"metadata\":\(Self.json(.dictionary(fields)))" }
        write(line + "}\n")
    }

    /// Writes a line to standard error, whole: lines from concurrent tasks never interleave.
    public static let standardError: @Sendable (String) -> Void = { line in
        errorLock.withLock { _ in FileHandle.standardError.write(Data(line.utf8)) }
    }

    private static let errorLock = Mutex(())

    private static func json(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): JSONString.quoted(text)
        case .stringConvertible(let convertible): JSONString.quoted(convertible.description)
        case .array(let values): "[" + values.map(json).joined(separator: ",") + "]"
        case .dictionary(let values):
            "{" + values.sorted { $0.key < $1.key }.map { JSONString.quoted($0.key) + ":" + json($0.value) }.joined(separator: ",") + "}"
        }
    }

    /// ISO 8601 in UTC with milliseconds.
    private static func timestamp(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let days = Int(millis / 86_400_000), rest = Int(millis % 86_400_000)
        // Civil date from days since 1970 (Howard Hinnant's algorithm).
        let z = days + 719_468, era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097, yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9, year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ n: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(n).count)) + String(n) }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(rest / 3_600_000, 2)):\(pad(rest / 60000 % 60, 2)):"
            + "\(pad(rest / 1000 % 60, 2)).\(pad(rest % 1000, 3))Z"
    }
}
