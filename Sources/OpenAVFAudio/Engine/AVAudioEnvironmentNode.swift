// AVAudioEnvironmentNode and its distance-attenuation and reverb parameters, over RecorderKit's
// GraphEnvironment: sources placed around a listener in the engine's two channels.
import Foundation
import Locking
import RecorderKit

/// Where an environment's output is heard. Kept and reported; the rendering is the same for each.
public enum AVAudioEnvironmentOutputType: Int, Sendable {
    case auto = 0
    case headphones = 1
    case builtInSpeakers = 2
    case externalSpeakers = 3
}

/// How level falls with distance (see `DistanceModel` for each formula).
public typealias AVAudioEnvironmentDistanceAttenuationModel = DistanceModel

/// An environment's distance attenuation: a view of its node's settings (any thread).
open class AVAudioEnvironmentDistanceAttenuationParameters: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the one field is fixed; the environment's settings are under its lock.
    private let environment: GraphEnvironment
    init(_ environment: GraphEnvironment) { self.environment = environment }

    /// Exponential, inverse (the default) or linear.
    public var distanceAttenuationModel: AVAudioEnvironmentDistanceAttenuationModel {
        get { environment.settings.distanceModel }
        set { environment.update { $0.distanceModel = newValue } }
    }
    /// Metres within which there is no attenuation, > 0 (1 by default; others ignored).
    public var referenceDistance: Float {
        get { environment.settings.referenceDistance }
        set { environment.update { $0.referenceDistance = newValue } }
    }
    /// Metres beyond which there is no more, > the reference (100 000 by default; others ignored).
    public var maximumDistance: Float {
        get { environment.settings.maximumDistance }
        set { environment.update { $0.maximumDistance = newValue } }
    }
    /// How fast level falls, 0…10 (1 by default; clamped; NaN ignored).
    public var rolloffFactor: Float {
        get { environment.settings.rolloffFactor }
        set { environment.update { $0.rolloffFactor = newValue } }
    }
}

/// An environment's reverb: a view of its node's settings (any thread).
open class AVAudioEnvironmentReverbParameters: NSObject, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioEnvironmentDistanceAttenuationParameters.
    private let environment: GraphEnvironment
    init(_ environment: GraphEnvironment) { self.environment = environment }

    /// Whether the reverb runs (off by default, as Apple's).
    public var enable: Bool {
        get { environment.settings.reverbEnabled }
        set { environment.update { $0.reverbEnabled = newValue } }
    }
    /// Its level in decibels, −40…40 (clamped; NaN ignored).
    public var level: Float {
        get { environment.settings.reverbLevel }
        set { environment.update { $0.reverbLevel = newValue } }
    }
    /// The room: one of AVAudioUnitReverb's presets (a medium hall by default).
    open func loadFactoryReverbPreset(_ preset: AVAudioUnitReverbPreset) { environment.update { $0.reverbPreset = preset } }
}

