// Waveform data in BBC audiowaveform's formats (binary .dat version 1 and 2, and JSON), for peaks.js and
// wavesurfer.js: written from an analysis pass, or growing beside a take and valid at every moment.
import Glibc

/// How peak data is laid out (audiowaveform's doc/DataFormat.md).
public struct PeakFormat: Sendable, Hashable {
    /// 1 (one channel only) or 2 (a channel count in the header).
    public var version: Int
    /// The file's channels mixed to their mean, as audiowaveform mixes them unless told to split them;
    /// always so for version 1.
    public var mixed: Bool
    /// 8 or 16: values −128…127 or −32 768…32 767.
    public var bits: Int
    /// Frames per min/max pair (audiowaveform's "samples per pixel"), at least 1.
    public var samplesPerPixel: Int
    /// Pairs per second instead, when set: frames per pair are then the rate divided by it, rounded (at
    /// least 1), fixed when the rate is known.
    public var pixelsPerSecond: Int?

    /// A format; a version other than 1 is 2, bits other than 8 are 16.
    public init(version: Int = 2, mixed: Bool = false, bits: Int = 16, samplesPerPixel: Int = 256, pixelsPerSecond: Int? = nil) {
        self.pixelsPerSecond = pixelsPerSecond.map { min(max($0, 1), 1_000_000) }
        self.version = version == 1 ? 1 : 2
        self.mixed = mixed || version == 1
        self.bits = bits == 8 ? 8 : 16
        self.samplesPerPixel = min(max(samplesPerPixel, 1), Int(Int32.max))
    }

    /// A sample (full scale ±1) as audiowaveform stores it: the 16-bit sample value (⌊x × 32 768⌋, held
    /// to −32 768…32 767), and for 8 bits its high byte (the 16-bit value shifted right by 8).
    public func value(_ sample: Float) -> Int {
        let scaled = Double(sample.isFinite ? sample : 0) * 32_768
        let sixteen = Int(min(max(scaled.rounded(.down), -32_768), 32_767))
        return bits == 8 ? sixteen >> 8 : sixteen
    }
}

/// Writes peak data to `path`: binary (`.dat`) or JSON (`.json`). As an `AnalysisTap` it takes a file's
/// frames; `add(interleaved:)` and `flush()` serve a take being recorded. Feed from one thread.
///
/// `growing` (binary only): the file is at `path` from the start, its header's length counting only the
/// pairs already written, and each `flush()` appends pairs first and then updates that count, so a
/// reader finds a valid file at every moment. Otherwise it is written beside `path` and renamed into
/// place at `end()`.
public final class PeakFile: AnalysisTap {
    /// Where the peak data goes.
    public let path: String
    /// Its format (with the frames per pair fixed once the rate is known).
    public private(set) var format: PeakFormat
    /// JSON (`.json`) rather than binary (`.dat`).
    public let isJSON: Bool
    /// Written in place and valid at every moment (a take being recorded), not beside and renamed.
    public let growing: Bool
    private var descriptor: Int32 = -1
    private var partial: String
    private var columns: WaveformColumns?
    private var channels = 1
    private var mono: [Float] = []
    private var pending: [UInt8] = []
    private var length: UInt32 = 0
    private var offset: Int64 = 0
    private var firstValue = true
    /// The first failure to write, reported by `end()`/`flush()`; later writes are skipped.
    public private(set) var failure: RecorderError?

    /// - Throws: `.unsupportedFileType` for a name not ending .dat or .json (or .json when `growing`).
    public init(path: String, format: PeakFormat, growing: Bool = false) throws(RecorderError) {
        let lower = path.lowercased()
        guard lower.hasSuffix(".dat") || lower.hasSuffix(".json") else {
            throw RecorderError(.unsupportedFileType, "cannot write peaks to '\(path)': audiowaveform's formats are .dat (binary) and .json; name the file so")
        }
        isJSON = lower.hasSuffix(".json")
        if growing && isJSON {
            throw RecorderError(.unsupportedFileType, "cannot grow '\(path)' while recording: a JSON file is only valid when complete; use a .dat file")
        }
        self.path = path
        self.format = format
        self.growing = growing
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        partial = growing ? path : folder + "." + name + ".partial-\(getpid())"
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Opens the file and writes its header (the length 0 until pairs are written).
    /// - Throws: `.cannotCreateFile` naming the path.
    public func open(sampleRate: Int, channelCount: Int) throws(RecorderError) {
        channels = max(1, channelCount)
        if let perSecond = format.pixelsPerSecond {
            format.samplesPerPixel = max(1, Int((Double(max(sampleRate, 1)) / Double(perSecond)).rounded()))
        }
        descriptor = Glibc.open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw RecorderError(.cannotCreateFile, "cannot write peaks to '\(path)': \(String(cString: strerror(errno))); choose a folder you can write to")
        }
        let outputChannels = format.mixed ? 1 : channels
        columns = WaveformColumns(channelCount: outputChannels, framesPerColumn: format.samplesPerPixel) { [unowned self] _, column in
            self.append(column)
        }
        if isJSON {
            text("{\"version\":\(format.version),")
            if format.version == 2 { text("\"channels\":\(outputChannels),") }
            text("\"sample_rate\":\(sampleRate),\"samples_per_pixel\":\(format.samplesPerPixel),\"bits\":\(format.bits),\"data\":[")
        } else {
            var header: [Int32] = [Int32(format.version), format.bits == 8 ? 1 : 0, Int32(clamping: sampleRate),
                                   Int32(format.samplesPerPixel), 0]
            if format.version == 2 { header.append(Int32(outputChannels)) }
            for field in header { little(UInt32(bitPattern: field), bytes: 4) }
        }
        write()
    }

