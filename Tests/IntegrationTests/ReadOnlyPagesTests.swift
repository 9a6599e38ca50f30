import Covers
import Foundation
import ProcessMemory
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `ReadOnlyPages` on mappings made for the test, in this process: unwritten read-only
/// pages leave the resident set, and nothing written is ever dropped.
///
/// A release anywhere in the process drops these mappings' pages too, so nothing else may
/// release between a test's steps: the tests run one at a time, and libgd, whose loading
/// releases once per process, is loaded first.
@Suite(.serialized)
struct ReadOnlyPagesTests {
    init() {
        _ = try? CollageRenderer().renderSync([CollageTile(rank: 1, image: nil)])
    }

    /// A private mapping of a 64 KiB file of known bytes, unmapped and deleted on `close`.
    private final class MappedFile {
        static let size = 65_536
        let address: UnsafeMutableRawPointer
        let path: String

        init(writable: Bool) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("read-only-pages-\(UUID().uuidString)").path
            try Data((0..<Self.size).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: path))
            let descriptor = open(path, O_RDONLY)
            try #require(descriptor >= 0)
            defer { Glibc.close(descriptor) }
            let protection = writable ? PROT_READ | PROT_WRITE : PROT_READ
            let mapped = mmap(nil, Self.size, protection, MAP_PRIVATE, descriptor, 0)
            try #require(mapped != MAP_FAILED)
            address = try #require(mapped)
        }

        var bytes: [UInt8] { Array(UnsafeRawBufferPointer(start: address, count: Self.size)) }

        /// The mapping's `Rss` in smaps, in kB.
        func residentKilobytes() throws -> Int {
            let smaps = try readWhole("/proc/self/smaps")
            let start = String(UInt(bitPattern: address), radix: 16)
            let lines = smaps.split(separator: "\n")
            let header = try #require(lines.firstIndex { $0.hasPrefix(start + "-") })
            let rss = try #require(lines[header...].first { $0.hasPrefix("Rss:") })
            return try #require(Int(rss.split(separator: " ", omittingEmptySubsequences: true)[1]))
        }

        /// Foundation stops reading a procfs file after its first read, a page at most.
        private func readWhole(_ path: String) throws -> String {
            let descriptor = open(path, O_RDONLY)
            try #require(descriptor >= 0)
            defer { Glibc.close(descriptor) }
            var contents: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                try #require(count >= 0)
                if count == 0 { return String(decoding: contents, as: UTF8.self) }
                contents += chunk[..<count]
            }
        }

        func close() {
            munmap(address, Self.size)
            unlink(path)
        }
    }

    @Test func readOnlyPagesLeaveTheResidentSetAndReadBackTheSame() throws {
        let file = try MappedFile(writable: false)
        defer { file.close() }
        let contents = file.bytes
        #expect(try file.residentKilobytes() == MappedFile.size / 1024)

        #expect(ReadOnlyPages.release() >= MappedFile.size)

        #expect(try file.residentKilobytes() == 0)
        #expect(file.bytes == contents)
    }

    /// What relocations do to a library's RELRO segment: written while writable, then made
    /// read-only. Dropping those pages would bring back the file's bytes under the process.
    @Test func pagesWrittenBeforeBecomingReadOnlyAreKept() throws {
        let file = try MappedFile(writable: true)
        defer { file.close() }
        let written = file.address.assumingMemoryBound(to: UInt8.self)
        for offset in stride(from: 0, to: MappedFile.size, by: 4096) { written[offset] = ~written[offset] }
        let contents = file.bytes
        #expect(mprotect(file.address, MappedFile.size, PROT_READ) == 0)

        ReadOnlyPages.release()

        #expect(file.bytes == contents)
        #expect(try file.residentKilobytes() == MappedFile.size / 1024)
    }
}
