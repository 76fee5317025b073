// Issue 14, point 1: every sample format in every container libsndfile writes, recorded from a played
// noise and read back.
import CSndFile
import Foundation
import RecorderKit
import Testing
import TestSupport

/// The samples of `path` as fractions of full scale (libsndfile's normalised doubles: a 16-bit sample
/// over 32 768, a 24-bit one over 8 388 608…), with its format word; a raw file is decoded here
/// (`sampleFormat` little-endian, no header).
private func readNormalised(_ path: String, raw sampleFormat: SampleFormat?) throws -> (values: [Double], format: Int32) {
    if let sampleFormat {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let width = sampleFormat.bytesPerSample
        let values = stride(from: 0, to: data.count - width + 1, by: width).map { start -> Double in
            var raw: UInt32 = 0
            for byte in (0..<width).reversed() { raw = raw << 8 | UInt32(data[start + byte]) }
            switch sampleFormat {
            case .int16: return Double(Int16(bitPattern: UInt16(raw))) / 32_768
            case .int24: return Double(Int32(bitPattern: raw << 8) >> 8) / 8_388_608
            case .int32: return Double(Int32(bitPattern: raw)) / 2_147_483_648
            case .float32: return Double(Float(bitPattern: raw))
            }
        }
        return (values, Int32(SF_FORMAT_RAW))
    }
    var info = SF_INFO()
    guard let file = sf_open(path, Int32(SFM_READ), &info) else {
        throw TestFailure("libsndfile cannot open \(path): \(String(cString: sf_strerror(nil)))")
    }
    defer { sf_close(file) }
    var values = [Double](repeating: 0, count: Int(info.frames) * Int(info.channels))
    let read = values.withUnsafeMutableBufferPointer { sf_readf_double(file, $0.baseAddress, info.frames) }
    return (Array(values.prefix(Int(read) * Int(info.channels))), info.format)
}

