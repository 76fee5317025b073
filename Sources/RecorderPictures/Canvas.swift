// One cairo drawing surface for a picture file: SVG (vectors, text as the font's outlines) or PNG (an
// ARGB image), drawn by the same calls, written beside its path and renamed into place when complete.
import CCairo
import Glibc
import RecorderKit

/// What a picture is written as: chosen by the output path's extension.
public enum PictureKind: String, Sendable, CaseIterable {
    case svg, png

    /// The kind `path` names (`.svg` or `.png`, any case); nil otherwise.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        self.init(rawValue: path[path.index(after: dot)...].lowercased())
    }
}

/// A colour, components 0…1.
public struct Colour: Sendable, Hashable {
    public let red: Double, green: Double, blue: Double, alpha: Double

    /// `colour` with opacity `alpha`.
    public init(_ colour: Colour, alpha: Double) {
        red = colour.red
        green = colour.green
        blue = colour.blue
        self.alpha = alpha
    }

    /// From 0–255 components and an opacity 0…1.
    public init(_ red: Int, _ green: Int, _ blue: Int, alpha: Double = 1) {
        self.red = Double(red) / 255
        self.green = Double(green) / 255
        self.blue = Double(blue) / 255
        self.alpha = alpha
    }
}

/// A cairo surface and context over a temporary file beside `path`; `finish()` writes it and renames it
/// to `path`, so a failed drawing never leaves a half-written picture where a good one was. Not
/// thread-safe: one thread draws.
final class Canvas {
    let kind: PictureKind
    let width: Int
    let height: Int
    let path: String
    private let partial: String
    /// cairo, loaded when the first canvas is made.
    private let cairo: CairoLibrary
    private let surface: OpaquePointer
    let context: OpaquePointer

    /// - Throws: `.cannotCreateFile` naming `path` when its folder cannot be written, or cairo refuses the size;
    ///   `.invalidState` when cairo cannot be loaded (what to install).
    init(path: String, kind: PictureKind, width: Int, height: Int) throws(RecorderError) {
        let cairo = try CairoLibrary.shared()
        self.cairo = cairo
        self.kind = kind
        self.width = width
        self.height = height
        self.path = path
        partial = WholeFile.partialPath(for: path)
        let probe = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard probe >= 0 else {
            let reason = String(cString: strerror(errno))
            throw RecorderError(.cannotCreateFile,
                "cannot write the picture '\(path)': \(reason); choose a folder you can write to")
        }
        close(probe)
        // cairo returns an object in an error state rather than NULL; NULL is refused all the same.
        let made: OpaquePointer? = switch kind {
        case .svg: cairo.svgSurfaceCreate(partial, Double(width), Double(height))
        case .png: cairo.imageSurfaceCreate(CAIRO_FORMAT_ARGB32, Int32(clamping: width), Int32(clamping: height))
        }
        if kind == .svg, let made { cairo.svgSurfaceSetDocumentUnit(made, CAIRO_SVG_UNIT_PX) }
        guard let made, let drawing = cairo.create(made) else {
            if let made { cairo.surfaceDestroy(made) }
            unlink(partial)
            throw RecorderError(.cannotCreateFile, "cannot draw the picture '\(path)' (\(width)×\(height)): cairo made no surface; try a smaller --width or --height")
        }
        surface = made
        context = drawing
        guard cairo.surfaceStatus(surface) == CAIRO_STATUS_SUCCESS, cairo.status(context) == CAIRO_STATUS_SUCCESS else {
            let reason = cairo.statusToString(cairo.surfaceStatus(surface)).map { String(cString: $0) } ?? "an error"
            cairo.destroy(context)
            cairo.surfaceDestroy(surface)
            unlink(partial)
            throw RecorderError(.cannotCreateFile, "cannot draw the picture '\(path)' (\(width)×\(height)): cairo says \(reason); try a smaller --width or --height")
        }
        cairo.selectFontFace(context, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
    }

    deinit {
        cairo.destroy(context)
        cairo.surfaceDestroy(surface)
    }

    /// Writes the picture and renames it to `path`.
    /// - Throws: `.writeFailed` naming `path` (a full disk, a folder gone): nothing is left at `path` but
    ///   what was there before.
    func finish() throws(RecorderError) {
        var status: cairo_status_t
        switch kind {
        case .svg:
            cairo.surfaceFinish(surface)
            status = cairo.surfaceStatus(surface)
        case .png:
            cairo.surfaceFlush(surface)
            status = cairo.surfaceWriteToPNG(surface, partial)
        }
        guard status == CAIRO_STATUS_SUCCESS, rename(partial, path) == 0 else {
            let reason = status == CAIRO_STATUS_SUCCESS ? String(cString: strerror(errno)) : (cairo.statusToString(status).map { String(cString: $0) } ?? "an error")
            unlink(partial)
            throw RecorderError(.writeFailed, "cannot write the picture '\(path)': \(reason); free some space or choose another folder")
        }
    }

    /// Removes the temporary file (a drawing abandoned).
    func abandon() { unlink(partial) }

    // MARK: Drawing

    func colour(_ colour: Colour) { cairo.setSourceRGBA(context, colour.red, colour.green, colour.blue, colour.alpha) }

    func fillRectangle(x: Double, y: Double, width: Double, height: Double, _ colour: Colour) {
        self.colour(colour)
        cairo.rectangle(context, x, y, width, height)
        cairo.fill(context)
    }

    /// A line from (x0, y0) to (x1, y1); `dash` in pixels on and off (empty: solid).
    func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ colour: Colour, width: Double = 1, dash: [Double] = []) {
        self.colour(colour)
        cairo.setLineWidth(context, width)
        dash.withUnsafeBufferPointer { cairo.setDash(context, $0.baseAddress, Int32($0.count), 0) }
        cairo.moveTo(context, x0, y0)
        cairo.lineTo(context, x1, y1)
        cairo.stroke(context)
        cairo.setDash(context, nil, 0, 0)
    }

