import Foundation

/// Where the catalogs are: in SwiftPM's resource bundle of this target, which the build puts
/// next to the binary and the image copies with it.
///
/// Found by hand rather than through `Bundle.module`, which stops the process when the
/// bundle is missing; a bot without its catalogs answers in English instead.
enum CatalogFolder {
    /// SwiftPM's name for the resources of the `Throwback` target of `vinylogue-bot`.
    static let bundleName = "vinylogue-bot_Throwback.resources"

    /// The `Catalogs` folder next to the running binary (following symbolic links), or
    /// next to the main bundle; nil if neither has one.
    static func locate() -> URL? {
        var places: [URL] = []
        if let executable = Bundle.main.executableURL {
            places.append(executable.resolvingSymlinksInPath().deletingLastPathComponent())
            places.append(executable.deletingLastPathComponent())
        }
        places.append(Bundle.main.bundleURL)
        return places.lazy
            .map { $0.appendingPathComponent(bundleName).appendingPathComponent("Catalogs") }
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("en.lproj").path) }
    }
}
