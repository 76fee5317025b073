// Known test signals, and sound-file reading and writing through libsndfile.
import CSndFile
import Foundation

/// Deterministic white noise over the whole 16-bit range (xorshift64*), the same for the same seed.
public func noiseSamples(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [Int16] {
    var state = seed
    // A plain loop into uninitialized storage: in a debug build `map` over a range costs ten times as
    // much, and tests make millions of these samples on the test runner's two cooperative threads.
    return [Int16](unsafeUninitializedCapacity: max(0, count)) { buffer, initialized in
        for index in 0..<buffer.count {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            buffer[index] = Int16(truncatingIfNeeded: (state &* 0x2545_F491_4F6C_DD1D) >> 48)
        }
        initialized = buffer.count
    }
}

/// A sine per channel, interleaved: `amplitudes[c]` is channel c's peak as a fraction of 32 768.
public func sineSamples(frames: Int, frequency: Double, sampleRate: Double = 44_100,
                        amplitudes: [Double]) -> [Int16] {
    var samples = [Int16]()
    samples.reserveCapacity(frames * amplitudes.count)
    for frame in 0..<frames {
        let phase = sin(2 * Double.pi * frequency * Double(frame) / sampleRate)
        for amplitude in amplitudes {
            samples.append(Int16(clamping: Int((phase * amplitude * 32_768).rounded())))
        }
    }
    return samples
}

/// Writes interleaved samples as a 16-bit WAV file.
public func writeWAV(_ path: String, samples: [Int16], channels: Int, sampleRate: Int = 44_100) throws {
    var info = SF_INFO(frames: 0, samplerate: Int32(sampleRate), channels: Int32(channels),
                       format: Int32(SF_FORMAT_WAV) | Int32(SF_FORMAT_PCM_16), sections: 0, seekable: 0)
    guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
        throw TestFailure("cannot write \(path): \(String(cString: sf_strerror(nil)))")
    }
    defer { sf_close(file) }
    let frames = samples.count / channels
    let written = samples.withUnsafeBufferPointer { sf_writef_short(file, $0.baseAddress, sf_count_t(frames)) }
    guard written == frames else { throw TestFailure("short write to \(path)") }
}

/// A sound file as libsndfile reads it.
public struct SoundFileContents {
    /// SF_FORMAT_* container | subtype | endianness, as libsndfile reports it.
    public let format: Int32
    public let sampleRate: Int
    public let channels: Int
    public let frames: Int
    /// Interleaved host-order samples.
    public let samples: [Int16]

    public var container: Int32 { format & Int32(SF_FORMAT_TYPEMASK) }
    public var subtype: Int32 { format & Int32(SF_FORMAT_SUBMASK) }

    /// One channel's samples.
    public func channel(_ index: Int) -> [Int16] {
        stride(from: index, to: samples.count, by: channels).map { samples[$0] }
    }
}

public func readSoundFile(_ path: String) throws -> SoundFileContents {
    var info = SF_INFO()
    guard let file = sf_open(path, Int32(SFM_READ), &info) else {
        throw TestFailure("libsndfile cannot open \(path): \(String(cString: sf_strerror(nil)))")
    }
    defer { sf_close(file) }
    var samples = [Int16](repeating: 0, count: Int(info.frames) * Int(info.channels))
    let read = samples.withUnsafeMutableBufferPointer { sf_readf_short(file, $0.baseAddress, info.frames) }
    guard read == info.frames else { throw TestFailure("short read from \(path)") }
    return SoundFileContents(format: info.format, sampleRate: Int(info.samplerate), channels: Int(info.channels),
                             frames: Int(info.frames), samples: samples)
}

/// The samples libsndfile decodes from `path`, read block by block to the end, with the channel count and
/// the length the header states: for a stream that states no length (AU or FLAC to a pipe, or killed),
/// where `readSoundFile` cannot size its buffer.
public func decodeToEnd(_ path: String) throws -> (samples: [Int16], channels: Int, statedFrames: Int64) {
    var info = SF_INFO()
    guard let file = sf_open(path, Int32(SFM_READ), &info) else {
        throw TestFailure("libsndfile cannot open \(path): \(String(cString: sf_strerror(nil)))")
    }
    defer { sf_close(file) }
    let channels = Int(max(info.channels, 1))
    var block = [Int16](repeating: 0, count: 4_096 * channels)
    var samples: [Int16] = []
    while true {
        let read = block.withUnsafeMutableBufferPointer { sf_readf_short(file, $0.baseAddress, 4_096) }
        guard read > 0 else { break }
        samples += block.prefix(Int(read) * channels)
    }
    return (samples, channels, Int64(info.frames))
}

