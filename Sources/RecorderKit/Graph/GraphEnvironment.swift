// The graph's 3D environment (AVAudioEnvironmentNode's): each input placed around a listener — its
// distance attenuated by one of the three models OpenAL and Apple document, its direction panned between
// two channels at equal power — with one reverb every input sends to by its blend.
import Glibc

/// A point (or a direction) in an environment: metres on right-handed axes, x to the listener's right,
/// y up, z behind (a listener at the start faces −z), as Apple's AVAudio3DPoint.
public struct SpatialPoint: Sendable, Equatable {
    /// Metres to the right.
    public var x: Float
    /// Metres up.
    public var y: Float
    /// Metres back (toward a listener facing as at the start).
    public var z: Float

    /// The point (x, y, z).
    public init(x: Float, y: Float, z: Float) {
        self.x = x
        self.y = y
        self.z = z
    }

    static func - (a: SpatialPoint, b: SpatialPoint) -> SpatialPoint { SpatialPoint(x: a.x - b.x, y: a.y - b.y, z: a.z - b.z) }
    func dot(_ other: SpatialPoint) -> Float { x * other.x + y * other.y + z * other.z }
    func cross(_ other: SpatialPoint) -> SpatialPoint {
        SpatialPoint(x: y * other.z - z * other.y, y: z * other.x - x * other.z, z: x * other.y - y * other.x)
    }
    var length: Float { dot(self).squareRoot() }
    var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }
}

/// How an input is rendered by an environment.
public enum SpatialMode: Int, Sendable {
    /// A mono input is placed at its position; an input of two or more channels passes through (Apple's
    /// default, `spatializeIfMono`).
    case spatializeIfMono = 0
    /// Passes through, its channels as they are, neither placed nor attenuated by distance.
    case passThrough = 1
    /// Mixed to mono and placed at its position, whatever its channels.
    case pointSource = 2
}

/// Where an input sits in a `GraphEnvironment` (`GraphNode.placement`).
public struct SpatialPlacement: Sendable, Equatable {
    /// Its position (metres).
    public var position = SpatialPoint(x: 0, y: 0, z: 0)
    /// How it is rendered.
    public var mode = SpatialMode.spatializeIfMono
    /// What it sends to the environment's reverb, 0…1 of its level there (0: none; the direct sound is
    /// not reduced by it).
    public var reverbBlend: Float = 0
    /// Decibels, −100…0, taken from its direct sound only (something between it and the listener).
    public var obstruction: Float = 0
    /// Decibels, −100…0, taken from its direct sound and its reverb (it is in another room).
    public var occlusion: Float = 0

    /// At the origin, placed if mono, no reverb, nothing in the way.
    public init() {}

    /// `other`'s values, each clamped to its range; a NaN (or a non-finite position) keeps this one's.
    func merged(_ other: SpatialPlacement) -> SpatialPlacement {
        var merged = self
        if other.position.isFinite { merged.position = other.position }
        merged.mode = other.mode
        if !other.reverbBlend.isNaN { merged.reverbBlend = min(1, max(0, other.reverbBlend)) }
        if !other.obstruction.isNaN { merged.obstruction = min(0, max(-100, other.obstruction)) }
        if !other.occlusion.isNaN { merged.occlusion = min(0, max(-100, other.occlusion)) }
        return merged
    }
}

/// How level falls with distance beyond the reference distance (Apple's
/// AVAudioEnvironmentDistanceAttenuationModel, with its raw values), d clamped to reference…maximum:
public enum DistanceModel: Int, Sendable {
    /// (d / reference) ^ −rolloff.
    case exponential = 1
    /// reference / (reference + rolloff × (d − reference)).
    case inverse = 2
    /// 1 − rolloff × (d − reference) / (maximum − reference), not below 0.
    case linear = 3
}

/// The listener, the distance model and the reverb of a `GraphEnvironment`.
public struct EnvironmentSettings: Sendable, Equatable {
    /// Where the listener is (metres).
    public var listenerPosition = SpatialPoint(x: 0, y: 0, z: 0)
    /// Where the listener faces, and which way is up (normalized when used; a zero or non-finite vector,
    /// or two parallel ones, keep the previous pair).
    public var listenerForward = SpatialPoint(x: 0, y: 0, z: -1)
    /// Which way is up for the listener.
    public var listenerUp = SpatialPoint(x: 0, y: 1, z: 0)
    /// How level falls with distance.
    public var distanceModel = DistanceModel.inverse
    /// Metres within which nothing is attenuated (> 0).
    public var referenceDistance: Float = 1
    /// Metres beyond which nothing is attenuated further (> the reference).
    public var maximumDistance: Float = 100_000
    /// How fast level falls (0…10 here; Apple documents no bound).
    public var rolloffFactor: Float = 1
    /// Whether the reverb runs.
    public var reverbEnabled = false
    /// The reverb's level in decibels, −40…40.
    public var reverbLevel: Float = 0
    /// The reverb's room.
    public var reverbPreset = ReverbPreset.mediumHall
    /// The mix's gain, 0…1.
    public var outputVolume: Float = 1

