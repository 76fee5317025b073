// A player's rate and pitch, heard on the sink's monitor: how long the tone lasts and at what frequency.
import Foundation
import RecorderKit
import Testing
import TestSupport

/// The stretch of `heard` (mono) that is sound: from the first to the last sample above −50 dBFS.
private func soundingSpan(_ heard: Heard) -> Range<Int>? {
    guard let first = heard.samples.firstIndex(where: { abs(Int($0)) > 100 }),
          let last = heard.samples.lastIndex(where: { abs(Int($0)) > 100 }) else { return nil }
    return first..<(last + 1)
}

/// The runs of 8 or more zeros in `span` (a tone never holds them: the sink played nothing there).
private func silentRuns(_ samples: [Int16], in span: Range<Int>) -> [Range<Int>] {
    var runs: [Range<Int>] = []
    var start: Int?
    for index in span {
        if samples[index] == 0 {
            if start == nil { start = index }
        } else if let begun = start {
            if index - begun >= 8 { runs.append(begun..<index) }
            start = nil
        }
    }
    return runs
}

/// The frequency of a tone over the middle four fifths of `span`, Hz: the mean period between rising
/// zero crossings, leaving out the periods a silent run interrupts (more than 1.2 times the median).
private func frequency(of samples: [Int16], in span: Range<Int>, sampleRate: Double = 44_100) -> Double {
    let margin = span.count / 10
    let middle = (span.lowerBound + margin)..<(span.upperBound - margin)
    var crossings: [Int] = []
    for index in middle.dropFirst() where samples[index - 1] < 0 && samples[index] >= 0 { crossings.append(index) }
    let periods = zip(crossings, crossings.dropFirst()).map { $1 - $0 }
    guard !periods.isEmpty else { return 0 }
    let median = periods.sorted()[periods.count / 2]
    let kept = periods.filter { Double($0) <= 1.2 * Double(median) }
    return sampleRate / (Double(kept.reduce(0, +)) / Double(kept.count))
}

@Suite(.timeLimit(.minutes(2)))
struct TimePitchTests {
    /// A 1 kHz tone of 2 s at half scale, mono 44.1 kHz, in a fresh directory.
    private func tone() throws -> String {
        let path = try temporaryDirectory() + "/tone.wav"
        try writeWAV(path, samples: sineSamples(frames: 88_200, frequency: 1_000, amplitudes: [0.5]), channels: 1)
        return path
    }

    /// Plays the tone with `rate` and `pitch` and returns how long it sounded (frames, silence the server
    /// reported left out) and at what frequency, what the player says it played, and where it ended.
    private func play(rate: Double, pitch: Double) async throws
        -> (frames: Int, frequency: Double, played: Int64, position: Double) {
        try await withPrivateServer { server in
            let player = try Player(contentsOf: try tone(), device: PrivateServer.monoSink, server: server.address)
            defer { player.close() }
            player.rate = rate
            player.pitch = pitch
            var finished = false
            let heard = try await monitoring(server) { _, _ in finished = try await playToEnd(player) }
            #expect(finished)
            let span = try #require(soundingSpan(heard), "nothing heard")
            // Silence inside only where the server said so: the player's underruns, the ear's own losses.
            // (Not in the last buffer: there SoundTouch lets its last window out, padded with silence,
            // which its documentation says "may introduce additional blank samples".)
            let silent = silentRuns(heard.samples, in: span.lowerBound..<max(span.lowerBound, span.upperBound - 4_410))
            #expect(silent.count <= player.underrunCount + heard.lost.count,
                    "\(silent.count) silent runs (\(silent) in \(span)), \(player.underrunCount) underruns, \(heard.lost.count) ear losses")
            let sounding = span.count - silent.reduce(0) { $0 + $1.count }
            return (sounding, frequency(of: heard.samples, in: span), player.heardFrameCount, player.currentTime)
        }
    }

    /// Twice as fast: half the length (within a buffer, 4 410 frames), the same 1 kHz (±1 %).
    @Test func aToneAtRateTwoIsHeardForHalfItsLengthAtItsFrequency() async throws {
        let (frames, frequency, played, position) = try await play(rate: 2, pitch: 0)
        #expect(abs(frames - 44_100) <= 4_410, "\(frames) frames heard")
        #expect(abs(frequency - 1_000) <= 10, "\(frequency) Hz")
        // What the server played, in the listener's time; the position is the file's, back at its start.
        #expect(abs(Int(played) - 44_100) <= 4_410 && position == 0, "\(played) frames played, at \(position) s")
    }

    /// An octave up: the full length, at 2 kHz.
    @Test func aToneAnOctaveUpIsHeardForItsLengthAtTwiceItsFrequency() async throws {
        let (frames, frequency, _, _) = try await play(rate: 1, pitch: 1_200)
        #expect(abs(frames - 88_200) <= 4_410, "\(frames) frames heard")
        #expect(abs(frequency - 2_000) <= 20, "\(frequency) Hz")
    }

    /// Both at once: half the length at 2 kHz; half as fast an octave down: twice the length at 500 Hz.
    @Test func rateAndPitchTogetherAreEachAsAlone() async throws {
        let (frames, frequency, _, _) = try await play(rate: 2, pitch: 1_200)
        #expect(abs(frames - 44_100) <= 4_410 && abs(frequency - 2_000) <= 20, "\(frames) frames at \(frequency) Hz")
        let (slow, low, _, _) = try await play(rate: 0.5, pitch: -1_200)
        #expect(abs(slow - 176_400) <= 4_410 && abs(low - 500) <= 5, "\(slow) frames at \(low) Hz")
    }

    /// Out-of-range and non-finite values are clamped or ignored, never a trap; a player of a 16-bit output
    /// callback takes them, one of float samples (or of more channels than SoundTouch takes) keeps its own
    /// speed and says so by reading back 1.
    @Test func hostileRatesAndPitchesAreClampedOrIgnored() async throws {
        try await withPrivateServer { server in
            let player = try Player(contentsOf: try tone(), device: PrivateServer.monoSink, server: server.address)
            defer { player.close() }
            for (value, expected) in [(Double.nan, 1.0), (0, 1.0 / 32), (1e15, 32), (-5, 1.0 / 32), (.infinity, 1.0 / 32), (1.5, 1.5)] {
                player.rate = value
                #expect(player.rate == expected, "rate \(value): \(player.rate)")
            }
            for (value, expected) in [(Double.nan, 0.0), (1e9, 2_400), (-1e9, -2_400), (-.infinity, -2_400), (700, 700)] {
                player.pitch = value
                #expect(player.pitch == expected, "pitch \(value): \(player.pitch)")
            }
            // A 16-bit callback's player stretches (as an Audio Queue's time-pitch); a float one keeps its speed.
            let callback = try Player(format: try StreamFormat(sampleRate: 44_100, channelCount: 1),
                                      device: PrivateServer.monoSink, server: server.address) { $0.frameCount = 0 }
            defer { callback.close() }
            callback.rate = 2
            callback.pitch = 100
            #expect(callback.rate == 2 && callback.pitch == 100)
            let floats = try Player(format: try StreamFormat(sampleRate: 44_100, channelCount: 1, sampleFormat: .float32),
                                    device: PrivateServer.monoSink, server: server.address) { $0.frameCount = 0 }
            defer { floats.close() }
            floats.rate = 2
            floats.pitch = 100
            #expect(floats.rate == 1 && floats.pitch == 0)
        }
    }
}