@Suite(.timeLimit(.minutes(2)))
struct FormatTests {
    /// Four recorders at once, one per sample format, each recording 0.5 s of a playing 16-bit noise
    /// into every container in turn: each file holds the played noise, sample for sample, converted
    /// exactly into its sample format (a 16-bit sample times 256, 65 536, or over 32 768), silent only
    /// where nothing was played or where its recorder counted and placed a loss (a second capture of the
    /// monitor was the oracle before: it can lose frames without a word, and added four streams);
    /// libsndfile reads back the container and sample type asked for; FLAC refuses 32-bit and
    /// float in one line. The lossy types take every sample format: Ogg Vorbis and MP3 decode to exactly
    /// the take's frames at the noise's level; Opus, refused at 44.1 kHz in one line, is recorded by four
    /// more recorders at 48 kHz.
    @Test func everySampleFormatInEveryContainerHoldsThePlayedNoise() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 44_100 * 30, seed: 1_414)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let formats = SampleFormat.allCases
            let recorders = try formats.map {
                try Recorder(format: try StreamFormat(sampleRate: 44_100, channelCount: 1, sampleFormat: $0),
                             source: PrivateServer.monoSink + ".monitor", server: server.address)
            }
            defer { recorders.forEach { $0.stop() } }
            let opusRecorders = try formats.map {
                try Recorder(format: try StreamFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: $0),
                             source: PrivateServer.monoSink + ".monitor", server: server.address)
            }
            defer { opusRecorders.forEach { $0.stop() } }
            // Each lossless take's summary, for the gaps it places.
            var summaries: [String: RecordingSummary] = [:]
            // The noise's level, for the lossy takes: the RMS of its samples, in dBFS.
            let noiseEnergy: Double = noise.reduce(0.0) { sum, sample in sum + Double(sample) * Double(sample) }
            let noiseLevel: Double = 10 * log10(noiseEnergy / Double(noise.count) / (32_768.0 * 32_768.0))
            let readings = (recorders + opusRecorders).map { $0.levelReadings() }
            let player = Task { try await server.play(directory + "/noise.wav") }
            defer { player.cancel() }
            // The noise has reached every recorder (each delivers at its own pace: one seen behind by over
            // half a second under load took silence): from here on every take is inside it.
            for stream in readings {
                for await reading in stream where reading.channels[0].peakPower > -1 { break }
            }
            let subtypes: [SampleFormat: Int32] = [.int16: Int32(SF_FORMAT_PCM_16), .int24: Int32(SF_FORMAT_PCM_24),
                                                   .int32: Int32(SF_FORMAT_PCM_32), .float32: Int32(SF_FORMAT_FLOAT)]
            let containers: [FileType: Int32] = [.aiff: Int32(SF_FORMAT_AIFF), .wav: Int32(SF_FORMAT_WAVEX),
                                                 .caf: Int32(SF_FORMAT_CAF), .flac: Int32(SF_FORMAT_FLAC),
                                                 .au: Int32(SF_FORMAT_AU), .w64: Int32(SF_FORMAT_W64),
                                                 .rf64: Int32(SF_FORMAT_RF64), .raw: Int32(SF_FORMAT_RAW)]
            var levels: [SampleFormat: [Float]] = [:]
            for type in FileType.allCases where type.isLossy {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (sampleFormat, recorder) in zip(formats, type == .opus ? opusRecorders : recorders) {
                        let path = directory + "/take-\(sampleFormat.rawValue)." + type.rawValue
                        if type == .opus {
                            do throws(RecorderError) { try recorders[formats.firstIndex(of: sampleFormat)!].record(to: path, frameLimit: 22_050) } catch {
                                #expect(error.code == .invalidFormat && error.message == "Opus cannot hold 44100 Hz: record at "
                                        + "48000 Hz (or 8000, 12000, 16000, 24000), or choose .ogg or .mp3")
                            }
                            #expect(!FileManager.default.fileExists(atPath: path))
                        }
                        try recorder.record(to: path, frameLimit: Int64(recorder.format.sampleRate / 2))
                        group.addTask {
                            let summary = try #require(try await recorder.waitForRecording())
                            #expect(summary.frameCount == Int64(recorder.format.sampleRate / 2))
                            // The level below is of what was heard: a loss (counted, placed) would lower it.
                            #expect(summary.droppedFrames == 0 || !summary.gaps.isEmpty)
                        }
                    }
                    try await group.waitForAll()
                }
                let codecs: [FileType: Int32] = [.ogg: Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS),
                                                 .opus: Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS),
                                                 .mp3: Int32(SF_FORMAT_MPEG) | Int32(SF_FORMAT_MPEG_LAYER_III)]
                for sampleFormat in formats {
                    let path = directory + "/take-\(sampleFormat.rawValue)." + type.rawValue
                    let (values, format) = try readNormalised(path, raw: nil)
                    #expect(values.count == (type == .opus ? 24_000 : 22_050), "\(path): \(values.count) frames")
                    #expect(format == codecs[type], "\(path): format \(String(format, radix: 16))")
                    // Past the first buffer (which may begin before the noise reached the monitor).
                    let heard = values.dropFirst(4_800)
                    let energy: Double = heard.reduce(0.0) { sum, value in sum + value * value }
                    let level: Double = 10 * log10(energy / Double(max(heard.count, 1)))
                    // The encoders cut the noise's top octave: measured 0.5 to 0.9 dB below it. (A take with a
                    // counted loss holds less noise: its level is only bounded above.)
                    let takenBy = (type == .opus ? opusRecorders : recorders)[formats.firstIndex(of: sampleFormat)!]
                    let lost = takenBy.lastRecording.map { !$0.gaps.isEmpty } ?? false
                    #expect(abs(level - noiseLevel) < 1.5 || (lost && level < noiseLevel), "\(path): \(level) dBFS, the noise \(noiseLevel)")
                }
            }
            for type in FileType.allCases where !type.isLossy {
                try await withThrowingTaskGroup(of: (String, RecordingSummary).self) { group in
                    for (sampleFormat, recorder) in zip(formats, recorders) {
                        let path = directory + "/take-\(sampleFormat.rawValue)." + type.rawValue
                        if type == .flac && (sampleFormat == .int32 || sampleFormat == .float32) {
                            #expect(throws: RecorderError.self) { try recorder.record(to: path, frameLimit: 22_050) }
                            do throws(RecorderError) { try recorder.record(to: path, frameLimit: 22_050) } catch {
                                #expect(error.code == .invalidFormat)
                                #expect(error.message == "FLAC cannot hold \(sampleFormat.rawValue) samples in 1 channels at 44100 Hz: "
                                        + "choose another container (.wav, .caf) or format")
                            }
                            #expect(!FileManager.default.fileExists(atPath: path))
                            continue
                        }
                        try recorder.record(to: path, frameLimit: 22_050)
                        group.addTask {
                            let summary = try #require(try await recorder.waitForRecording())
                            #expect(summary.frameCount == 22_050)
                            return (path, summary)
                        }
                    }
                    for try await (path, summary) in group { summaries[path] = summary }
                }
                if type == .aiff {
                    for (sampleFormat, recorder) in zip(formats, recorders) {
                        levels[sampleFormat] = recorder.lastRecording?.levels.map(\.peakPower)
                    }
                }
            }
            // Checked once every take is made, all within the played noise.
            for type in FileType.allCases where !type.isLossy {
                for sampleFormat in formats {
                    let path = directory + "/take-\(sampleFormat.rawValue)." + type.rawValue
                    guard FileManager.default.fileExists(atPath: path) else { continue }
                    let (values, format) = try readNormalised(path, raw: type == .raw ? sampleFormat : nil)
                    #expect(values.count == 22_050, "\(path)")
                    if type != .raw {
                        #expect(format & Int32(SF_FORMAT_TYPEMASK) == containers[type], "\(path)")
                        #expect(format & Int32(SF_FORMAT_SUBMASK) == subtypes[sampleFormat], "\(path)")
                    }
                    let summary = try #require(summaries[path])
                    let departure = heldExactly(values, of: noise, gaps: summary.gaps)
                    #expect(departure == nil, "\(path): \(departure ?? "")")
                }
            }
            // One noise, one level: the meters read every format alike.
            let peaks = formats.compactMap { levels[$0]?.first }
            #expect(peaks.count == 4 && peaks.allSatisfy { abs($0 - peaks[0]) < 0.01 }, "\(peaks)")
        }
    }
}

