// AVAudio3DMixing: where a node sits when it enters an AVAudioEnvironmentNode (its position, how it is
// rendered, its reverb blend, obstruction, occlusion), and the 3D points and orientations it is given in.
import Foundation
import RecorderKit

/// A point in an environment: metres, x to the right, y up, z toward the listener's back (a listener
/// facing as at the start looks toward −z).
public struct AVAudio3DPoint: Sendable, Equatable {
    public var x: Float
    public var y: Float
    public var z: Float
    public init() { x = 0; y = 0; z = 0 }
    public init(x: Float, y: Float, z: Float) {
        self.x = x
        self.y = y
        self.z = z
    }

    var spatial: SpatialPoint { SpatialPoint(x: x, y: y, z: z) }
    init(_ point: SpatialPoint) { self.init(x: point.x, y: point.y, z: point.z) }
}

/// A direction, in the same axes.
public typealias AVAudio3DVector = AVAudio3DPoint

/// A listener's orientation as two vectors: where it faces and which way is up.
public struct AVAudio3DVectorOrientation: Sendable, Equatable {
    public var forward: AVAudio3DVector
    public var up: AVAudio3DVector
    public init() {
        forward = AVAudio3DVector(x: 0, y: 0, z: -1)
        up = AVAudio3DVector(x: 0, y: 1, z: 0)
    }
    public init(forward: AVAudio3DVector, up: AVAudio3DVector) {
        self.forward = forward
        self.up = up
    }
}

/// A listener's orientation as angles in degrees: yaw about the y axis, pitch about x, roll about z, each
/// turning by the right-hand rule (a positive yaw turns the listener to its left).
public struct AVAudio3DAngularOrientation: Sendable, Equatable {
    public var yaw: Float
    public var pitch: Float
    public var roll: Float
    public init() { yaw = 0; pitch = 0; roll = 0 }
    public init(yaw: Float, pitch: Float, roll: Float) {
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
    }
}

public func AVAudioMake3DPoint(_ x: Float, _ y: Float, _ z: Float) -> AVAudio3DPoint { AVAudio3DPoint(x: x, y: y, z: z) }
public func AVAudioMake3DVector(_ x: Float, _ y: Float, _ z: Float) -> AVAudio3DVector { AVAudio3DVector(x: x, y: y, z: z) }
public func AVAudioMake3DVectorOrientation(_ forward: AVAudio3DVector, _ up: AVAudio3DVector) -> AVAudio3DVectorOrientation {
    AVAudio3DVectorOrientation(forward: forward, up: up)
}
public func AVAudioMake3DAngularOrientation(_ yaw: Float, _ pitch: Float, _ roll: Float) -> AVAudio3DAngularOrientation {
    AVAudio3DAngularOrientation(yaw: yaw, pitch: pitch, roll: roll)
}

/// How an environment renders a source. Here: equal-power panning (and `auto`, which picks it, the
/// best this package has) or stereo pass-through; Apple's head models and HRTFs are not here.
public enum AVAudio3DMixingRenderingAlgorithm: Int, Sendable {
    case equalPowerPanning = 0
    case sphericalHead = 1
    case HRTF = 2
    case soundField = 3
    case stereoPassThrough = 5
    case HRTFHQ = 6
    case auto = 7
}

/// Which of a source's channels are placed.
public enum AVAudio3DMixingSourceMode: Int, Sendable {
    case spatializeIfMono = 0
    case bypass = 1
    case pointSource = 2
    case ambienceBed = 3
}

/// How a source at the listener's own position is heard.
public enum AVAudio3DMixingPointSourceInHeadMode: Int, Sendable {
    case mono = 0
    case bypass = 1
}

/// A node's place in an environment (ignored by the other mixers).
public protocol AVAudio3DMixing: AnyObject {
    var renderingAlgorithm: AVAudio3DMixingRenderingAlgorithm { get set }
    var sourceMode: AVAudio3DMixingSourceMode { get set }
    var pointSourceInHeadMode: AVAudio3DMixingPointSourceInHeadMode { get set }
    var rate: Float { get set }
    var reverbBlend: Float { get set }
    var obstruction: Float { get set }
    var occlusion: Float { get set }
    var position: AVAudio3DPoint { get set }
}