    private func text(_ string: String) { pending += Array(string.utf8) }

    private func little(_ value: UInt32, bytes: Int) {
        for index in 0..<bytes { pending.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    private func append(_ column: WaveformColumn) {
        // Each pair straight into `pending` (its capacity kept between writes): nothing allocated per
        // pair in a binary file, which a recording appends at every buffer.
        func put(_ value: Int) {
            if isJSON {
                text((firstValue ? "" : ",") + String(value))
                firstValue = false
            } else {
                little(UInt32(bitPattern: Int32(value)), bytes: format.bits / 8)
            }
        }
        for channel in column.minimum.indices {
            put(format.value(column.minimum[channel]))
            put(format.value(column.maximum[channel]))
        }
        length &+= 1
        if pending.count >= 1 << 16 && !growing { write() }
    }

    /// Writes what is pending at the end of the file.
    private func write() {
        guard failure == nil, descriptor >= 0, !pending.isEmpty else { return }
        var done = 0
        while done < pending.count {
            let wrote = pending.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + done, $0.count - done, off_t(offset) + off_t(done)) }
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else {
                failure = RecorderError(.writeFailed, "cannot write peaks to '\(path)': \(String(cString: strerror(errno))); free some space")
                return
            }
            done += wrote
        }
        offset += Int64(pending.count)
        pending.removeAll(keepingCapacity: true)
    }

    /// The binary header's length field: the pairs written so far.
    private func writeLength() {
        guard failure == nil, descriptor >= 0, !isJSON else { return }
        var field = UInt32(length).littleEndian
        if pwrite(descriptor, &field, 4, 16) != 4 {
            failure = RecorderError(.writeFailed, "cannot write peaks to '\(path)': \(String(cString: strerror(errno))); free some space")
        }
    }

    /// Adds interleaved frames (full scale ±1) of `channelCount` channels.
    public func add(interleaved samples: UnsafeBufferPointer<Float>) {
        guard let columns else { return }
        guard format.mixed && channels > 1 else {
            columns.add(interleaved: samples)
            return
        }
        let frames = samples.count / channels
        if mono.count < frames { mono = [Float](repeating: 0, count: frames) }
        let scale = 1 / Float(channels)
        for frame in 0..<frames {
            var sum: Float = 0
            for channel in 0..<channels { sum += samples[frame * channels + channel] }
            mono[frame] = sum * scale
        }
        mono.withUnsafeBufferPointer { columns.add(interleaved: UnsafeBufferPointer(rebasing: $0[0..<frames])) }
    }

    /// A growing file: the whole pairs so far on disk, then the header's count of them.
    /// - Throws: the first write failure (`.writeFailed`, naming the path).
    public func flush() throws(RecorderError) {
        write()
        writeLength()
        if let failure { throw failure }
    }

    /// Ends the file: the last (partial) pair, the count, and for a file written beside its path, the
    /// rename into place.
    /// - Throws: the first write failure; a file written beside its path is then removed.
    public func finish() throws(RecorderError) {
        columns?.finish()
        columns = nil
        if isJSON { text("],\"length\":\(length)}\n") }
        write()
        writeLength()
        if descriptor >= 0 {
            if fsync(descriptor) != 0 && failure == nil && errno != EINVAL {
                failure = RecorderError(.writeFailed, "cannot write peaks to '\(path)': \(String(cString: strerror(errno))); free some space")
            }
            close(descriptor)
            descriptor = -1
        }
        if let failure {
            if !growing { unlink(partial) }
            throw failure
        }
        if !growing && rename(partial, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw RecorderError(.writeFailed, "cannot write peaks to '\(path)': \(reason); choose another folder")
        }
    }

    // MARK: AnalysisTap

    /// Opens the file (`open(sampleRate:channelCount:)`); a failure is kept in `failure`.
    public func begin(sampleRate: Int, channelCount: Int, frames: Int64) {
        do throws(RecorderError) { try open(sampleRate: sampleRate, channelCount: channelCount) } catch { failure = error }
    }

    /// Finishes the file (`finish()`); a failure is kept in `failure`.
    public func end() {
        do throws(RecorderError) { try finish() } catch { failure = error }
    }
}