/// Where a take read as fractions of full scale departs from the 16-bit noise `played` it recorded from
/// the middle (the noise had reached the monitor before the take began), or nil: every sample an exact
/// 16-bit value (the server's conversion of a 16-bit sample into any format is exact), the take placed in
/// `played` by its first sounding samples, then `played` sample for sample, silent only where the sink
/// played nothing (the player late) or where the recorder counted a loss (`gaps`), and no more played
/// samples missing across such a loss than it counted.
private func heldExactly(_ values: [Double], of played: [Int16], gaps: [RecordingGap]) -> String? {
    var take: [Int16] = []
    take.reserveCapacity(values.count)
    for (index, value) in values.enumerated() {
        let scaled = value * 32_768
        guard scaled == scaled.rounded(), abs(scaled) <= 32_768 else { return "sample \(index) is \(value), not a 16-bit value" }
        take.append(Int16(clamping: Int(scaled)))
    }
    guard let first = take.firstIndex(where: { $0 != 0 }), first + 64 <= take.count else { return "no noise in the take" }
    guard let found = firstIndex(of: Array(take[first..<(first + 64)]), in: played) else {
        return "its first sounding samples were not played"
    }
    // From the first sounding sample (silence before it: the sink played nothing yet), the losses with it.
    let lost = gaps.map { Int($0.startFrame) - first..<Int($0.startFrame + $0.frameCount) - first }.filter { $0.upperBound > 0 }
    let heard = Heard(samples: Array(take[first...]), channels: 1, lost: lost.map { max(0, $0.lowerBound)..<$0.upperBound })
    // What of `played` the take spans: its length less the runs of silence nothing was played in (a
    // counted loss's silence stands for as many played frames; the noise has no run of 8 zeros).
    var unplayed = 0, run = 0
    for (index, sample) in heard.samples.enumerated() {
        if sample == 0 { run += 1; continue }
        if run >= 8, !lost.contains(where: { $0.contains(index - run) }) { unplayed += run }
        run = 0
    }
    if run >= 8, !lost.contains(where: { $0.contains(heard.samples.count - run) }) { unplayed += run }
    let end = min(played.count, found + heard.samples.count - unplayed)
    return compare(heard: heard, played: Array(played[found..<end]), underruns: Int.max).departure
}
