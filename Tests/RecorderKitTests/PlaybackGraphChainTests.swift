// Chains of graph nodes rendered without a stream: a time effect behind or before neutral nodes gives the
// same audio as alone; a player's items each play in their own channels; a file whose length its header
// does not state plays the frames that are there.
import Foundation
import Testing
@testable import RecorderKit
import TestSupport

/// A node that leaves audio as it is: a varispeed at rate 1, a time-pitch at rate 1 and pitch 0, a time
/// effect that is bypassed (at rate 2), a second mixer.
private enum Neutral: String, CaseIterable, CustomStringConvertible {
    case varispeed, timePitch, bypassed, mixer

    var description: String { rawValue }

    func make() -> GraphNode {
        switch self {
        case .varispeed: return GraphVarispeed()
        case .timePitch: return GraphTimePitch()
        case .bypassed:
            let effect = GraphTimePitch()
            effect.rate = 2
            effect.bypass = true
            return effect
        case .mixer: return GraphMixer()
        }
    }
}

/// The effect that changes time: a time-pitch or a varispeed, at rate 2.
private enum TimeEffect: String, CaseIterable {
    case timePitch, varispeed

    func make() -> GraphNode {
        switch self {
        case .timePitch:
            let effect = GraphTimePitch()
            effect.rate = 2
            return effect
        case .varispeed:
            let effect = GraphVarispeed()
            effect.rate = 2
            return effect
        }
    }
}

/// What `chain` (player first, then each node, then the main mixer) puts out for 2 s of stereo noise,
/// over 1.5 s.
private func rendered(_ chain: [GraphNode]) throws -> [[Float]] {
    let graph = PlaybackGraph()
    let player = GraphPlayer()
    try graph.attach(player)
    var previous: GraphNode = player
    for node in chain {
        try graph.attach(node)
        try graph.connect(previous, to: node)
        previous = node
    }
    try graph.connect(previous, to: graph.mainMixer)
    player.schedule(samples: [noise(88_200, seed: 71), noise(88_200, seed: 73)], sampleRate: 44_100)
    player.play()
    return render(graph, frames: 66_150)
}

@Suite struct PlaybackGraphChainTests {
    /// Every chain of two and three nodes holding a time effect at rate 2 and neutral nodes, in every
    /// place: the same samples as the time effect alone, 2 s of input heard in 1 s (neutral nodes before
    /// the effect once replayed the pass's first frames: 2 s heard, 87 700 frames).
    @Test(arguments: TimeEffect.allCases)
    private func aTimeEffectAmongNeutralNodesSoundsAsAlone(_ effect: TimeEffect) throws {
        let alone = try rendered([effect.make()])
        let span = try #require(loudSpan(alone[0], threshold: 0.001))
        #expect(abs(span.count - 44_100) <= 2_205, "2 s at rate 2 sounded \(span.count) frames")
        var chains: [(String, [GraphNode])] = []
        for first in Neutral.allCases {
            chains.append(("\(first) → effect", [first.make(), effect.make()]))
            chains.append(("effect → \(first)", [effect.make(), first.make()]))
            for second in Neutral.allCases {
                chains.append(("\(first) → \(second) → effect", [first.make(), second.make(), effect.make()]))
                chains.append(("\(first) → effect → \(second)", [first.make(), effect.make(), second.make()]))
                chains.append(("effect → \(first) → \(second)", [effect.make(), first.make(), second.make()]))
            }
        }
        for (name, chain) in chains {
            let out = try rendered(chain)
            #expect(out[0] == alone[0] && out[1] == alone[1], "\(effect): \(name) differs from the effect alone")
        }
    }

    /// A stereo item followed by a mono one on the same player: the stereo item keeps its right channel
    /// (it read 0 once the mono item was scheduled), the mono one plays on both sides.
    @Test func eachItemPlaysInItsOwnChannels() throws {
        let graph = PlaybackGraph()
        let player = GraphPlayer()
        try graph.attach(player)
        try graph.connect(player, to: graph.mainMixer)
        let left = noise(4_410, seed: 81), right = [Float](repeating: 0.3, count: 4_410), mono = noise(4_410, seed: 83)
        player.schedule(samples: [left, right], sampleRate: 44_100)
        player.schedule(samples: [mono], sampleRate: 44_100)
        #expect(player.channelCount == 2)
        player.play()
        let out = render(graph, frames: 8_820)
        #expect(Array(out[0].prefix(4_410)) == left && Array(out[1].prefix(4_410)) == right)
        #expect(Array(out[0].suffix(4_410)) == mono && Array(out[1].suffix(4_410)) == mono)
    }

    /// A FLAC whose header does not state its length (written to a pipe): the file says the frames it
    /// holds, and a player plays them all.
    @Test func aFileOfUnstatedLengthPlaysTheFramesThatAreThere() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/piped.flac"
        let sox = try runProcess("sh", ["-c", "sox -n -r 44100 -c 1 -b 16 -t flac - synth 1.95 sine 440 vol 0.5 > \"$1\"", "sh", path])
        #expect(sox.status == 0, "\(sox.stderr)")
        let file = try GraphFile(path: path)
        #expect(file.frameCount == 85_995)
        let graph = PlaybackGraph()
        let player = GraphPlayer()
        try graph.attach(player)
        try graph.connect(player, to: graph.mainMixer)
        player.schedule(file)
        player.play()
        let out = render(graph, frames: 88_200)
        #expect(loudSpan(out[0], threshold: 0.01).map { $0.upperBound > 85_000 } == true, "\(String(describing: loudSpan(out[0])))")
    }
}
