// cairo's functions the pictures draw with, looked up when the first picture is drawn: a take, a meter or
// an analysis without a picture never maps cairo, nor the X11, xcb, fontconfig and freetype it brings.
import CCairo
import RecorderKit

/// The cairo calls `Canvas` makes, from libcairo.so.2 (Debian's libcairo2), loaded once on first use. The
/// types are cairo.h's (CCairo declares them; nothing in this module links cairo itself).
///
/// Any thread: the functions are looked up once and never change; each surface and context is used by the
/// one thread that draws it.
struct CairoLibrary: @unchecked Sendable {
    // @unchecked Sendable: C function pointers, set once by `init` and never changed.
    typealias Surface = OpaquePointer?
    typealias Context = OpaquePointer?

    let svgSurfaceCreate: @convention(c) (UnsafePointer<CChar>?, Double, Double) -> Surface
    let svgSurfaceSetDocumentUnit: @convention(c) (Surface, cairo_svg_unit_t) -> Void
    let imageSurfaceCreate: @convention(c) (cairo_format_t, Int32, Int32) -> Surface
    let imageSurfaceGetStride: @convention(c) (Surface) -> Int32
    let imageSurfaceGetData: @convention(c) (Surface) -> UnsafeMutablePointer<UInt8>?
    let surfaceStatus: @convention(c) (Surface) -> cairo_status_t
    let surfaceFinish: @convention(c) (Surface) -> Void
    let surfaceFlush: @convention(c) (Surface) -> Void
    let surfaceMarkDirty: @convention(c) (Surface) -> Void
    let surfaceWriteToPNG: @convention(c) (Surface, UnsafePointer<CChar>?) -> cairo_status_t
    let surfaceDestroy: @convention(c) (Surface) -> Void
    let create: @convention(c) (Surface) -> Context
    let status: @convention(c) (Context) -> cairo_status_t
    let statusToString: @convention(c) (cairo_status_t) -> UnsafePointer<CChar>?
    let destroy: @convention(c) (Context) -> Void
    let selectFontFace: @convention(c) (Context, UnsafePointer<CChar>?, cairo_font_slant_t, cairo_font_weight_t) -> Void
    let setFontSize: @convention(c) (Context, Double) -> Void
    let textExtents: @convention(c) (Context, UnsafePointer<CChar>?, UnsafeMutablePointer<cairo_text_extents_t>?) -> Void
    let showText: @convention(c) (Context, UnsafePointer<CChar>?) -> Void
    let setSourceRGBA: @convention(c) (Context, Double, Double, Double, Double) -> Void
    let setSourceSurface: @convention(c) (Context, Surface, Double, Double) -> Void
    let paint: @convention(c) (Context) -> Void
    let rectangle: @convention(c) (Context, Double, Double, Double, Double) -> Void
    let fill: @convention(c) (Context) -> Void
    let setLineWidth: @convention(c) (Context, Double) -> Void
    let setLineJoin: @convention(c) (Context, cairo_line_join_t) -> Void
    let setLineCap: @convention(c) (Context, cairo_line_cap_t) -> Void
    let setDash: @convention(c) (Context, UnsafePointer<Double>?, Int32, Double) -> Void
    let moveTo: @convention(c) (Context, Double, Double) -> Void
    let lineTo: @convention(c) (Context, Double, Double) -> Void
    let stroke: @convention(c) (Context) -> Void
    let newPath: @convention(c) (Context) -> Void

    private static let library = LazyLibrary(["libcairo.so.2", "libcairo.so"], what: "cairo (libcairo.so.2)", debian: "libcairo2")
    private static let loaded = Result { () throws(RecorderError) in try CairoLibrary(library) }

    /// The functions, or why cairo could not be loaded (what to install).
    static func shared() throws(RecorderError) -> CairoLibrary { try loaded.get() }

    private init(_ library: LazyLibrary) throws(RecorderError) {
        svgSurfaceCreate = try library.function("cairo_svg_surface_create")
        svgSurfaceSetDocumentUnit = try library.function("cairo_svg_surface_set_document_unit")
        imageSurfaceCreate = try library.function("cairo_image_surface_create")
        imageSurfaceGetStride = try library.function("cairo_image_surface_get_stride")
        imageSurfaceGetData = try library.function("cairo_image_surface_get_data")
        surfaceStatus = try library.function("cairo_surface_status")
        surfaceFinish = try library.function("cairo_surface_finish")
        surfaceFlush = try library.function("cairo_surface_flush")
        surfaceMarkDirty = try library.function("cairo_surface_mark_dirty")
        surfaceWriteToPNG = try library.function("cairo_surface_write_to_png")
        surfaceDestroy = try library.function("cairo_surface_destroy")
        create = try library.function("cairo_create")
        status = try library.function("cairo_status")
        statusToString = try library.function("cairo_status_to_string")
        destroy = try library.function("cairo_destroy")
        selectFontFace = try library.function("cairo_select_font_face")
        setFontSize = try library.function("cairo_set_font_size")
        textExtents = try library.function("cairo_text_extents")
        showText = try library.function("cairo_show_text")
        setSourceRGBA = try library.function("cairo_set_source_rgba")
        setSourceSurface = try library.function("cairo_set_source_surface")
        paint = try library.function("cairo_paint")
        rectangle = try library.function("cairo_rectangle")
        fill = try library.function("cairo_fill")
        setLineWidth = try library.function("cairo_set_line_width")
        setLineJoin = try library.function("cairo_set_line_join")
        setLineCap = try library.function("cairo_set_line_cap")
        setDash = try library.function("cairo_set_dash")
        moveTo = try library.function("cairo_move_to")
        lineTo = try library.function("cairo_line_to")
        stroke = try library.function("cairo_stroke")
        newPath = try library.function("cairo_new_path")
    }
}
