import Logging

/// Logging off for the whole process: the clients log every odd answer, and a fuzzer sends
/// nothing but odd answers. Call `Quiet.setUp()` before building any client.
public enum Quiet {
    private static let bootstrapped: Bool = {
        LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }
        return true
    }()

    public static func setUp() {
        _ = bootstrapped
    }
}
