// The playback graph rendered without a stream: sums, pan, schedules at times, loops, resampling, the time
// effects, taps and the refusals, each checked against the samples put in.
import Foundation
import Synchronization
import Testing
@testable import RecorderKit

private func sine(_ frequency: Double, rate: Int, frames: Int, amplitude: Float = 0.5) -> [Float] {
    (0..<frames).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
}

func noise(_ frames: Int, seed: UInt64) -> [Float] {
    var state = seed
    return (0..<frames).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Float(Int32(truncatingIfNeeded: state >> 32)) / Float(Int32.max) * 0.4
    }
}

/// Renders `graph` for `frames` frames in passes of 2 205 (50 ms at 44.1 kHz, as the stream asks).
func render(_ graph: PlaybackGraph, frames: Int, pass: Int = 2_205) -> [[Float]] {
    var out: [[Float]] = [[], []]
    while out[0].count < frames {
        let mix = graph.renderOffline(pass)
        out[0] += mix[0]
        out[1] += mix[1]
    }
    return out.map { Array($0.prefix(frames)) }
}

/// The frequency of `samples` from its rising zero crossings, over whole periods.
private func frequency(_ samples: ArraySlice<Float>, rate: Int) -> Double {
    let values = Array(samples)
    let rising = (1..<values.count).filter { values[$0 - 1] < 0 && values[$0] >= 0 }
    guard let first = rising.first, let last = rising.last, last > first else { return 0 }
    return Double(rising.count - 1) * Double(rate) / Double(last - first)
}

/// The span of samples louder than `threshold`.
func loudSpan(_ samples: [Float], threshold: Float = 0.05) -> Range<Int>? {
    guard let first = samples.firstIndex(where: { abs($0) > threshold }),
          let last = samples.lastIndex(where: { abs($0) > threshold }) else { return nil }
    return first..<(last + 1)
}

@Suite struct PlaybackGraphTests {
    /// Two players started at one graph time, the second's samples scheduled 4 410 frames into its timeline:
    /// the output is their sum, sample for sample (the mono noise in both channels, the stereo tone's
    /// channels on their sides), and the mixer's tap holds the same samples with contiguous sample times.
    @Test func twoPlayersAreMixedSampleForSampleAndTheMixerTapHoldsTheMix() throws {
        let graph = PlaybackGraph()
        let a = GraphPlayer(), b = GraphPlayer()
        try graph.attach(a)
        try graph.attach(b)
        try graph.connect(a, to: graph.mainMixer)
        try graph.connect(b, to: graph.mainMixer)
        let first = noise(10_000, seed: 3), left = noise(6_000, seed: 5), right = noise(6_000, seed: 7)
        let done = Atomic<Int>(0)
        a.schedule(samples: [first], sampleRate: 44_100) { done.add(1, ordering: .relaxed) }
        b.schedule(samples: [left, right], sampleRate: 44_100, at: 4_410) { done.add(1, ordering: .relaxed) }
        let tapped = Mutex<[[Float]]>([[], []])
        let times = Mutex<[Int64]>([])
        try graph.mainMixer.installTap { buffer in
            tapped.withLock { $0[0] += buffer.channels[0]; $0[1] += buffer.channels[1] }
            times.withLock { $0.append(buffer.sampleTime) }
        }
        _ = graph.renderOffline(2_205)  // a pass before the start: silence
        a.play(at: 2_205)
        b.play(at: 2_205)
        let out = render(graph, frames: 17_640)
        for frame in 0..<17_640 {
            let x = frame < first.count ? first[frame] : 0
            let late = frame - 4_410
            let l = late >= 0 && late < left.count ? left[late] : 0, r = late >= 0 && late < right.count ? right[late] : 0
            guard out[0][frame] == x + l, out[1][frame] == x + r else {
                Issue.record("frame \(frame): \(out[0][frame]), \(out[1][frame]) against \(x + l), \(x + r)")
                return
            }
        }
        let completed = done.load(ordering: .relaxed)
        #expect(completed == 2)
        let tap = tapped.withLock { $0 }
        #expect(Array(tap[0].suffix(17_640)) == out[0] && Array(tap[1].suffix(17_640)) == out[1])
        #expect(times.withLock { $0 } == stride(from: 0, to: Int64(tap[0].count), by: 2_205).map { $0 })
    }