/// Places its inputs around a listener in the engine's two channels (RecorderKit's `GraphEnvironment`):
/// each mono input (as its `sourceMode` says) at its `position`, attenuated by the distance model, panned
/// at equal power by its direction, less its obstruction and occlusion (as gains); with the reverb on,
/// each input's `reverbBlend` into one reverb. Connect sources into it and it into the main mixer.
open class AVAudioEnvironmentNode: AVAudioNode, AVAudioMixing, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode; `kept` under its lock.
    var environment: GraphEnvironment { graphNode as! GraphEnvironment }
    private let kept = Locked((outputType: AVAudioEnvironmentOutputType.auto, angles: AVAudio3DAngularOrientation()))

    public init() { super.init(graphNode: GraphEnvironment()) }

    /// Where the output is heard: kept and reported (the rendering does not change with it).
    public var outputType: AVAudioEnvironmentOutputType {
        get { kept.withLock { $0.outputType } }
        set { kept.withLock { $0.outputType = newValue } }
    }

    /// The gain of the environment's mix, 0…1 (clamped; NaN ignored).
    public var outputVolume: Float {
        get { environment.settings.outputVolume }
        set { environment.update { $0.outputVolume = newValue } }
    }

    /// The lowest input bus nothing is connected to.
    public var nextAvailableInputBus: AVAudioNodeBus {
        engine?.graph.nextAvailableInputBus(of: environment) ?? 0
    }

    /// The listener's position, in metres (non-finite: ignored).
    public var listenerPosition: AVAudio3DPoint {
        get { AVAudio3DPoint(environment.settings.listenerPosition) }
        set { environment.update { $0.listenerPosition = newValue.spatial } }
    }

    /// Where the listener faces and which way is up (parallel, zero or non-finite vectors: ignored).
    public var listenerVectorOrientation: AVAudio3DVectorOrientation {
        get {
            let settings = environment.settings
            return AVAudio3DVectorOrientation(forward: AVAudio3DVector(settings.listenerForward), up: AVAudio3DVector(settings.listenerUp))
        }
        set {
            environment.update {
                $0.listenerForward = newValue.forward.spatial
                $0.listenerUp = newValue.up.spatial
            }
        }
    }

    /// The listener's orientation as yaw, pitch and roll in degrees, turned by the right-hand rule about
    /// y, x and z in that order from facing −z with y up; setting it sets the vectors (and the vectors,
    /// set, leave the angles as they were last set, as Apple's keep the two apart).
    public var listenerAngularOrientation: AVAudio3DAngularOrientation {
        get { kept.withLock { $0.angles } }
        set {
            guard newValue.yaw.isFinite, newValue.pitch.isFinite, newValue.roll.isFinite else { return }
            kept.withLock { $0.angles = newValue }
            let (forward, up) = Self.vectors(newValue)
            environment.update {
                $0.listenerForward = forward
                $0.listenerUp = up
            }
        }
    }

    /// Forward and up after yaw (about y), then pitch (about the turned x), then roll (about forward).
    static func vectors(_ angles: AVAudio3DAngularOrientation) -> (SpatialPoint, SpatialPoint) {
        let (yaw, pitch, roll) = (angles.yaw * .pi / 180, angles.pitch * .pi / 180, angles.roll * .pi / 180)
        // Yaw about +y turns −z toward −x; pitch about the turned x raises forward; roll turns up about forward.
        let forward = SpatialPoint(x: -sin(yaw) * cos(pitch), y: sin(pitch), z: -cos(yaw) * cos(pitch))
        let level = SpatialPoint(x: sin(yaw) * sin(pitch), y: cos(pitch), z: cos(yaw) * sin(pitch))
        let side = SpatialPoint(x: cos(yaw), y: 0, z: -sin(yaw))  // forward × level: the listener's right
        let up = SpatialPoint(x: level.x * cos(roll) - side.x * sin(roll), y: level.y * cos(roll) - side.y * sin(roll),
                              z: level.z * cos(roll) - side.z * sin(roll))
        return (forward, up)
    }

    /// Its distance attenuation (a view: changes apply at once).
    public var distanceAttenuationParameters: AVAudioEnvironmentDistanceAttenuationParameters {
        AVAudioEnvironmentDistanceAttenuationParameters(environment)
    }

    /// Its reverb (a view: changes apply at once).
    public var reverbParameters: AVAudioEnvironmentReverbParameters { AVAudioEnvironmentReverbParameters(environment) }

    /// The rendering algorithms available here: equal-power panning, auto (which is it) and stereo
    /// pass-through.
    public var applicableRenderingAlgorithms: [NSNumber] {
        [AVAudio3DMixingRenderingAlgorithm.equalPowerPanning, .stereoPassThrough, .auto].map { NSNumber(value: $0.rawValue) }
    }

    /// The engine's format (its rate, two channels), whatever feeds it.
    open override func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        engine?.outputFormat ?? AVAudioEngine.defaultFormat
    }
}
