// libmpg123's frame-by-frame reader, looked up in libmpg123.so.0 the first time an MP3 stream is parsed:
// bytes fed as they come, each MPEG audio frame found whole, the LAME tag's delay and padding read.
import RecorderKit

/// libmpg123 (LGPL-2.1, `libmpg123.so.0`, loaded, never linked): the calls the MP3 stream parser makes.
/// One handle is used by one parser, under that parser's lock.
struct MPG123Library: @unchecked Sendable {
    // @unchecked Sendable: immutable C function pointers.
    typealias Handle = OpaquePointer
    let new: @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<Int32>?) -> Handle?
    let delete: @convention(c) (Handle) -> Void
    let param: @convention(c) (Handle, Int32, Int, Double) -> Int32
    let openFeed: @convention(c) (Handle) -> Int32
    let feed: @convention(c) (Handle, UnsafePointer<UInt8>, Int) -> Int32
    let nextFrame: @convention(c) (Handle) -> Int32
    let frameData: @convention(c) (Handle, UnsafeMutablePointer<UInt>, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                                   UnsafeMutablePointer<Int>) -> Int32
    let getState: @convention(c) (Handle, Int32, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<Double>?) -> Int32
    /// off_t mpg123_framepos / mpg123_framelength: 64-bit here (Debian's amd64 and arm64 builds).
    let framePosition: @convention(c) (Handle) -> Int64
    let frameLength: @convention(c) (Handle) -> Int64

    // mpg123.h's values.
    static let ok: Int32 = 0, needMore: Int32 = -10, newFormat: Int32 = -11, done: Int32 = -12
    static let addFlags: Int32 = 2   // MPG123_ADD_FLAGS (mpg123_parms: VERBOSE 0, FLAGS 1, ADD_FLAGS 2)
    static let quiet = 0x20          // MPG123_QUIET: nothing printed
    static let encoderDelay: Int32 = 5, encoderPadding: Int32 = 6  // mpg123_state

    private static let library = LazyLibrary(["libmpg123.so.0", "libmpg123.so"], what: "libmpg123 (libmpg123.so.0)", debian: "libmpg123-0")

    /// The library, loaded once; the reason it cannot be had is thrown.
    static func loaded() throws(RecorderError) -> MPG123Library { try loadedOnce.get() }

    private static let loadedOnce: Result<MPG123Library, RecorderError> = {
        do throws(RecorderError) { return .success(try MPG123Library(library)) } catch { return .failure(error) }
    }()

    private init(_ library: LazyLibrary) throws(RecorderError) {
        new = try library.function("mpg123_new")
        delete = try library.function("mpg123_delete")
        param = try library.function("mpg123_param")
        openFeed = try library.function("mpg123_open_feed")
        feed = try library.function("mpg123_feed")
        nextFrame = try library.function("mpg123_framebyframe_next")
        frameData = try library.function("mpg123_framedata")
        getState = try library.function("mpg123_getstate")
        framePosition = try library.function("mpg123_framepos")
        frameLength = try library.function("mpg123_framelength")
    }
}
