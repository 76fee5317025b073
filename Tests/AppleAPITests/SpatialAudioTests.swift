// 3D mixing: the example (Examples/SpatialAudio, Swift 5 and 6) renders a mono sound from four places
// through an AVAudioEnvironmentNode; every sample of each scene is checked against the sound times the
// gains Apple documents (the distance models' formulas, equal-power panning by direction, obstruction in
// decibels). Then the environment's edges: reverb, pass-through, NaNs and degenerate orientations.
import CSndFile
import Foundation
import OpenAVFAudio
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct SpatialAudioTests {
    /// One second of a 440 Hz tone at half scale, 16-bit mono at 44.1 kHz.
    static func tone() -> [Int16] {
        (0..<44_100).map { Int16((0.5 * 32_767 * sin(2 * Double.pi * 440 * Double($0) / 44_100)).rounded(.towardZero)) }
    }

    /// A float file's two channels.
    static func stereo(_ path: String) throws -> (left: [Float], right: [Float]) {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else { throw TestFailure("cannot open \(path)") }
        defer { sf_close(file) }
        var samples = [Float](repeating: 0, count: Int(info.frames) * 2)
        _ = samples.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, info.frames) }
        return (stride(from: 0, to: samples.count, by: 2).map { samples[$0] }, stride(from: 1, to: samples.count, by: 2).map { samples[$0] })
    }

    /// Apple's documented gains for a source at `offset` from a listener facing `forward` with `right` to
    /// its right: distance by the model, then equal-power panning by sin(azimuth).
    static func gains(offset: (Double, Double, Double), right: (Double, Double, Double), distanceGain: (Double) -> Double)
        -> (left: Double, right: Double) {
        let distance = (offset.0 * offset.0 + offset.1 * offset.1 + offset.2 * offset.2).squareRoot()
        let lateral = (offset.0 * right.0 + offset.1 * right.1 + offset.2 * right.2) / distance
        let angle = (lateral + 1) * Double.pi / 4
        let gain = distanceGain(max(1, distance))
        return (gain * cos(angle), gain * sin(angle))
    }

    @Test(arguments: ["spatial-audio-swift5", "spatial-audio-swift6"])
    func aSourcePlacedAroundTheListenerIsHeardWhereItIs(_ product: String) async throws {
        let directory = try temporaryDirectory()
        let tone = Self.tone()
        try writeWAV(directory + "/tone.wav", samples: tone, channels: 1)
        let program = try builtProduct(product)
        let result = try await offThread { try runProcess(program, [directory + "/tone.wav", directory]) }
        #expect(result.status == 0, "\(result.stderr)")
        let inverse = { (d: Double) in 1 / (1 + 1 * (d - 1)) }  // reference 1, rolloff 1
        let exponential = { (d: Double) in pow(d / 1, -2) }       // rolloff 2
        let obstruction = pow(10, -6.0 / 20)
        let scenes: [(String, (left: Double, right: Double))] = [
            ("left", Self.gains(offset: (-2, 0, 0), right: (1, 0, 0), distanceGain: inverse)),
            ("front-right", Self.gains(offset: (1, 0, -1), right: (1, 0, 0), distanceGain: exponential)),
            // Turned a quarter to the left (yaw 90° about +y): the right hand now points toward −z.
            ("turned", Self.gains(offset: (-2, 0, 0), right: (0, 0, -1), distanceGain: inverse)),
            ("obstructed", Self.gains(offset: (-2, 0, 0), right: (1, 0, 0), distanceGain: { inverse($0) * obstruction })),
        ]
        for (name, gains) in scenes {
            let (left, right) = try Self.stereo(directory + "/\(name).wav")
            #expect(left.count == tone.count, "\(name): \(left.count) frames")
            let worst = zip(tone.indices, zip(left, right)).map { index, pair in
                let sample = Double(tone[index]) / 32_768
                return max(abs(Double(pair.0) - sample * gains.left), abs(Double(pair.1) - sample * gains.right))
            }.max() ?? 1
            #expect(worst < 1e-6, "\(name): a sample off by \(worst) from \(gains)")
        }
        // Left is louder on the left; front-right on the right.
        #expect(scenes[0].1.left > 0.24 && scenes[0].1.right < 1e-9 && scenes[1].1.right > 4 * scenes[1].1.left)
        #expect(result.stdout.hasSuffix("""
            algorithms: [0, 5, 7]
            HRTFHQ taken: false
            said: renderingAlgorithm: HRTFHQ (a head model or HRTF) is not available on Linux; equalPowerPanning, auto and stereoPassThrough are (see AVAudioEnvironmentNode.applicableRenderingAlgorithms)
            auto taken: true
            reverb on by default: false, model 2

            """), "\(result.stdout)")
    }

    /// Renders `seconds` of an engine with `environment` fed by a 440 Hz mono tone player at `position`.
    static func render(_ seconds: Double, position: AVAudio3DPoint, stereoSource: Bool = false,
                       configure: (AVAudioEnvironmentNode, AVAudioPlayerNode) -> Void) throws -> (left: [Float], right: [Float]) {
        let engine = AVAudioEngine()
        let environment = AVAudioEnvironmentNode(), player = AVAudioPlayerNode()
        engine.attach(environment)
        engine.attach(player)
        let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: stereoSource ? 2 : 1)!
        engine.connect(player, to: environment, format: format)
        engine.connect(environment, to: engine.mainMixerNode, format: nil)
        player.position = position
        configure(environment, player)
        let frames = AVAudioFrameCount(seconds * 44_100)
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4_410)!
        buffer.frameLength = 4_410
        for channel in 0..<Int(format.channelCount) {
            for index in 0..<4_410 { buffer.floatChannelData![channel][index] = channel == 0 ? 0.5 * sin(Float(index) * 2 * .pi * 440 / 44_100) : 0 }
        }
        player.scheduleBuffer(buffer, at: nil)
        try engine.enableManualRenderingMode(.offline, format: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!, maximumFrameCount: frames)
        try engine.start()
        player.play()
        let out = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: frames)!
        _ = try engine.renderOffline(frames, to: out)
        return (Array(UnsafeBufferPointer(start: out.floatChannelData![0], count: Int(out.frameLength))),
                Array(UnsafeBufferPointer(start: out.floatChannelData![1], count: Int(out.frameLength))))
    }

    @Test func theReverbRingsOnAfterTheSoundAndOcclusionQuietsIt() throws {
        func tail(_ occlusion: Float) throws -> Float {
            // 0.1 s of tone, then 0.4 s: what the reverb leaves after the sound has ended.
            let (left, right) = try Self.render(0.5, position: AVAudio3DPoint(x: 0, y: 0, z: -1)) { environment, player in
                environment.reverbParameters.enable = true
                environment.reverbParameters.loadFactoryReverbPreset(.largeHall)
                environment.reverbParameters.level = 0
                player.reverbBlend = 1
                player.occlusion = occlusion
            }
            let after: [Float] = Array(left[8_820...]) + Array(right[8_820...])
            return after.reduce(Float(0)) { $0 + $1 * $1 }
        }
        let open = try tail(0), occluded = try tail(-20)
        #expect(open > 1e-3, "no reverb tail: \(open)")
        // −20 dB on the send: a hundredth of the tail's energy.
        #expect(abs(occluded / open - 0.01) < 1e-4, "\(occluded / open)")
        // With the reverb off, nothing after the sound.
        let (left, _) = try Self.render(0.5, position: AVAudio3DPoint(x: 0, y: 0, z: -1)) { _, player in player.reverbBlend = 1 }
        #expect(left[8_820...].allSatisfy { $0 == 0 })
    }

    @Test func aStereoSourcePassesThroughUnlessMadeAPointSource() throws {
        // Left channel only, placed far to the right: passed through, it stays on the left at full level.
        let far = AVAudio3DPoint(x: 10, y: 0, z: 0)
        let (passedLeft, passedRight) = try Self.render(0.1, position: far, stereoSource: true) { _, _ in }
        let passedPeak: Float = passedLeft.map(abs).max() ?? 0
        #expect(abs(passedPeak - 0.5) < 1e-3 && passedRight.allSatisfy { $0 == 0 })
        // As a point source: mixed to mono (half), 10 m (a tenth), all to the right.
        let (pointLeft, pointRight) = try Self.render(0.1, position: far, stereoSource: true) { _, player in player.sourceMode = .pointSource }
        let pointPeak: Float = pointRight.map(abs).max() ?? 0, leftPeak: Float = pointLeft.map(abs).max() ?? 1
        #expect(abs(pointPeak - 0.025) < 1e-3 && leftPeak < 1e-6)
        // Stereo pass-through as the algorithm does the same for a mono source: in both channels, unplaced.
        let (monoLeft, monoRight) = try Self.render(0.1, position: far) { _, player in player.renderingAlgorithm = .stereoPassThrough }
        let monoPeak: Float = monoLeft.map(abs).max() ?? 0
        #expect(monoLeft == monoRight && abs(monoPeak - 0.5) < 1e-3)
    }

    @Test func twoSourcesConnectedToOneEnvironmentAreBothPlaced() throws {
        let engine = AVAudioEngine()
        let environment = AVAudioEnvironmentNode()
        let players = [AVAudioPlayerNode(), AVAudioPlayerNode()]
        engine.attach(environment)
        let mono = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1)!
        for (index, player) in players.enumerated() {
            engine.attach(player)
            engine.connect(player, to: environment, format: mono)
            player.position = AVAudio3DPoint(x: index == 0 ? -1 : 1, y: 0, z: 0)
            let buffer = AVAudioPCMBuffer(pcmFormat: mono, frameCapacity: 441)!
            buffer.frameLength = 441
            for frame in 0..<441 { buffer.floatChannelData![0][frame] = index == 0 ? 0.25 : 0.5 }
            player.scheduleBuffer(buffer, at: nil)
        }
        engine.connect(environment, to: engine.mainMixerNode, format: nil)
        #expect(environment.nextAvailableInputBus == 2)
        try engine.enableManualRenderingMode(.offline, format: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!, maximumFrameCount: 441)
        try engine.start()
        players.forEach { $0.play() }
        let out = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 441)!
        _ = try engine.renderOffline(441, to: out)
        // Each 1 m away (no attenuation), one hard left, one hard right.
        #expect(abs(out.floatChannelData![0][100] - 0.25) < 1e-6 && abs(out.floatChannelData![1][100] - 0.5) < 1e-6)
    }

    @Test func nonsenseIsIgnoredAndRefusalsAreSaid() throws {
        let environment = AVAudioEnvironmentNode(), player = AVAudioPlayerNode()
        player.position = AVAudio3DPoint(x: 1, y: 2, z: 3)
        player.position = AVAudio3DPoint(x: .nan, y: 0, z: .infinity)
        #expect(player.position == AVAudio3DPoint(x: 1, y: 2, z: 3))
        player.reverbBlend = 7
        player.obstruction = .nan
        player.occlusion = -1e30
        #expect(player.reverbBlend == 1 && player.obstruction == 0 && player.occlusion == -100)
        let parameters = environment.distanceAttenuationParameters
        parameters.referenceDistance = -1
        parameters.maximumDistance = 0.5
        parameters.rolloffFactor = .infinity
        #expect(parameters.referenceDistance == 1 && parameters.maximumDistance == 100_000 && parameters.rolloffFactor == 10)
        // Forward and up parallel: no orientation; kept as it was.
        environment.listenerVectorOrientation = AVAudio3DVectorOrientation(forward: AVAudio3DVector(x: 0, y: 1, z: 0), up: AVAudio3DVector(x: 0, y: 2, z: 0))
        #expect(environment.listenerVectorOrientation == AVAudio3DVectorOrientation())
        environment.listenerAngularOrientation = AVAudio3DAngularOrientation(yaw: .nan, pitch: 0, roll: 0)
        #expect(environment.listenerAngularOrientation == AVAudio3DAngularOrientation())
        // Refused, and read back as they are (the example checks the lines that say so).
        player.renderingAlgorithm = .HRTF
        player.sourceMode = .ambienceBed
        player.rate = 2
        player.pointSourceInHeadMode = .bypass
        #expect(player.renderingAlgorithm == .equalPowerPanning && player.sourceMode == .spatializeIfMono && player.rate == 1
                && player.pointSourceInHeadMode == .mono)
        // The linear model: 3 m with reference 1 and maximum 5 is half way, so half the level.
        let (linear, _) = try Self.render(0.1, position: AVAudio3DPoint(x: 0, y: 0, z: -3)) { environment, _ in
            environment.distanceAttenuationParameters.distanceAttenuationModel = .linear
            environment.distanceAttenuationParameters.maximumDistance = 5
        }
        let linearPeak: Float = linear.map(abs).max() ?? 0, halfWay = Float(0.5 * 0.5 * 0.5.squareRoot())
        #expect(abs(linearPeak - halfWay) < 1e-3)
        // A source at the listener: in the middle, at equal power, no division by zero.
        let (left, right) = try Self.render(0.1, position: AVAudio3DPoint()) { _, _ in }
        let middlePeak: Float = left.map(abs).max() ?? 0, equalPower = Float(0.5 * 0.5.squareRoot())
        #expect(left == right && abs(middlePeak - equalPower) < 1e-3)
    }
}
