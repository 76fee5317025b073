// What the picture tests read pictures with: a WAV writer that places cue markers, the SVG's paths and
// glyphs, a PNG decoded by cairo, and audiowaveform's .dat format read from its description.
import CCairo
import Foundation
import RecorderPictures
import Testing
import TestSupport

/// Writes 16-bit PCM `samples` (interleaved) to a WAV with a `cue ` chunk and `labl` labels for `markers`
/// (frame, label), the way the format describes them (RIFF; cue points with their sample offsets).
func writeMarkedWAV(_ path: String, samples: [Int16], channels: Int, sampleRate: Int, markers: [(Int, String)]) throws {
    var data = Data()
    func u32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
    func u16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
    func tag(_ text: String) { data.append(contentsOf: Array(text.utf8)) }
    var body = Data()
    // fmt
    var chunks = Data()
    func chunk(_ id: String, _ content: Data) {
        chunks.append(contentsOf: Array(id.utf8))
        withUnsafeBytes(of: UInt32(content.count).littleEndian) { chunks.append(contentsOf: $0) }
        chunks.append(content)
        if content.count % 2 == 1 { chunks.append(0) }
    }
    data = Data()
    u16(1); u16(channels); u32(sampleRate); u32(sampleRate * channels * 2); u16(channels * 2); u16(16)
    chunk("fmt ", data)
    body = Data(capacity: samples.count * 2)
    samples.withUnsafeBytes { body.append(contentsOf: $0) }
    chunk("data", body)
    if !markers.isEmpty {
        data = Data()
        u32(markers.count)
        for (index, marker) in markers.enumerated() {
            u32(index + 1); u32(marker.0); tag("data"); u32(0); u32(0); u32(marker.0)
        }
        chunk("cue ", data)
        data = Data()
        tag("adtl")
        for (index, marker) in markers.enumerated() {
            let text = Array(marker.1.utf8) + [0]
            tag("labl"); u32(4 + text.count); u32(index + 1)
            data.append(contentsOf: text)
            if text.count % 2 == 1 { data.append(0) }
        }
        chunk("LIST", data)
    }
    var file = Data(Array("RIFF".utf8))
    withUnsafeBytes(of: UInt32(4 + chunks.count).littleEndian) { file.append(contentsOf: $0) }
    file.append(contentsOf: Array("WAVE".utf8))
    file.append(chunks)
    try file.write(to: URL(fileURLWithPath: path))
}

/// A path of the SVG: its style properties and its points (every number pair of its `d`).
struct SVGPath {
    let style: [String: String]
    let points: [(x: Double, y: Double)]

    /// The style's `fill` or `stroke` colour as 0–255 components (cairo writes `rgb(p%,p%,p%)`).
    func colour(_ property: String) -> (Int, Int, Int)? {
        guard let value = style[property], value.hasPrefix("rgb(") else { return nil }
        let parts = value.dropFirst(4).dropLast().split(separator: ",").map { Double($0.replacingOccurrences(of: "%", with: "")) ?? -1 }
        guard parts.count == 3 else { return nil }
        return (Int((parts[0] * 2.55).rounded()), Int((parts[1] * 2.55).rounded()), Int((parts[2] * 2.55).rounded()))
    }

    func isFilled(_ red: Int, _ green: Int, _ blue: Int, opacity: Double = 1) -> Bool {
        guard let colour = colour("fill") else { return false }
        return colour == (red, green, blue) && abs((Double(style["fill-opacity"] ?? "1") ?? 1) - opacity) < 0.01
    }

    func isStroked(_ red: Int, _ green: Int, _ blue: Int) -> Bool {
        guard let colour = colour("stroke") else { return false }
        return colour == (red, green, blue)
    }
}

/// The drawing's paths (not the glyphs' outlines in `<defs>`) and the glyphs placed (`<use>`: x, y).
func readSVG(_ path: String) throws -> (paths: [SVGPath], glyphs: [(x: Double, y: Double)]) {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let body = text.range(of: "</defs>").map { String(text[$0.upperBound...]) } ?? text
    var paths: [SVGPath] = []
    var glyphs: [(x: Double, y: Double)] = []
    let pathPattern = try NSRegularExpression(pattern: #"<path style="([^"]*)" d="([^"]*)""#)
    for match in pathPattern.matches(in: body, range: NSRange(body.startIndex..., in: body)) {
        let style = String(body[Range(match.range(at: 1), in: body)!])
        let d = String(body[Range(match.range(at: 2), in: body)!])
        var properties: [String: String] = [:]
        for item in style.split(separator: ";") {
            let pair = item.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2 { properties[pair[0]] = pair[1] }
        }
        let numbers = d.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Double($0) }
        let points = stride(from: 0, to: numbers.count - 1, by: 2).map { (x: numbers[$0], y: numbers[$0 + 1]) }
        paths.append(SVGPath(style: properties, points: points))
    }
    let usePattern = try NSRegularExpression(pattern: ##"<use xlink:href="#glyph[^"]*" x="([-0-9.]+)" y="([-0-9.]+)""##)
    for match in usePattern.matches(in: body, range: NSRange(body.startIndex..., in: body)) {
        glyphs.append((Double(body[Range(match.range(at: 1), in: body)!])!, Double(body[Range(match.range(at: 2), in: body)!])!))
    }
    return (paths, glyphs)
}

/// A PNG decoded by cairo: width, height and 0xAARRGGBB pixels row by row.
struct DecodedPNG {
    let width: Int
    let height: Int
    let pixels: [UInt32]

    init(_ path: String) throws {
        let surface = cairo_image_surface_create_from_png(path)
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path])
        }
        width = Int(cairo_image_surface_get_width(surface))
        height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        var pixels = [UInt32](repeating: 0, count: width * height)
        for row in 0..<height {
            for column in 0..<width {
                pixels[row * width + column] = (UnsafeRawPointer(data) + row * stride + column * 4).loadUnaligned(as: UInt32.self)
            }
        }
        self.pixels = pixels
    }

    func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        let pixel = pixels[y * width + x]
        return (Int(pixel >> 16 & 0xFF), Int(pixel >> 8 & 0xFF), Int(pixel & 0xFF))
    }
}

