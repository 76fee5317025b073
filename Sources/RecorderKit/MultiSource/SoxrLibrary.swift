// libsoxr's calls a drifting source's resampler makes, looked up when a several-source take with drift
// correction starts: a one-source take never maps libsoxr, nor the libgomp it brings (0.4 MB resident).
import CSoxr

/// The libsoxr calls `LaneResampler` makes, from libsoxr.so.0 (Debian's libsoxr0), loaded once on first
/// use. The types are soxr.h's (CSoxr declares them; RecorderKit does not link libsoxr itself).
///
/// Any thread: the functions are looked up once and never change.
struct SoxrLibrary: @unchecked Sendable {
    // @unchecked Sendable: C function pointers, set once by `init` and never changed.
    let create: @convention(c) (Double, Double, UInt32, UnsafeMutablePointer<soxr_error_t?>?,
                                UnsafePointer<soxr_io_spec_t>?, UnsafePointer<soxr_quality_spec_t>?, OpaquePointer?) -> soxr_t?
    let delete: @convention(c) (soxr_t?) -> Void
    let process: @convention(c) (soxr_t?, soxr_in_t?, Int, UnsafeMutablePointer<Int>?, soxr_out_t?, Int,
                                 UnsafeMutablePointer<Int>?) -> soxr_error_t?
    let setIORatio: @convention(c) (soxr_t?, Double, Int) -> soxr_error_t?
    let ioSpec: @convention(c) (soxr_datatype_t, soxr_datatype_t) -> soxr_io_spec_t
    let qualitySpec: @convention(c) (UInt, UInt) -> soxr_quality_spec_t

    private static let library = LazyLibrary(["libsoxr.so.0", "libsoxr.so"], what: "libsoxr (libsoxr.so.0)", debian: "libsoxr0")
    private static let loaded = Result { () throws(RecorderError) in try SoxrLibrary(library) }

    /// The functions, or why libsoxr could not be loaded (what to install).
    static func shared() throws(RecorderError) -> SoxrLibrary { try loaded.get() }

    private init(_ library: LazyLibrary) throws(RecorderError) {
        create = try library.function("soxr_create")
        delete = try library.function("soxr_delete")
        process = try library.function("soxr_process")
        setIORatio = try library.function("soxr_set_io_ratio")
        ioSpec = try library.function("soxr_io_spec")
        qualitySpec = try library.function("soxr_quality_spec")
    }
}
