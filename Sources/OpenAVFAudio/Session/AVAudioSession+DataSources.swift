// AVAudioSession's data sources, polar patterns and stereo orientation, and the keys of its notifications'
// user info. A desktop's server exposes no microphone orientations or polar patterns to an app, so the
// lists are nil (as Apple's are for a port without them), the neutral choices succeed, and any other
// choice throws a line that says where Linux makes it.
import Foundation
import RecorderKit

extension AVAudioSession {
    /// Where a data source sits on the device ("Lower", "Upper").
    public struct Location: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let lower = Location(rawValue: "Lower")
        public static let upper = Location(rawValue: "Upper")
    }

    /// Which way a data source faces.
    public struct Orientation: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let top = Orientation(rawValue: "Top")
        public static let bottom = Orientation(rawValue: "Bottom")
        public static let front = Orientation(rawValue: "Front")
        public static let back = Orientation(rawValue: "Back")
        public static let left = Orientation(rawValue: "Left")
        public static let right = Orientation(rawValue: "Right")
    }

    /// A microphone's directivity.
    public struct PolarPattern: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let omnidirectional = PolarPattern(rawValue: "Omnidirectional")
        public static let cardioid = PolarPattern(rawValue: "Cardioid")
        public static let subcardioid = PolarPattern(rawValue: "Subcardioid")
        public static let stereo = PolarPattern(rawValue: "Stereo")
    }

    /// How a stereo input's left and right lie against the device.
    public enum StereoOrientation: Int, Sendable {
        case none = 0
        case portrait = 1
        case portraitUpsideDown = 2
        case landscapeRight = 3
        case landscapeLeft = 4
    }

    /// Whether an interruption began or ended (`AVAudioSessionInterruptionTypeKey`'s value).
    public enum InterruptionType: UInt, Sendable {
        case began = 1
        case ended = 0
    }

    /// `AVAudioSessionInterruptionOptionKey`'s value.
    public struct InterruptionOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let shouldResume = InterruptionOptions(rawValue: 1)
    }

    /// Why the route changed (`AVAudioSessionRouteChangeReasonKey`'s value).
    public enum RouteChangeReason: UInt, Sendable {
        case unknown = 0
        case newDeviceAvailable = 1
        case oldDeviceUnavailable = 2
        case categoryChange = 3
        case override = 4
        case wakeFromSleep = 6
        case noSuitableRouteForCategory = 7
        case routeConfigurationChange = 8
    }

    /// The input chosen with `setPreferredInput(_:)`: always nil here, as only nil can be chosen (the
    /// server's default source records).
    public var preferredInput: AVAudioSessionPortDescription? { nil }

    /// The current input's data sources: nil, as for a port that has none (the server shows an app no
    /// microphone positions; its source ports are chosen with `pactl set-source-port`).
    public var inputDataSources: [AVAudioSessionDataSourceDescription]? { nil }
    /// The input data source in use: nil (see `inputDataSources`).
    public var inputDataSource: AVAudioSessionDataSourceDescription? { nil }
    /// The current output's data sources: nil, as for a port that has none.
    public var outputDataSources: [AVAudioSessionDataSourceDescription]? { nil }
    /// The output data source in use: nil (see `outputDataSources`).
    public var outputDataSource: AVAudioSessionDataSourceDescription? { nil }

    /// Nil succeeds (the port's default); a data source cannot be had here, so none can be chosen.
    public func setInputDataSource(_ dataSource: AVAudioSessionDataSourceDescription?) throws {
        if let dataSource { throw dataSourceRefusal(dataSource, "input") }
    }

    /// Nil succeeds (the port's default); a data source cannot be had here, so none can be chosen.
    public func setOutputDataSource(_ dataSource: AVAudioSessionDataSourceDescription?) throws {
        if let dataSource { throw dataSourceRefusal(dataSource, "output") }
    }

    /// The stereo orientation asked for: `.none` (the only one that can be chosen here).
    public var preferredInputOrientation: StereoOrientation { .none }
    /// The input's stereo orientation: `.none`, the channels as the source delivers them.
    public var inputOrientation: StereoOrientation { .none }

    /// `.none` succeeds; any orientation is refused: the server delivers a source's channels as they are.
    /// - Throws: an NSError (`kAudioQueueErr_InvalidDevice`) that says how to swap channels instead.
    public func setPreferredInputOrientation(_ orientation: StereoOrientation) throws {
        guard orientation != .none else { return }
        throw statusError(kAudioQueueErr_InvalidDevice,
            "cannot set the input's stereo orientation on Linux: the server delivers a source's channels as they are; "
            + "swap them with a remapped source (`pactl load-module module-remap-source master=SOURCE "
            + "channel_map=front-right,front-left`) and record that")
    }

    private func dataSourceRefusal(_ dataSource: AVAudioSessionDataSourceDescription, _ side: String) -> NSError {
        statusError(kAudioQueueErr_InvalidDevice,
            "cannot choose the \(side) data source '\(dataSource.dataSourceName)' on Linux: the server chooses a "
            + "device's port; run `pactl set-\(side == "input" ? "source" : "sink")-port NAME PORT` (list them "
            + "with `pactl list \(side == "input" ? "sources" : "sinks")`)")
    }
}

