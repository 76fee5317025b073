// Pictures of files no one should have to draw: empty, all NaN, one frame, 64 channels, ten hours (its
// memory measured), and outputs that cannot be written: a correct picture or one line, never a trap.
import Foundation
import RecorderKit
import RecorderPictures
import Testing
import TestSupport

@Suite struct HostilePictureTests {
    /// `analyze FILE` with every picture and file asked for: status 0, and each output readable.
    func drawsEverything(_ path: String, folder: String) throws -> ProcessResult {
        let result = try runRecorder(["analyze", path, "--plot", folder + "/p.svg", "--spectrogram", folder + "/s.png",
                                      "--curve", folder + "/c.csv", "--overs", "--json"])
        #expect(result.status == 0, "\(path): \(result.stderr)")
        #expect(try readSVG(folder + "/p.svg").glyphs.count > 100)
        let spectrum = try DecodedPNG(folder + "/s.png")
        #expect(spectrum.width == 1_600 && spectrum.height == 600)
        #expect(try String(contentsOfFile: folder + "/c.csv", encoding: .utf8).hasPrefix("time_s,momentary_lufs,short_term_lufs\n"))
        let line = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(line?["plot"] as? String == folder + "/p.svg")
        return result
    }

    @Test func anEmptyFileANaNFileAndAOneFrameFileAreDrawn() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try writeWAV(folder + "/empty.wav", samples: [], channels: 2, sampleRate: 48_000)
        _ = try drawsEverything(folder + "/empty.wav", folder: folder)
        try writeFloatWAV(folder + "/nan.wav", samples: [Float](repeating: .nan, count: 96_000), channels: 2, sampleRate: 48_000)
        let nan = try drawsEverything(folder + "/nan.wav", folder: folder)
        #expect(nan.stdout.contains("\"nonfinite_samples\": [48000, 48000]"))
        #expect(nan.stdout.contains("\"overs\": []"))
        // NaN, infinities and sound mixed: the picture is of the sound.
        var mixed = [Float](repeating: 0, count: 96_000)
        for index in mixed.indices {
            let odd: Float = index % 2 == 0 ? .nan : -.infinity
            mixed[index] = index % 7 == 0 ? odd : 0.5 * sin(Float(index) / 10)
        }
        try writeFloatWAV(folder + "/mixed.wav", samples: mixed, channels: 2, sampleRate: 48_000)
        _ = try drawsEverything(folder + "/mixed.wav", folder: folder)
        try writeWAV(folder + "/one.wav", samples: [12_000], channels: 1, sampleRate: 44_100)
        _ = try drawsEverything(folder + "/one.wav", folder: folder)
    }

    /// 64 channels: eight lanes of eight, an over in channel 50 marked in the lane of channels 49–56.
    @Test func sixtyFourChannelsAreEightLanesOfEight() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rate = 48_000, channels = 64
        var samples = [Int16](repeating: 0, count: rate * channels)
        for frame in 0..<rate { for channel in 0..<channels { samples[frame * channels + channel] = Int16(truncatingIfNeeded: (frame * (channel + 1)) % 2_000 - 1_000) } }
        for frame in 24_000..<24_010 { samples[frame * channels + 49] = 32_767 }
        try writeWAV(folder + "/wide.wav", samples: samples, channels: channels, sampleRate: rate)
        let options = PlotOptions()
        let analysis = try FileAnalysis.analyze(path: folder + "/wide.wav", request: Plot.request(options))
        let layout = try Plot.draw(analysis, to: folder + "/wide.svg", options: options)
        #expect(layout.lanes.map(\.channels) == (0..<8).map { ($0 * 8)..<($0 * 8 + 8) })
        #expect(layout.lanes.map(\.title).last == "ch 57–64")
        let svg = try readSVG(folder + "/wide.svg")
        let (r, g, b) = components(Plot.Palette.clipped)
        let marks = svg.paths.filter { $0.isFilled(r, g, b) && ($0.points.first?.y ?? 0) >= layout.loudnessBottom }
        #expect(marks.count == 1)
        let x = layout.left + 0.5 * layout.plotWidth
        #expect(abs((marks.first?.points.first?.x ?? -99) - x) <= 1)
        #expect(marks.first.map { $0.points.allSatisfy { $0.y >= layout.lanes[6].top && $0.y <= layout.lanes[6].bottom } } == true)
        #expect(analysis.overs.filter { $0.kind == .clipped }.map(\.channel) == [49])
    }

    @Test func outputsThatCannotBeWrittenAreOneLineAndLeaveNothing() async throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try writeWAV(folder + "/in.wav", samples: sineSamples(frames: 48_000, frequency: 440, sampleRate: 48_000, amplitudes: [0.5, 0.5]),
                     channels: 2, sampleRate: 48_000)
        for arguments in [["analyze", folder + "/in.wav", "--plot", "/nonexistent/p.svg"],
                          ["analyze", folder + "/in.wav", "--spectrogram", "/nonexistent/s.png"],
                          ["analyze", folder + "/in.wav", "--curve", "/nonexistent/c.csv"],
                          ["peaks", folder + "/in.wav", "-o", "/nonexistent/p.dat"]] {
            let result = try runRecorder(arguments)
            #expect(result.status == 73, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("/nonexistent/"), "\(result.stderr)")
        }
        for (arguments, bad) in [(["--plot", "p.pdf"], "--plot"), (["--spectrogram", "s.jpg"], "--spectrogram"), (["--curve", "c.txt"], "--curve"),
                                 (["--target", "nan"], "--target"), (["--ceiling", "3"], "--ceiling"), (["--width", "10"], "--width"),
                                 (["--height", "99999999"], "--height"), (["-j", "0"], "--jobs")] {
            let result = try runRecorder(["analyze", folder + "/in.wav"] + arguments)
            #expect(result.status == 64 && result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(bad), "\(arguments): \(result.stderr)")
        }
        // A pipe whose length is not known until it ends (an AU stream sox writes from raw input, its
        // length "unspecified"): measured as what it holds (libsndfile states 2^61 frames for it, which is
        // no length, not a file cut short), but no picture can be laid out in advance: one line saying
        // what to do.
        let stream = "sox -V1 \"$1\" -t raw - | sox -V1 -t raw -r 48000 -e signed -b 16 -c 2 - -t au - | \"$2\" analyze -"
        let measured = try runProcess("sh", ["-c", stream, "sh", folder + "/in.wav", try builtProduct("recorder")])
        #expect(measured.status == 0 && measured.stderr.isEmpty && measured.stdout.hasPrefix("-: 1.000 s, 2 ch"), "\(measured)")
        for picture in ["--plot", "--spectrogram"] {
            let piped = try runProcess("sh", ["-c", stream + " \"$3\" \"$4\"", "sh", folder + "/in.wav",
                                              try builtProduct("recorder"), picture, folder + "/piped.png"])
            #expect(piped.status == 64 && piped.stderr.contains("write it to a file first"), "\(piped.stderr)")
            #expect(piped.stderr.split(separator: "\n").count == 1)
            #expect(!FileManager.default.fileExists(atPath: folder + "/piped.png"))
        }
        // Two files, one output name: said before anything is read.
        let twice = try runRecorder(["analyze", folder + "/in.wav", folder + "/in.wav", "--plot", folder + "/p.svg"])
        #expect(twice.status == 64 && twice.stderr.contains("{}"))
        // Long enough that its curve (1 200 rows) and its peak data (a pair a frame) outgrow 16 kB.
        try writeWAV(folder + "/long.wav", samples: sineSamples(frames: 120 * 8_000, frequency: 440, sampleRate: 8_000, amplitudes: [0.5]),
                     channels: 1, sampleRate: 8_000)
        // A full disk: the picture is not written, nothing half-written is left, one line, 74.
        try await withTinyDisk(size: "16k") { disk in
            let result = try runRecorder(["analyze", folder + "/in.wav", "--plot", disk + "/p.png", "--spectrogram", disk + "/s.png"])
            #expect(result.status == 74, "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(disk + "/p.png"), "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: disk).isEmpty)
            // The curve and the peak data on the same full disk: one line, 74, nothing left.
            for arguments in [["analyze", folder + "/long.wav", "--curve", disk + "/c.csv"],
                              ["peaks", folder + "/long.wav", "-o", disk + "/p.json", "-z", "1"]] {
                let full = try runRecorder(arguments)
                #expect(full.status == 74, "\(arguments): \(full.status) \(full.stderr)")
                #expect(full.stderr.split(separator: "\n").count == 1 && full.stderr.contains(disk), "\(full.stderr)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: disk).isEmpty)
            }
        }
    }

    /// A mono 16-bit WAV at 8 kHz of `hours` hours: one second of a 300 Hz sine at −10 dBFS, repeated.
    func writeRepeatedSine(_ path: String, hours: Int) throws {
        let second = sineSamples(frames: 8_000, frequency: 300, sampleRate: 8_000, amplitudes: [0.316])
        let seconds = hours * 3_600
        var header = Data()
        func u32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { header.append(contentsOf: $0) } }
        func u16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { header.append(contentsOf: $0) } }
        header.append(contentsOf: Array("RIFF".utf8))
        u32(36 + seconds * 16_000)
        header.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16); u16(1); u16(1); u32(8_000); u32(16_000); u16(2); u16(16)
        header.append(contentsOf: Array("data".utf8))
        u32(seconds * 16_000)
        #expect(FileManager.default.createFile(atPath: path, contents: header))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        let block = second.withUnsafeBytes { Data($0) }
        var minute = Data()
        for _ in 0..<60 { minute.append(block) }
        for _ in 0..<(seconds / 60) { try handle.write(contentsOf: minute) }
    }

    /// Memory does not grow with the file: ten hours drawn in about what one hour takes (8 kHz mono, the
    /// lowest rate loudness is measured at, so the test decodes 288 million samples, not 1.7 billion; the
    /// analysis holds no samples at any rate). The spectrogram, whose memory is its picture's, is left out
    /// here for time (it doubles a debug build's pass).
    @Test func tenHoursTakeTheMemoryOfOne() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var peaks: [Int] = []
        for hours in [1, 10] {
            let path = folder + "/\(hours)h.wav"
            try writeRepeatedSine(path, hours: hours)
            // The peak resident memory of the command alone, from the kernel (a child of this Python).
            let measured = try runProcess("python3", ["-c", """
                import resource, subprocess, sys
                status = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
                print(status, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
                """, try builtProduct("recorder"), "analyze", path, "--plot", folder + "/p.png", "--curve", folder + "/c.csv",
                "--overs"])
            let fields = measured.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            #expect(fields.first == 0, "\(measured.stdout) \(measured.stderr)")
            peaks.append(fields.last ?? 0)
            try? FileManager.default.removeItem(atPath: path)
        }
        print("analyze with the plot, the curve and the overs: peak RSS \(peaks[0] / 1_024) MB for 1 h, \(peaks[1] / 1_024) MB for 10 h")
        // What grows is per 100 ms, not per sample: the loudness series (16 bytes, 0.6 MB an hour) and
        // libebur128's gating blocks (about 1 MB an hour, kept for exact integrated and LRA values); the
        // samples (here 29 MB an hour, 691 MB an hour at 48 kHz stereo) are never held.
        #expect(peaks[1] - peaks[0] < 24 * 1_024, "1 h: \(peaks[0]) kB, 10 h: \(peaks[1]) kB")
        #expect(peaks[1] < 160 * 1_024)
    }
}