    /// Volume and pan where a node enters the mixer, and the mixer's output volume: a mono source at pan
    /// −0.5 is whole on the left and half on the right; at volume 0.5 and output volume 0.5, a quarter.
    @Test func panVolumeAndOutputVolumeFollowTheLaw() throws {
        let graph = PlaybackGraph()
        let player = GraphPlayer()
        try graph.attach(player)
        try graph.connect(player, to: graph.mainMixer)
        let samples = noise(4_410, seed: 11)
        player.schedule(samples: [samples], sampleRate: 44_100)
        player.schedule(samples: [samples], sampleRate: 44_100)
        player.pan = -0.5
        player.play()
        let panned = render(graph, frames: 4_410)
        #expect(panned[0] == samples && panned[1] == samples.map { $0 * 0.5 })
        player.pan = 0
        player.volume = 0.5
        graph.mainMixer.outputVolume = 0.5
        let quiet = render(graph, frames: 4_410)
        #expect(quiet[0] == samples.map { $0 * 0.5 * 0.5 } && quiet[1] == quiet[0])
        player.volume = .nan
        player.pan = 9
        #expect(player.volume == 0.5 && player.pan == 1)
    }

    /// A looped buffer plays whole copies back to back until one scheduled with `interruptsAtLoop` takes
    /// over at the end of a copy; `interrupts` cuts in at once (the interrupted handlers run); `stop`
    /// drops the rest and runs theirs.
    @Test func loopsAndInterruptionsFollowTheirOptions() throws {
        let graph = PlaybackGraph()
        let player = GraphPlayer()
        try graph.attach(player)
        try graph.connect(player, to: graph.mainMixer)
        let loop = noise(1_000, seed: 13), next = noise(3_000, seed: 17)
        let handled = Mutex<[String]>([])
        player.schedule(samples: [loop], sampleRate: 44_100, options: .loops) { handled.withLock { $0.append("loop") } }
        player.play()
        let copies = render(graph, frames: 2_500, pass: 500)
        #expect(copies[0] == loop + loop + Array(loop.prefix(500)))
        player.schedule(samples: [next], sampleRate: 44_100, options: .interruptsAtLoop) { handled.withLock { $0.append("next") } }
        let after = render(graph, frames: 1_000, pass: 500)
        #expect(after[0] == Array(loop.suffix(500)) + Array(next.prefix(500)))
        #expect(handled.withLock { $0 } == ["loop"])
        player.schedule(samples: [loop], sampleRate: 44_100, options: .interrupts) { handled.withLock { $0.append("cut in") } }
        #expect(handled.withLock { $0 } == ["loop", "next"])
        let cut = render(graph, frames: 500, pass: 500)
        #expect(cut[0] == Array(loop.prefix(500)))
        player.stop()
        #expect(handled.withLock { $0 } == ["loop", "next", "cut in"] && !player.isPlaying && player.playerTime == nil)
    }

    /// An item scheduled at a graph time begins at that output frame, whenever the player started; one at a
    /// player time, that many frames after the player's start; one at a time past, at once.
    @Test func itemsBeginAtTheGraphOrPlayerTimeAsked() throws {
        let graph = PlaybackGraph()
        let player = GraphPlayer()
        try graph.attach(player)
        try graph.connect(player, to: graph.mainMixer)
        let first = noise(1_000, seed: 31), second = noise(1_000, seed: 37), third = noise(500, seed: 41)
        player.schedule(samples: [first], sampleRate: 44_100, at: .graph(5_000))
        player.schedule(samples: [second], sampleRate: 44_100, at: .player(5_000))
        player.schedule(samples: [third], sampleRate: 44_100, at: .graph(0))
        _ = graph.renderOffline(2_205)  // output frames 0…2 204, before the player plays
        player.play()
        let out = render(graph, frames: 8_820)[0]
        // Output frame f is out[f - 2 205]; the player started at output frame 2 205.
        #expect(out[0..<2_795].allSatisfy { $0 == 0 })
        #expect(Array(out[2_795..<3_795]) == first)
        #expect(out[3_795..<5_000].allSatisfy { $0 == 0 })
        #expect(Array(out[5_000..<6_000]) == second && Array(out[6_000..<6_500]) == third)
    }

    /// A player whose items differ in channels puts out the most of them: a mono item then plays on both.
    @Test func aMonoItemOnAStereoPlayerPlaysOnBothSides() throws {
        let graph = PlaybackGraph()
        let player = GraphPlayer()
        try graph.attach(player)
        try graph.connect(player, to: graph.mainMixer)
        let mono = noise(2_205, seed: 43), left = noise(2_205, seed: 47), right = noise(2_205, seed: 53)
        player.schedule(samples: [mono], sampleRate: 44_100)
        player.schedule(samples: [left, right], sampleRate: 44_100)
        player.play()
        let out = render(graph, frames: 4_410)
        #expect(Array(out[0].prefix(2_205)) == mono && Array(out[1].prefix(2_205)) == mono)
        #expect(Array(out[0].suffix(2_205)) == left && Array(out[1].suffix(2_205)) == right)
    }