/// The AVAudio3DMixing choices a node keeps beside its graph node's placement.
struct Mixing3D {
    var algorithm = AVAudio3DMixingRenderingAlgorithm.equalPowerPanning
    var sourceMode = AVAudio3DMixingSourceMode.spatializeIfMono
}

extension AVAudio3DMixing where Self: AVAudioNode {
    /// Equal-power panning (the default), `auto` (which renders as equal-power panning, the best here) or
    /// stereo pass-through. Apple's head models and HRTFs (`sphericalHead`, `HRTF`, `HRTFHQ`,
    /// `soundField`) are not here: setting one keeps the algorithm as it was, and
    /// `OpenAVFAudioLastErrorMessage()` says so (read it back to see what renders).
    public var renderingAlgorithm: AVAudio3DMixingRenderingAlgorithm {
        get { mixing3D.withLock { $0.algorithm } }
        set {
            guard [.equalPowerPanning, .auto, .stereoPassThrough].contains(newValue) else {
                AVAudioEngine.noteRefusal("renderingAlgorithm: \(newValue) (a head model or HRTF) is not available on Linux; "
                    + "equalPowerPanning, auto and stereoPassThrough are (see AVAudioEnvironmentNode.applicableRenderingAlgorithms)")
                return
            }
            mixing3D.withLock { $0.algorithm = newValue }
            placeAgain()
        }
    }

    /// Which channels are placed: a mono source (`spatializeIfMono`, the default), none (`bypass`), or
    /// the source mixed to mono (`pointSource`). `ambienceBed` is not here: refused as above.
    public var sourceMode: AVAudio3DMixingSourceMode {
        get { mixing3D.withLock { $0.sourceMode } }
        set {
            guard newValue != .ambienceBed else {
                AVAudioEngine.noteRefusal("sourceMode: ambienceBed is not available on Linux; use bypass (passed through) or pointSource")
                return
            }
            mixing3D.withLock { $0.sourceMode = newValue }
            placeAgain()
        }
    }

    /// `mono`: a source at the listener's position is heard in the middle, at equal power. `bypass` is
    /// not here (refused as above).
    public var pointSourceInHeadMode: AVAudio3DMixingPointSourceInHeadMode {
        get { .mono }
        set {
            if newValue != .mono {
                AVAudioEngine.noteRefusal("pointSourceInHeadMode: bypass is not available on Linux; a source at the listener is heard in the middle")
            }
        }
    }

    /// 1: a source's playback rate is not changed by the environment here (an AVAudioUnitVarispeed
    /// before it does that); another value is refused as above.
    public var rate: Float {
        get { 1 }
        set {
            if newValue != 1 {
                AVAudioEngine.noteRefusal("rate: an environment does not change a source's rate on Linux; put an AVAudioUnitVarispeed before it")
            }
        }
    }

    /// What the source sends to the environment's reverb, 0…1 (clamped; NaN ignored); its direct sound is
    /// not reduced by it.
    public var reverbBlend: Float {
        get { graphNode.placement.reverbBlend }
        set { updatePlacement { $0.reverbBlend = newValue } }
    }

    /// Decibels taken from the direct sound, −100…0 (clamped; NaN ignored): as gain, without Apple's
    /// low-pass filtering.
    public var obstruction: Float {
        get { graphNode.placement.obstruction }
        set { updatePlacement { $0.obstruction = newValue } }
    }

    /// Decibels taken from the direct sound and the reverb, −100…0 (clamped; NaN ignored): as gain,
    /// without Apple's low-pass filtering.
    public var occlusion: Float {
        get { graphNode.placement.occlusion }
        set { updatePlacement { $0.occlusion = newValue } }
    }

    /// The source's position, in metres (a non-finite one is ignored).
    public var position: AVAudio3DPoint {
        get { AVAudio3DPoint(graphNode.placement.position) }
        set { updatePlacement { $0.position = newValue.spatial } }
    }

    private func updatePlacement(_ change: (inout SpatialPlacement) -> Void) { graphNode.updatePlacement(change) }

    /// The graph node's mode from the algorithm and the source mode.
    private func placeAgain() {
        let (algorithm, mode) = mixing3D.withLock { ($0.algorithm, $0.sourceMode) }
        updatePlacement {
            $0.mode = algorithm == .stereoPassThrough || mode == .bypass ? .passThrough : mode == .pointSource ? .pointSource : .spatializeIfMono
        }
    }
}
