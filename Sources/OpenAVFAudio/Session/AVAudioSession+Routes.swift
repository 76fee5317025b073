// AVAudioSession's routes: the ports it reports (the server's default source and sink, the sources
// there are), and the choices a desktop's server makes instead of the app (a chosen input or an output
// override), refused with a thrown error that says what to do.
import Foundation
import RecorderKit

extension AVAudioSession {
    /// A port's kind. The ports reported here are the server's: `pulseAudioSource` and `pulseAudioSink`
    /// (Linux only); Apple's kinds are kept for code that names them.
    public struct Port: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let builtInMic = Port(rawValue: "MicrophoneBuiltIn")
        public static let headsetMic = Port(rawValue: "MicrophoneWired")
        public static let lineIn = Port(rawValue: "LineIn")
        public static let builtInSpeaker = Port(rawValue: "Speaker")
        public static let builtInReceiver = Port(rawValue: "Receiver")
        public static let headphones = Port(rawValue: "Headphones")
        public static let lineOut = Port(rawValue: "LineOut")
        public static let usbAudio = Port(rawValue: "USBAudio")
        public static let bluetoothHFP = Port(rawValue: "BluetoothHFP")
        public static let bluetoothA2DP = Port(rawValue: "BluetoothA2DPOutput")
        /// A PulseAudio (or pipewire-pulse) capture source. Linux only.
        public static let pulseAudioSource = Port(rawValue: "PulseAudioSource")
        /// A PulseAudio (or pipewire-pulse) playback sink. Linux only.
        public static let pulseAudioSink = Port(rawValue: "PulseAudioSink")
    }

    /// `overrideOutputAudioPort(_:)`'s choices.
    public enum PortOverride: UInt, Sendable {
        case none = 0
        case speaker = 1936747378  // 'spkr'
    }

    /// Posted by Apple's session when the route changes, audio is interrupted or the media services restart;
    /// the server here tells no app of these, so they are never posted (names kept for code that observes them).
    public static let routeChangeNotification = Notification.Name("AVAudioSessionRouteChangeNotification")
    public static let interruptionNotification = Notification.Name("AVAudioSessionInterruptionNotification")
    public static let mediaServicesWereLostNotification = Notification.Name("AVAudioSessionMediaServicesWereLostNotification")
    public static let mediaServicesWereResetNotification = Notification.Name("AVAudioSessionMediaServicesWereResetNotification")
    public static let silenceSecondaryAudioHintNotification = Notification.Name("AVAudioSessionSilenceSecondaryAudioHintNotification")

    /// The route now: the default source (or PULSE_SOURCE's) and the default sink (or PULSE_SINK's); empty
    /// when the server cannot be reached.
    public var currentRoute: AVAudioSessionRouteDescription {
        let environment = ProcessInfo.processInfo.environment
        let sources = ((try? Recorder.sources()) ?? []).filter { !$0.isMonitor }
        let sinks = (try? Player.sinks()) ?? []
        let source = environment["PULSE_SOURCE"].flatMap { name in sources.first { $0.name == name } } ?? sources.first(where: \.isDefault)
        let sink = environment["PULSE_SINK"].flatMap { name in sinks.first { $0.name == name } } ?? sinks.first(where: \.isDefault)
        return AVAudioSessionRouteDescription(inputs: source.map { [AVAudioSessionPortDescription($0, type: .pulseAudioSource)] } ?? [],
                                              outputs: sink.map { [AVAudioSessionPortDescription($0, type: .pulseAudioSink)] } ?? [])
    }

    /// The capture sources (monitors of sinks left out); nil when the server cannot be reached.
    public var availableInputs: [AVAudioSessionPortDescription]? {
        guard let sources = try? Recorder.sources() else { return nil }
        return sources.filter { !$0.isMonitor }.map { AVAudioSessionPortDescription($0, type: .pulseAudioSource) }
    }

    /// Nil succeeds (the default source); choosing a port is refused: the server chooses the input here.
    /// - Throws: an NSError (`kAudioQueueErr_InvalidDevice`) that says how to choose it instead.
    public func setPreferredInput(_ inPort: AVAudioSessionPortDescription?) throws {
        guard let inPort else { return }
        throw statusError(kAudioQueueErr_InvalidDevice,
            "cannot choose the input '\(inPort.uid)' through the session on Linux: the server's default source records; "
            + "set PULSE_SOURCE=\(inPort.uid), run `pactl set-default-source \(inPort.uid)`, or name it with "
            + "kAudioQueueProperty_CurrentDevice or Recorder(source:)")
    }

    /// `.none` succeeds; `.speaker` is refused: the server chooses the output here.
    /// - Throws: an NSError (`kAudioQueueErr_InvalidDevice`) that says how to choose it instead.
    public func overrideOutputAudioPort(_ portOverride: PortOverride) throws {
        guard portOverride == .speaker else { return }
        throw statusError(kAudioQueueErr_InvalidDevice,
            "cannot route the output to a speaker through the session on Linux: the server's default sink plays; "
            + "set PULSE_SINK=NAME or run `pactl set-default-sink NAME` (list them with `recorder sinks`)")
    }
}

/// A port: a source or sink of the server (`uid` its name, `portName` its description).
open class AVAudioSessionPortDescription: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable.
    public let portType: AVAudioSession.Port
    public let portName: String
    public let uid: String

    init(_ device: DeviceInfo, type: AVAudioSession.Port) {
        portType = type
        portName = device.description.isEmpty ? device.name : device.description
        uid = device.name
        super.init()
    }
}

/// A route: its input and output ports.
open class AVAudioSessionRouteDescription: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable.
    public let inputs: [AVAudioSessionPortDescription]
    public let outputs: [AVAudioSessionPortDescription]

    init(inputs: [AVAudioSessionPortDescription], outputs: [AVAudioSessionPortDescription]) {
        self.inputs = inputs
        self.outputs = outputs
        super.init()
    }
}