/// The frames libsndfile decodes from `path`, read to the end (see `decodeToEnd`), and the length its
/// header states.
public func decodedFrames(_ path: String) throws -> (frames: Int64, statedFrames: Int64) {
    let decoded = try decodeToEnd(path)
    return (Int64(decoded.samples.count / decoded.channels), decoded.statedFrames)
}

/// Whether `take` holds a stretch of `signal` (64 samples of it, found from a few places in the take): its
/// own signal, not another's or none, without assuming the sink played any particular part of it intact
/// (a server can skip a cycle, its start included; what it delivered is a reference capture's to say).
public func holdsStretch(of signal: [Int16], in take: [Int16]) -> Bool {
    let loud = take.indices.filter { $0 % 4_410 == 0 && take[$0] != 0 && $0 + 64 <= take.count }
    return loud.prefix(20).contains { firstIndex(of: Array(take[$0..<($0 + 64)]), in: signal) != nil }
}

/// Where `needle` first stands contiguously in `haystack`, or nil.
public func firstIndex(of needle: [Int16], in haystack: [Int16]) -> Int? {
    guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
    for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
        if haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
    }
    return nil
}

/// A fresh temporary directory for one test's files.
public func temporaryDirectory(prefix: String = "recorder-test") throws -> String {
    var bytes = Array((NSTemporaryDirectory() + prefix + "-XXXXXX").utf8CString)
    let path = bytes.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!).map { String(cString: $0) } }
    guard let path else { throw TestFailure("mkdtemp failed: \(String(cString: strerror(errno)))") }
    return path
}

/// The first 12 bytes of a file: `FORM`, size, form type (`AIFF` for classic AIFF, `AIFC` for AIFF-C).
public func fileHeader(_ path: String) throws -> [UInt8] {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    return Array(try handle.read(upToCount: 12) ?? Data())
}

/// The average (RMS) and peak of 16-bit samples in dBFS, as the recorder's meters compute them (full
/// scale 32 768, −160 for silence): a summary's or a levels line's oracle is what the file holds, not
/// what the source is thought to send (PipeWire's sine source can begin with a cycle of silence).
public func levels<C: Collection>(of samples: C) -> (average: Double, peak: Double) where C.Element == Int16 {
    var sum = 0.0
    var largest = 0
    for sample in samples {
        sum += Double(sample) * Double(sample)
        largest = max(largest, abs(Int(sample)))
    }
    func decibels(_ value: Double) -> Double { value > 0 ? max(-160, 20 * log10(value)) : -160 }
    return (decibels((sum / Double(max(1, samples.count))).squareRoot() / 32_768), decibels(Double(largest) / 32_768))
}

/// The average a summary line states ("… average -9.03 dBFS …"), or nil.
public func summaryAverage(_ line: String) -> Double? {
    guard let range = line.range(of: "average ") else { return nil }
    return Double(line[range.upperBound...].prefix { $0 != " " })
}

/// The frames a summary line says were dropped ("…, dropped 1234 frames"), or nil.
public func summaryDropped(_ line: String) -> Int? {
    guard let range = line.range(of: "dropped ", options: .backwards) else { return nil }
    return Int(line[range.upperBound...].prefix { $0 != " " })
}

/// `levels(of:)` of every sample of the file at `path`, of any depth (libsndfile reads them as fractions
/// of full scale).
public func fileLevels(_ path: String) throws -> (average: Double, peak: Double) {
    var info = SF_INFO()
    guard let file = sf_open(path, Int32(SFM_READ), &info) else {
        throw TestFailure("libsndfile cannot open \(path): \(String(cString: sf_strerror(nil)))")
    }
    defer { sf_close(file) }
    var samples = [Double](repeating: 0, count: Int(info.frames) * Int(info.channels))
    let read = samples.withUnsafeMutableBufferPointer { sf_readf_double(file, $0.baseAddress, info.frames) }
    guard read == info.frames else { throw TestFailure("short read from \(path)") }
    let sum = samples.reduce(0) { $0 + $1 * $1 }, largest = samples.reduce(0) { max($0, abs($1)) }
    func decibels(_ value: Double) -> Double { value > 0 ? max(-160, 20 * log10(value)) : -160 }
    return (decibels((sum / Double(max(1, samples.count))).squareRoot()), decibels(largest))
}

/// Samples of 1 kHz tone segments (seconds, peak level in dBFS of every channel), interleaved, as EBU
/// Tech 3341 builds its test signals.
public func toneSamples(_ segments: [(Double, Double)], rate: Int, channels: Int) -> [Int16] {
    var samples: [Int16] = []
    var frame = 0
    for (seconds, level) in segments {
        let amplitude = pow(10, level / 20) * 32_767
        for _ in 0..<Int(seconds * Double(rate)) {
            let value = Int16((amplitude * sin(2 * .pi * 1_000 * Double(frame) / Double(rate))).rounded())
            samples += [Int16](repeating: value, count: channels)
            frame += 1
        }
    }
    return samples
}
