import Foundation

/// A file or folder a command was told to write to, checked before any work: a missing or
/// unwritable folder, or a folder given for a file, is named in a sentence rather than
/// failing late with the system's error.
enum OutputPath {
    /// Why a file cannot be written at `path`, in a sentence, or nil if it can. `example`
    /// names a file to suggest when `path` is a folder.
    static func problem(writingTo path: String, example: String) -> String? {
        if isFolder(path) { return "\(path) is a folder; give a file name, such as \(URL(fileURLWithPath: path).appendingPathComponent(example).path)" }
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: parent) else { return "there is no folder \(parent)" }
        guard isFolder(parent) else { return "\(parent) is not a folder" }
        guard FileManager.default.isWritableFile(atPath: parent) else { return "the folder \(parent) is not writable" }
        return nil
    }

    /// Makes `path` a folder to write files to, creating it (and any missing parents) if it
    /// does not exist. Why it cannot be one, in a sentence, or nil.
    static func problem(preparingFolder path: String) -> String? {
        if FileManager.default.fileExists(atPath: path) {
            guard isFolder(path) else { return "\(path) is a file, not a folder" }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                return "could not create the folder \(path): \(reason(error))"
            }
        }
        guard FileManager.default.isWritableFile(atPath: path) else { return "the folder \(path) is not writable" }
        return nil
    }

    private static func isFolder(_ path: String) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && folder.boolValue
    }

    /// The system's reason for a file error ("Permission denied"), rather than Foundation's
    /// "The operation could not be completed" with a domain and a code.
    static func reason(_ error: any Error) -> String {
        if let underlying = (error as? CocoaError)?.underlying.map({ $0 as NSError }), underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        let text = error.localizedDescription
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }
}