    /// Completions asked for when rendered run after the pass that rendered the item's end; those asked
    /// for when heard wait for the stream's clock (without a stream, after the pass too); a stopped player
    /// runs the handlers of what it drops.
    @Test func completionsRunWhenRenderedOrHeard() throws {
        let graph = PlaybackGraph()
        let player = GraphPlayer()
        try graph.attach(player)
        try graph.connect(player, to: graph.mainMixer)
        let order = Mutex<[String]>([])
        player.schedule(samples: [noise(3_000, seed: 19)], sampleRate: 44_100) { order.withLock { $0.append("rendered") } }
        player.schedule(samples: [noise(1_000, seed: 23)], sampleRate: 44_100, completeWhen: .heard) { order.withLock { $0.append("heard") } }
        player.schedule(samples: [noise(9_000, seed: 29)], sampleRate: 44_100) { order.withLock { $0.append("dropped") } }
        player.play()
        _ = graph.renderOffline(2_205)
        #expect(order.withLock { $0 }.isEmpty)
        _ = graph.renderOffline(2_205)
        #expect(order.withLock { $0 } == ["rendered", "heard"])
        player.stop()
        #expect(order.withLock { $0 } == ["rendered", "heard", "dropped"])
    }

    /// A 48 kHz source in a 44.1 kHz graph is resampled: one second of a 1 kHz sine comes out one second
    /// long (within the resampler's window, 1 %) at 1 kHz (±1 %), at its level.
    @Test func aSourceAtAnotherRateIsResampledToTheGraphs() throws {
        let graph = PlaybackGraph(sampleRate: 44_100)
        let player = GraphPlayer()
        try graph.attach(player)
        try graph.connect(player, to: graph.mainMixer)
        let finished = Atomic<Bool>(false)
        player.schedule(samples: [sine(1_000, rate: 48_000, frames: 48_000)], sampleRate: 48_000) { finished.store(true, ordering: .relaxed) }
        player.play()
        let out = render(graph, frames: 66_150)[0]
        let span = try #require(loudSpan(out))
        #expect(abs(span.count - 44_100) < 441, "\(span.count) frames")
        let heard = frequency(out[span], rate: 44_100)
        #expect(abs(heard - 1_000) < 10, "\(heard) Hz")
        let peak = out[span].map(abs).max() ?? 0
        #expect(abs(peak - 0.5) < 0.02, "peak \(peak)")
        let ended = finished.load(ordering: .relaxed)
        #expect(ended)
    }

    /// Time effects between a player and the mixer: time-pitch at rate 2 keeps 1 kHz over half the length,
    /// at +1 200 cents doubles the pitch over the whole length; varispeed at 2 does both.
    @Test(arguments: [("rate", 2.0, 1_000.0, 0.5), ("pitch", 1_200.0, 2_000.0, 1.0), ("varispeed", 2.0, 2_000.0, 0.5)])
    func timeEffectsChangeSpeedAndPitchAsAsked(effect: String, value: Double, frequency expected: Double, length: Double) throws {
        let graph = PlaybackGraph()
        let player = GraphPlayer()
        let node: GraphTimeEffect
        switch effect {
        case "rate": let timePitch = GraphTimePitch(); timePitch.rate = value; node = timePitch
        case "pitch": let timePitch = GraphTimePitch(); timePitch.pitch = value; node = timePitch
        default: let varispeed = GraphVarispeed(); varispeed.rate = value; node = varispeed
        }
        try graph.attach(player)
        try graph.attach(node)
        try graph.connect(player, to: node)
        try graph.connect(node, to: graph.mainMixer)
        player.schedule(samples: [sine(1_000, rate: 44_100, frames: 88_200)], sampleRate: 44_100)
        player.play()
        let out = render(graph, frames: 132_300)[0]
        let span = try #require(loudSpan(out))
        #expect(abs(Double(span.count) - 88_200 * length) < 2_205, "\(effect): \(span.count) frames")
        let middle = out[(span.lowerBound + 4_410)..<(span.upperBound - 4_410)]
        #expect(abs(frequency(middle, rate: 44_100) - expected) < expected / 100, "\(effect): \(frequency(middle, rate: 44_100)) Hz")
        node.bypass = true
        #expect(node.bypass)
    }