    /// The listener at the origin facing −z, the inverse model (reference 1 m, rolloff 1), no reverb.
    public init() {}

    /// `other`'s values where they are usable; this one's where not (NaN, out of range, a degenerate
    /// orientation).
    func merged(_ other: EnvironmentSettings) -> EnvironmentSettings {
        var merged = self
        if other.listenerPosition.isFinite { merged.listenerPosition = other.listenerPosition }
        let right = other.listenerForward.cross(other.listenerUp)
        if other.listenerForward.isFinite, other.listenerUp.isFinite, right.isFinite, right.length > 1e-6 {
            merged.listenerForward = other.listenerForward
            merged.listenerUp = other.listenerUp
        }
        merged.distanceModel = other.distanceModel
        if other.referenceDistance.isFinite, other.referenceDistance > 0 { merged.referenceDistance = other.referenceDistance }
        if other.maximumDistance.isFinite, other.maximumDistance > merged.referenceDistance { merged.maximumDistance = other.maximumDistance }
        if !other.rolloffFactor.isNaN { merged.rolloffFactor = min(10, max(0, other.rolloffFactor)) }
        merged.reverbEnabled = other.reverbEnabled
        if !other.reverbLevel.isNaN { merged.reverbLevel = min(40, max(-40, other.reverbLevel)) }
        merged.reverbPreset = other.reverbPreset
        if !other.outputVolume.isNaN { merged.outputVolume = min(1, max(0, other.outputVolume)) }
        return merged
    }

    /// The gain distance alone gives at `distance` metres.
    public func distanceGain(_ distance: Float) -> Float {
        let d = min(maximumDistance, max(referenceDistance, distance))
        switch distanceModel {
        case .exponential: return powf(d / referenceDistance, -rolloffFactor)
        case .inverse: return referenceDistance / (referenceDistance + rolloffFactor * (d - referenceDistance))
        case .linear: return max(0, 1 - rolloffFactor * (d - referenceDistance) / (maximumDistance - referenceDistance))
        }
    }

    /// The left and right gains of a source at `position` (before distance): equal-power panning by how
    /// far to the listener's right it lies, sin(azimuth), −1…1; (√½, √½) straight ahead, behind, above
    /// or at the listener's own position.
    public func panGains(_ position: SpatialPoint) -> (left: Float, right: Float) {
        let offset = position - listenerPosition
        let distance = offset.length
        let right = listenerForward.cross(listenerUp)
        let lateral = distance > 0 ? offset.dot(right) / (distance * right.length) : 0
        let angle = (min(1, max(-1, lateral)) + 1) * Float.pi / 4
        // sin θ as cos(π/2 − θ): the two equal to the bit in the middle.
        return (cosf(angle), cosf(Float.pi / 2 - angle))
    }
}

/// Places its inputs around a listener in two channels: each mono input (or every input, as its
/// placement's mode says) at its node's `volume`, attenuated by the distance model, panned at equal
/// power by its direction, less its obstruction and occlusion; with the reverb on, each input's
/// `reverbBlend` of it (after distance and occlusion) into one reverb heard at `reverbLevel`. Inputs that
/// pass through keep their channels (a mono one in both) at their volume. Then times the output volume.
///
/// ## Threads
/// Every member may be called from any thread.
public final class GraphEnvironment: GraphNode, @unchecked Sendable {
    // @unchecked Sendable: as GraphNode; `current` under `lock`; the reverb and the send used only by the
    // render pass (under the graph's lock).
    private var current = EnvironmentSettings()
    private var networks: [ReverbNetwork] = []
    private var madeFor = (preset: ReverbPreset.mediumHall, sampleRate: 0)
    /// The reverb's send and one channel's wet output, grown (allocating) only for a longer pass than any before.
    private var send: [Float] = []
    private var wet: [Float] = []

    /// An environment with its listener at the origin facing −z, the inverse distance model, no reverb.
    public override init() { super.init() }