/// audiowaveform's binary peak data, read from doc/DataFormat.md: a little-endian header (version,
/// flags — bit 0 set for 8-bit —, sample rate, samples per pixel, length, and for version 2 channels),
/// then min/max pairs, channel by channel within each index.
struct PeakData: Equatable {
    let version: Int
    let bits: Int
    let sampleRate: Int
    let samplesPerPixel: Int
    let length: Int
    let channels: Int
    /// [index][channel] = (min, max)
    let pairs: [[[Int]]]

    init(dat path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func int32(_ at: Int) -> Int { Int(Int32(bitPattern: UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24)) }
        version = int32(0)
        bits = int32(4) & 1 == 1 ? 8 : 16
        sampleRate = int32(8)
        samplesPerPixel = int32(12)
        length = Int(UInt32(bitPattern: Int32(int32(16))))
        channels = version == 2 ? int32(20) : 1
        var at = version == 2 ? 24 : 20
        var pairs: [[[Int]]] = []
        for _ in 0..<length {
            var index: [[Int]] = []
            for _ in 0..<channels {
                var pair: [Int] = []
                for _ in 0..<2 {
                    if bits == 8 {
                        pair.append(Int(Int8(bitPattern: bytes[at])))
                        at += 1
                    } else {
                        pair.append(Int(Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8)))
                        at += 2
                    }
                }
                index.append(pair)
            }
            pairs.append(index)
        }
        self.pairs = pairs
    }

    init(json path: String) throws {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
        version = object["version"] as! Int
        bits = object["bits"] as! Int
        sampleRate = object["sample_rate"] as! Int
        samplesPerPixel = object["samples_per_pixel"] as! Int
        length = object["length"] as! Int
        channels = version == 2 ? object["channels"] as! Int : 1
        let data = object["data"] as! [Int]
        let per = channels * 2, count = channels
        pairs = (0..<(data.count / per)).map { index in
            (0..<count).map { channel in [data[index * per + channel * 2], data[index * per + channel * 2 + 1]] }
        }
    }
}

/// A palette colour as 0–255 components.
func components(_ colour: Colour) -> (Int, Int, Int) {
    (Int((colour.red * 255).rounded()), Int((colour.green * 255).rounded()), Int((colour.blue * 255).rounded()))
}

/// The min/max pairs audiowaveform's description gives for 16-bit `samples` (interleaved), computed
/// here from the samples: each run of `perPixel` frames' lowest and highest sample (the last run
/// partial), 8-bit values being the 16-bit ones' high byte; `mixed` averages the channels first (the
/// sum divided by the count, rounded down, on the float scale).
func expectedPairs(_ samples: [Int16], channels: Int, perPixel: Int, bits: Int, mixed: Bool) -> [[[Int]]] {
    let frames = samples.count / channels
    var result: [[[Int]]] = []
    var start = 0
    while start < frames {
        let end = min(frames, start + perPixel)
        let outputs = mixed ? 1 : channels
        var index: [[Int]] = []
        for channel in 0..<outputs {
            var low = Int.max, high = Int.min
            for frame in start..<end {
                let value: Int
                if mixed {
                    let sum = (0..<channels).reduce(Float(0)) { $0 + Float(samples[frame * channels + $1]) / 32_768 }
                    value = Int(min(max((Double(sum / Float(channels)) * 32_768).rounded(.down), -32_768), 32_767))
                } else {
                    value = Int(samples[frame * channels + channel])
                }
                low = min(low, value)
                high = max(high, value)
            }
            index.append(bits == 8 ? [low >> 8, high >> 8] : [low, high])
        }
        result.append(index)
        start = end
    }
    return result
}

/// Where the tests keep what a person may want to look at (screenshots): .build/test-artifacts.
func artifactsFolder() throws -> String {
    let folder = FileManager.default.currentDirectoryPath + "/.build/test-artifacts"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
}

/// Writes 32-bit float samples (interleaved, NaN and infinities as they are) to a WAV (IEEE float).
func writeFloatWAV(_ path: String, samples: [Float], channels: Int, sampleRate: Int) throws {
    var file = Data()
    func u32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { file.append(contentsOf: $0) } }
    func u16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { file.append(contentsOf: $0) } }
    file.append(contentsOf: Array("RIFF".utf8))
    u32(4 + 8 + 16 + 8 + samples.count * 4)
    file.append(contentsOf: Array("WAVEfmt ".utf8))
    u32(16); u16(3); u16(channels); u32(sampleRate); u32(sampleRate * channels * 4); u16(channels * 4); u16(32)
    file.append(contentsOf: Array("data".utf8))
    u32(samples.count * 4)
    samples.withUnsafeBytes { file.append(contentsOf: $0) }
    try file.write(to: URL(fileURLWithPath: path))
}

/// Runs the built `recorder` with `arguments` to its end.
func runRecorder(_ arguments: [String]) throws -> ProcessResult {
    try runProcess(try builtProduct("recorder"), arguments, environment: ProcessInfo.processInfo.environment)
}