    /// Hostile numbers never trap: times at Int64's ends, segments from Int64.min for Int64.max frames,
    /// NaN and infinite samples (played as 0), rates NaN/0/1e15 and pitches ±1e9 on the effects, a graph
    /// rate no stream carries (start refuses it before connecting), host times with no stream.
    @Test func hostileNumbersNeverTrap() throws {
        let graph = PlaybackGraph()
        let player = GraphPlayer(), timePitch = GraphTimePitch(), varispeed = GraphVarispeed()
        for node in [player, timePitch, varispeed] as [GraphNode] { try graph.attach(node) }
        try graph.connect(player, to: timePitch)
        try graph.connect(timePitch, to: varispeed)
        try graph.connect(varispeed, to: graph.mainMixer)
        var samples = noise(1_000, seed: 59)
        samples[10] = .nan
        samples[20] = .infinity
        samples[30] = -.infinity
        player.schedule(samples: [samples], sampleRate: 44_100, at: .graph(.min))
        player.schedule(samples: [samples], sampleRate: 44_100, at: .player(.min))
        player.schedule(samples: [samples], sampleRate: 44_100, at: .player(.max), options: .interrupts)
        player.schedule(samples: [samples], sampleRate: 44_100, at: .graph(.max), options: .interrupts)
        player.schedule(samples: [samples], sampleRate: 0, options: .interrupts)
        player.schedule(samples: [samples], sampleRate: .max, options: .interrupts)
        player.schedule(samples: [samples], sampleRate: 44_100, options: .interrupts)
        player.play(at: .min)
        player.play(at: .max)
        player.play(at: .min)
        let out = render(graph, frames: 2_205)
        #expect(Array(out[0].prefix(1_000)) == samples.map { $0.isFinite ? $0 : 0 })
        for (value, rate, pitch) in [(Double.nan, 1.0, 0.0), (0, 1.0 / 32, 0), (1e15, 32, 2_400), (-1e9, 1.0 / 32, -2_400), (1e9, 32, 2_400)] {
            timePitch.rate = value
            timePitch.pitch = value
            varispeed.rate = value
            #expect(timePitch.rate == rate && timePitch.pitch == pitch, "\(value)")
            #expect(varispeed.rate == min(4, max(0.25, rate)) || value.isNaN, "\(value)")
        }
        player.schedule(samples: [samples], sampleRate: 44_100)
        _ = render(graph, frames: 4_410)
        #expect(graph.sampleTime(forHostTime: .max) == nil && graph.sampleTime(forHostTime: 0) == nil)
        for rate in [0, -1, Int.max, Int.min] {
            let odd = PlaybackGraph(sampleRate: rate)
            #expect(throws: RecorderError.self) { try odd.start() }
            #expect(!odd.isRunning)
        }
        try player.installTap(bufferFrames: .min) { _ in }
        player.volume = .infinity
        player.pan = -.nan
        #expect(player.volume == 1 && player.pan == 0)
    }

    /// What cannot be: a node in two graphs, a connection to a node not attached, to a bus a node lacks,
    /// into itself or round a loop, a second tap; each a thrown error with a line, the graph unchanged.
    @Test func impossibleConnectionsAndSecondTapsAreRefused() throws {
        let graph = PlaybackGraph(), other = PlaybackGraph()
        let player = GraphPlayer(), effect = GraphTimePitch(), stray = GraphTimePitch()
        try graph.attach(player)
        try graph.attach(effect)
        try graph.attach(player)  // again: nothing changes
        #expect(throws: RecorderError.self) { try other.attach(player) }
        #expect(throws: RecorderError.self) { try graph.connect(stray, to: graph.mainMixer) }
        #expect(throws: RecorderError.self) { try graph.connect(effect, to: player) }  // a player has no input
        #expect(throws: RecorderError.self) { try graph.connect(effect, to: effect) }
        try graph.connect(player, to: effect)
        try graph.connect(effect, to: graph.mainMixer, bus: 3)
        #expect(graph.nextAvailableInputBus(of: graph.mainMixer) == 0)
        do {
            try graph.connect(graph.mainMixer, to: effect, bus: 0)
            Issue.record("a loop was accepted")
        } catch {
            #expect(error.message.contains("loop"), "\(error.message)")
        }
        #expect(graph.source(into: effect) === player && graph.destination(of: effect)?.bus == 3)
        try effect.installTap { _ in }
        do {
            try effect.installTap { _ in }
            Issue.record("a second tap was accepted")
        } catch {
            #expect(error.message.contains("already installed"), "\(error.message)")
        }
        effect.removeTap()
        try effect.installTap(bufferFrames: .max) { _ in }
        graph.detach(effect)
        #expect(graph.source(into: graph.mainMixer, bus: 3) == nil && effect.attachedGraph == nil)
        try other.attach(effect)
    }
}
