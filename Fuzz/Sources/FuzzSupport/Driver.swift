import FuzzDriver

/// Starts libFuzzer. Each harness calls this from `<module>_main`, the entry point SwiftPM
/// links every executable with.
public func runFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzz_driver_main(argc, argv)
}