    /// The listener, distance model and reverb (values that cannot be used are ignored, field by field).
    public var settings: EnvironmentSettings {
        get { lock.withLock { current } }
        set { lock.withLock { current = current.merged(newValue) } }
    }

    /// Changes some of the settings at once, under the node's lock (two threads changing two fields do
    /// not undo each other), with the same checks as `settings`' setter.
    public func update(_ change: (inout EnvironmentSettings) -> Void) {
        lock.withLock {
            var changed = current
            change(&changed)
            current = current.merged(changed)
        }
    }

    /// 4 096: any number in practice.
    public override var inputBusCount: Int { 4_096 }
    override var kind: String { "environment" }

    /// Empties the reverb's tail at the next pass.
    public override func reset() { lock.withLock { madeFor.sampleRate = 0 } }

    override func render(_ frames: Int, into buffer: GraphBuffer, pass: RenderPass) {
        let (settings, rebuild) = lock.withLock { (current, madeFor.preset != current.reverbPreset || madeFor.sampleRate != pass.sampleRate) }
        let left = buffer.channel(0), right = buffer.channel(1)
        if send.count < frames {
            send = [Float](repeating: 0, count: frames)
            wet = [Float](repeating: 0, count: frames)
        }
        send.withUnsafeMutableBufferPointer { send in
            for frame in 0..<frames { send[frame] = 0 }
            for source in pass.sources(into: self) {
                mix(pass.pull(source, frames: frames), of: source, frames: frames, pass: pass, settings: settings,
                    into: (left, right), send: send)
            }
        }
        if settings.reverbEnabled {
            if rebuild || networks.isEmpty {
                networks = (0..<2).map { ReverbNetwork(settings.reverbPreset.design, sampleRate: pass.sampleRate, spread: $0) }
                lock.withLock { madeFor = (settings.reverbPreset, pass.sampleRate) }
            }
            // The tail runs on whether or not anything is sent now (it rings out).
            let level = Self.decibels(settings.reverbLevel)
            for index in 0..<2 {
                let output = index == 0 ? left : right
                send.withUnsafeMutableBufferPointer { send in
                    wet.withUnsafeMutableBufferPointer { wet in
                        networks[index].run(send, into: wet, frames: frames)
                        for frame in 0..<frames { output[frame] += wet[frame] * level }
                    }
                }
            }
        }
        let gain = settings.outputVolume
        guard gain != 1 else { return }
        for frame in 0..<frames {
            left[frame] *= gain
            right[frame] *= gain
        }
    }

    /// Adds one input's `audio` to the two channels (placed, or passed through) and to the reverb's send.
    private func mix(_ audio: GraphBuffer, of source: GraphNode, frames: Int, pass: RenderPass, settings: EnvironmentSettings,
                     into output: (left: UnsafeMutableBufferPointer<Float>, right: UnsafeMutableBufferPointer<Float>),
                     send: UnsafeMutableBufferPointer<Float>) {
        let volume = source.mixSettings.volume, placement = source.placement
        let channels = max(1, source.outputChannels(pass))
        let placed = placement.mode == .pointSource || (placement.mode == .spatializeIfMono && channels == 1)
        guard placed else {
            let first = audio.channel(0), second = audio.channel(1)
            for frame in 0..<frames {
                output.left[frame] += Self.finite(first[frame]) * volume
                output.right[frame] += Self.finite(second[frame]) * volume
            }
            return
        }
        let distance = settings.distanceGain((placement.position - settings.listenerPosition).length)
        let (toLeft, toRight) = settings.panGains(placement.position)
        let direct = volume * distance * Self.decibels(placement.obstruction + placement.occlusion)
        let sent = settings.reverbEnabled ? volume * distance * Self.decibels(placement.occlusion) * placement.reverbBlend : 0
        let share = 1 / Float(channels)
        // The channels' samples, looked up once (at most 16: a source's channel count is capped there).
        let inputs = (0..<min(channels, 16)).map { audio.channel($0) }
        for frame in 0..<frames {
            var mono: Float = 0
            for input in inputs { mono += Self.finite(input[frame]) }
            mono *= share
            output.left[frame] += mono * direct * toLeft
            output.right[frame] += mono * direct * toRight
            send[frame] += mono * sent
        }
    }

    private static func decibels(_ value: Float) -> Float { powf(10, value / 20) }
    private static func finite(_ sample: Float) -> Float { sample.isFinite ? sample : 0 }
}