/// A data source of a port (a microphone position, a speaker). None is reported on Linux; the type is
/// here for code that names it.
open class AVAudioSessionDataSourceDescription: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable.
    public let dataSourceID: NSNumber
    public let dataSourceName: String
    public let location: AVAudioSession.Location?
    public let orientation: AVAudioSession.Orientation?
    public let supportedPolarPatterns: [AVAudioSession.PolarPattern]?
    public let selectedPolarPattern: AVAudioSession.PolarPattern?
    public let preferredPolarPattern: AVAudioSession.PolarPattern?

    init(id: Int, name: String) {
        dataSourceID = NSNumber(value: id)
        dataSourceName = name
        location = nil
        orientation = nil
        supportedPolarPatterns = nil
        selectedPolarPattern = nil
        preferredPolarPattern = nil
        super.init()
    }

    /// Nil succeeds; a pattern is refused, as the source supports none.
    public func setPreferredPolarPattern(_ pattern: AVAudioSession.PolarPattern?) throws {
        guard let pattern else { return }
        throw statusError(kAudioQueueErr_InvalidDevice,
            "cannot set the polar pattern \(pattern.rawValue) of '\(dataSourceName)' on Linux: the server exposes "
            + "no microphone patterns; choose the pattern on the microphone itself")
    }
}

extension AVAudioSessionPortDescription {
    /// The port's data sources: nil, as for a port that has none.
    public var dataSources: [AVAudioSessionDataSourceDescription]? { nil }
    /// The data source in use: nil.
    public var selectedDataSource: AVAudioSessionDataSourceDescription? { nil }
    /// The data source asked for: nil.
    public var preferredDataSource: AVAudioSessionDataSourceDescription? { nil }

    /// Nil succeeds; a data source cannot be had here, so none can be chosen.
    public func setPreferredDataSource(_ dataSource: AVAudioSessionDataSourceDescription?) throws {
        guard let dataSource else { return }
        throw statusError(kAudioQueueErr_InvalidDevice,
            "cannot choose the data source '\(dataSource.dataSourceName)' of '\(uid)' on Linux: the server chooses "
            + "a device's port; run `pactl set-source-port \(uid) PORT` (list them with `pactl list sources`)")
    }
}

/// The keys of the session's notifications' user info, by Apple's names.
public let AVAudioSessionInterruptionTypeKey = "AVAudioSessionInterruptionTypeKey"
public let AVAudioSessionInterruptionOptionKey = "AVAudioSessionInterruptionOptionKey"
public let AVAudioSessionInterruptionReasonKey = "AVAudioSessionInterruptionReasonKey"
public let AVAudioSessionRouteChangeReasonKey = "AVAudioSessionRouteChangeReasonKey"
public let AVAudioSessionRouteChangePreviousRouteKey = "AVAudioSessionRouteChangePreviousRouteKey"
public let AVAudioSessionSilenceSecondaryAudioHintTypeKey = "AVAudioSessionSilenceSecondaryAudioHintTypeKey"

extension Notification.Name {
    /// Posted by Apple's engine when its I/O format or device changes. The server moves a stream to a new
    /// default device itself, at the same format, so the engine here never posts it.
    public static let AVAudioEngineConfigurationChange = Notification.Name("AVAudioEngineConfigurationChangeNotification")
}