    /// Connected points; nil breaks the line (a silent stretch of a loudness curve).
    func polyline(_ points: [(x: Double, y: Double)?], _ colour: Colour, width: Double) {
        self.colour(colour)
        cairo.setLineWidth(context, width)
        cairo.setLineJoin(context, CAIRO_LINE_JOIN_ROUND)
        var drawing = false
        for point in points {
            guard let point else {
                drawing = false
                continue
            }
            if drawing { cairo.lineTo(context, point.x, point.y) } else { cairo.moveTo(context, point.x, point.y) }
            drawing = true
        }
        cairo.stroke(context)
    }

    /// Vertical segments, one path: a waveform's columns.
    func verticals(_ segments: [(x: Double, top: Double, bottom: Double)], _ colour: Colour, width: Double = 1) {
        guard !segments.isEmpty else { return }
        self.colour(colour)
        cairo.setLineWidth(context, width)
        cairo.setLineCap(context, CAIRO_LINE_CAP_BUTT)
        for segment in segments {
            cairo.moveTo(context, segment.x, segment.top)
            cairo.lineTo(context, segment.x, segment.bottom)
        }
        cairo.stroke(context)
    }

    enum Anchor { case left, centre, right }

    /// `text` with its baseline at `y`, anchored at `x`; returns its width.
    @discardableResult
    func text(_ text: String, x: Double, y: Double, size: Double, _ colour: Colour, anchor: Anchor = .left, bold: Bool = false) -> Double {
        cairo.selectFontFace(context, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo.setFontSize(context, size)
        var extents = cairo_text_extents_t()
        cairo.textExtents(context, text, &extents)
        let start = switch anchor {
        case .left: x
        case .centre: x - extents.x_advance / 2
        case .right: x - extents.x_advance
        }
        self.colour(colour)
        cairo.moveTo(context, start, y)
        cairo.showText(context, text)
        cairo.newPath(context)
        return extents.x_advance
    }

    /// The width `text` takes at `size`.
    func measure(_ text: String, size: Double) -> Double {
        cairo.selectFontFace(context, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        cairo.setFontSize(context, size)
        var extents = cairo_text_extents_t()
        cairo.textExtents(context, text, &extents)
        return extents.x_advance
    }

    /// Pixels of an image, row by row, 0xAARRGGBB (the spectrogram's body), placed at (x, y).
    func image(_ pixels: [UInt32], width: Int, height: Int, x: Double, y: Double) {
        guard width > 0, height > 0, pixels.count == width * height else { return }
        let image = cairo.imageSurfaceCreate(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        defer { cairo.surfaceDestroy(image) }
        cairo.surfaceFlush(image)
        let stride = Int(cairo.imageSurfaceGetStride(image))
        guard let data = cairo.imageSurfaceGetData(image) else { return }
        pixels.withUnsafeBufferPointer { source in
            for row in 0..<height {
                (UnsafeMutableRawPointer(data) + row * stride).copyMemory(
                    from: source.baseAddress! + row * width, byteCount: width * 4)
            }
        }
        cairo.surfaceMarkDirty(image)
        cairo.setSourceSurface(context, image, x, y)
        cairo.paint(context)
    }
}
