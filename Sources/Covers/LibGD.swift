import CGD

#if canImport(Glibc)
import Glibc
#endif

/// libgd's functions, opened with `dlopen` when the first picture is drawn instead of linked.
///
/// Debian's libgd3 depends on about forty libraries (HEIF, AVIF, x265, TIFF, X11,
/// fontconfig, …), which the loader maps and relocates with it: about 6 MiB of resident
/// memory. Opened on first use, they cost nothing to a bot whose replies are text, or that
/// has not drawn a collage yet. A system without libgd gets `CoverError.libraryUnavailable`,
/// and throwbacks go out as text, instead of a bot that cannot start.
///
/// The fields are C function pointers, which capture nothing: sharing them across threads
/// is as safe as calling libgd, whose functions work on the image they are given.
struct LibGD: Sendable {
    typealias Image = gdImagePtr
    /// Encodes an image, returning a buffer for `free` and its size through the pointer.
    typealias Encode = @convention(c) (Image?, UnsafeMutablePointer<Int32>?) -> UnsafeMutableRawPointer?

    let createTrueColor: @convention(c) (Int32, Int32) -> Image?
    let destroy: @convention(c) (Image?) -> Void
    let createFromJpeg: @convention(c) (Int32, UnsafeMutableRawPointer?) -> Image?
    let createFromPng: @convention(c) (Int32, UnsafeMutableRawPointer?) -> Image?
    let createFromWebp: @convention(c) (Int32, UnsafeMutableRawPointer?) -> Image?
    let jpeg: @convention(c) (Image?, UnsafeMutablePointer<Int32>?, Int32) -> UnsafeMutableRawPointer?
    let png: Encode
    let webp: Encode
    let free: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let trueColorPixel: @convention(c) (Image?, Int32, Int32) -> Int32
    let filledRectangle: @convention(c) (Image?, Int32, Int32, Int32, Int32, Int32) -> Void
    let filledEllipse: @convention(c) (Image?, Int32, Int32, Int32, Int32, Int32) -> Void
    let filledPolygon: @convention(c) (Image?, UnsafeMutablePointer<gdPoint>?, Int32, Int32) -> Void
    let copy: @convention(c) (Image?, Image?, Int32, Int32, Int32, Int32, Int32, Int32) -> Void
    let copyResampled: @convention(c) (Image?, Image?, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) -> Void
    let copyResized: @convention(c) (Image?, Image?, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) -> Void
    let string: @convention(c) (Image?, gdFontPtr?, Int32, Int32, UnsafeMutablePointer<UInt8>?, Int32) -> Void
    let giantFont: @convention(c) () -> gdFontPtr?

    /// The library's soname, as Debian's libgd3 installs it.
    static let soname = "libgd.so.3"

    /// libgd, opened once; Swift runs a global's initializer exactly once.
    static let shared: Result<LibGD, CoverError> = open()

    private static func open() -> Result<LibGD, CoverError> {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(.libraryUnavailable(dlerror().map { String(cString: $0) } ?? soname))
        }
        do throws(CoverError) {
            let library = try LibGD(handle: handle)
            // libgd reports corrupt input by printing to stderr through its error method;
            // covers come from the internet, so corrupt ones are routine and are reported as
            // `CoverError` instead.
            guard let setErrorMethod = dlsym(handle, "gdSetErrorMethod") else {
                throw .libraryUnavailable("\(soname) has no gdSetErrorMethod")
            }
            cgd_silence(setErrorMethod)
            return .success(library)
        } catch {
            return .failure(error)
        }
    }

    private init(handle: UnsafeMutableRawPointer) throws(CoverError) {
        createTrueColor = try Self.symbol(handle, "gdImageCreateTrueColor")
        destroy = try Self.symbol(handle, "gdImageDestroy")
        createFromJpeg = try Self.symbol(handle, "gdImageCreateFromJpegPtr")
        createFromPng = try Self.symbol(handle, "gdImageCreateFromPngPtr")
        createFromWebp = try Self.symbol(handle, "gdImageCreateFromWebpPtr")
        jpeg = try Self.symbol(handle, "gdImageJpegPtr")
        png = try Self.symbol(handle, "gdImagePngPtr")
        webp = try Self.symbol(handle, "gdImageWebpPtr")
        free = try Self.symbol(handle, "gdFree")
        trueColorPixel = try Self.symbol(handle, "gdImageGetTrueColorPixel")
        filledRectangle = try Self.symbol(handle, "gdImageFilledRectangle")
        filledEllipse = try Self.symbol(handle, "gdImageFilledEllipse")
        filledPolygon = try Self.symbol(handle, "gdImageFilledPolygon")
        copy = try Self.symbol(handle, "gdImageCopy")
        copyResampled = try Self.symbol(handle, "gdImageCopyResampled")
        copyResized = try Self.symbol(handle, "gdImageCopyResized")
        string = try Self.symbol(handle, "gdImageString")
        giantFont = try Self.symbol(handle, "gdFontGetGiant")
    }

    /// A function of the library, as the C type its header declares.
    private static func symbol<Function>(_ handle: UnsafeMutableRawPointer, _ name: String) throws(CoverError) -> Function {
        guard let address = dlsym(handle, name) else { throw .libraryUnavailable("\(soname) has no \(name)") }
        return unsafeBitCast(address, to: Function.self)
    }
}
