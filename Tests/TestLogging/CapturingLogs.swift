// Swift Testing exists only when tests are built: a release build of every target
// (`swift build -c release`) compiles this module empty.
#if canImport(Testing)
import Logging
import Testing
import TestSupport

/// Sends every log line of the test process to `LogCapture.process` instead of the
/// terminal, so that the 401s and storage failures the tests provoke on purpose do not read
/// as failures among the passes. Set `TEST_LOGS=1` to see them on stderr too.
public struct CapturingLogs: SuiteTrait, TestScoping {
    public var isRecursive: Bool { false }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        LogCapture.captureProcessLogs()
        try await function()
    }
}

extension Trait where Self == CapturingLogs {
    /// Captures the process's log lines; see `CapturingLogs`.
    public static var capturingLogs: Self { CapturingLogs() }
}
#endif
