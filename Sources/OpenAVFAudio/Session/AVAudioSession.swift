// AVAudioSession and AVAudioApplication: the calls porters' code makes before recording or playing,
// which succeed here (a Linux desktop has no session to negotiate and no permission to ask); the values
// they report are the server's where it has them.
import Foundation
import Locking
import RecorderKit

/// The audio session, as on iOS: category, mode and activation are kept and reported; nothing else
/// changes (the server decides routing). Every member may be used from any thread.
open class AVAudioSession: NSObject, @unchecked Sendable {
    // @unchecked Sendable: every mutable value is behind `state`'s lock.
    public struct Category: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let ambient = Category(rawValue: "AVAudioSessionCategoryAmbient")
        public static let soloAmbient = Category(rawValue: "AVAudioSessionCategorySoloAmbient")
        public static let playback = Category(rawValue: "AVAudioSessionCategoryPlayback")
        public static let record = Category(rawValue: "AVAudioSessionCategoryRecord")
        public static let playAndRecord = Category(rawValue: "AVAudioSessionCategoryPlayAndRecord")
        public static let multiRoute = Category(rawValue: "AVAudioSessionCategoryMultiRoute")
    }

    public struct Mode: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let `default` = Mode(rawValue: "AVAudioSessionModeDefault")
        public static let voiceChat = Mode(rawValue: "AVAudioSessionModeVoiceChat")
        public static let gameChat = Mode(rawValue: "AVAudioSessionModeGameChat")
        public static let videoRecording = Mode(rawValue: "AVAudioSessionModeVideoRecording")
        public static let measurement = Mode(rawValue: "AVAudioSessionModeMeasurement")
        public static let moviePlayback = Mode(rawValue: "AVAudioSessionModeMoviePlayback")
        public static let videoChat = Mode(rawValue: "AVAudioSessionModeVideoChat")
        public static let spokenAudio = Mode(rawValue: "AVAudioSessionModeSpokenAudio")
        public static let voicePrompt = Mode(rawValue: "AVAudioSessionModeVoicePrompt")
    }

    public struct CategoryOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let mixWithOthers = CategoryOptions(rawValue: 0x1)
        public static let duckOthers = CategoryOptions(rawValue: 0x2)
        public static let allowBluetooth = CategoryOptions(rawValue: 0x4)
        public static let defaultToSpeaker = CategoryOptions(rawValue: 0x8)
        public static let interruptSpokenAudioAndMixWithOthers = CategoryOptions(rawValue: 0x11)
        public static let allowBluetoothA2DP = CategoryOptions(rawValue: 0x20)
        public static let allowAirPlay = CategoryOptions(rawValue: 0x40)
        public static let overrideMutedMicrophoneInterruption = CategoryOptions(rawValue: 0x80)
    }

    public struct SetActiveOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    public enum RecordPermission: UInt, Sendable {
        case undetermined = 1970168948
        case denied = 1684369017
        case granted = 1735552628
    }

    private struct State {
        var category = Category.soloAmbient
        var mode = Mode.default
        var options: CategoryOptions = []
        var active = false
        var preferredSampleRate: Double = 0
        var preferredIOBufferDuration: TimeInterval = 0
    }

    private let state = Locked(State())
    private static let shared = AVAudioSession()

    /// The process's session.
    public class func sharedInstance() -> AVAudioSession { shared }

    public func setCategory(_ category: Category) throws { state.withLock { $0.category = category } }
    public func setCategory(_ category: Category, options: CategoryOptions = []) throws {
        state.withLock {
            $0.category = category
            $0.options = options
        }
    }
    public func setCategory(_ category: Category, mode: Mode, options: CategoryOptions = []) throws {
        state.withLock {
            $0.category = category
            $0.mode = mode
            $0.options = options
        }
    }
    public func setMode(_ mode: Mode) throws { state.withLock { $0.mode = mode } }
    public func setActive(_ active: Bool, options: SetActiveOptions = []) throws { state.withLock { $0.active = active } }

    /// The categories a session may be set to: all six of iOS's (each is kept and reported; none changes
    /// routing here).
    public var availableCategories: [Category] { [.ambient, .soloAmbient, .playback, .record, .playAndRecord, .multiRoute] }
    /// The modes a session may be set to: all of iOS's.
    public var availableModes: [Mode] {
        [.default, .voiceChat, .gameChat, .videoRecording, .measurement, .moviePlayback, .videoChat, .spokenAudio, .voicePrompt]
    }

    public var category: Category { state.withLock { $0.category } }
    public var mode: Mode { state.withLock { $0.mode } }
    public var categoryOptions: CategoryOptions { state.withLock { $0.options } }

    /// Granted: a desktop asks no permission to record.
    public var recordPermission: RecordPermission { .granted }
    /// Calls `response` with true (on the main queue).
    public func requestRecordPermission(_ response: @escaping @Sendable (Bool) -> Void) {
        DispatchQueue.main.async { response(true) }
    }

    /// True: the form Swift gives the completion-handler call on Apple's systems (`await`ed from any task).
    public func requestRecordPermission() async -> Bool { true }

    /// Whether the server has a source to record (false if it cannot be reached).
    public var isInputAvailable: Bool { !((try? Recorder.sources()) ?? []).isEmpty }

    public func setPreferredSampleRate(_ sampleRate: Double) throws { state.withLock { $0.preferredSampleRate = sampleRate } }
    public var preferredSampleRate: Double { state.withLock { $0.preferredSampleRate } }
    public func setPreferredIOBufferDuration(_ duration: TimeInterval) throws {
        state.withLock { $0.preferredIOBufferDuration = duration }
    }
    public var preferredIOBufferDuration: TimeInterval { state.withLock { $0.preferredIOBufferDuration } }

    /// The default source's rate (44 100 if the server cannot be reached).
    public var sampleRate: Double {
        let sources = (try? Recorder.sources()) ?? []
        return Double((sources.first(where: \.isDefault) ?? sources.first)?.sampleRate ?? 44_100)
    }
    /// The buffers' duration: 0.1 s, the recorder's and the player's default.
    public var ioBufferDuration: TimeInterval { 0.1 }
    /// The default source's channels (1 if the server cannot be reached).
    public var inputNumberOfChannels: Int {
        let sources = (try? Recorder.sources()) ?? []
        return (sources.first(where: \.isDefault) ?? sources.first)?.channelCount ?? 1
    }
    /// The default sink's channels (2 if the server cannot be reached).
    public var outputNumberOfChannels: Int {
        let sinks = (try? Player.sinks()) ?? []
        return (sinks.first(where: \.isDefault) ?? sinks.first)?.channelCount ?? 2
    }
    /// The default sink's volume as its volume control shows it, 0 to 1 as iOS reports its slider (the
    /// server's 50 % is 0.5; amplification above 100 % reads as 1; a muted sink as 0); 1 if the server cannot be reached. Read when asked (no key-value
    /// observation here: poll it).
    public var outputVolume: Float {
        let sinks = (try? Player.sinks()) ?? []
        guard let sink = sinks.first(where: \.isDefault) ?? sinks.first else { return 1 }
        return sink.isMuted ? 0 : min(1, max(0, sink.volume))
    }
}

/// The application's audio side (iOS 17): record permission, granted.
open class AVAudioApplication: NSObject, @unchecked Sendable {
    // @unchecked Sendable: no state.
    public enum RecordPermission: Int, Sendable {
        case undetermined = 1970168948
        case denied = 1684369017
        case granted = 1735552628
    }

    private static let instance = AVAudioApplication()
    public class var shared: AVAudioApplication { instance }

    /// Granted: a desktop asks no permission to record.
    public var recordPermission: RecordPermission { .granted }

    /// Calls `response` with true (on the main queue).
    public class func requestRecordPermission(completionHandler response: @escaping @Sendable (Bool) -> Void) {
        DispatchQueue.main.async { response(true) }
    }

    /// True: the `async` form iOS 17 code awaits (`if await AVAudioApplication.requestRecordPermission()`).
    public class func requestRecordPermission() async -> Bool { true }
}
