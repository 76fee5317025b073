// An Audio Unit inside an AUGraph, over a node of RecorderKit's playback graph: the output (I/O or generic
// output: the graph's output), the file player (a GraphPlayer playing regions of Audio File Services' files)
// and the multichannel mixer (a GraphMixer whose input buses' volume, pan and enable are the parameters).
// Its properties, parameters and reset, as Audio Unit Services' calls reach them.
import Foundation
import Locking
import RecorderKit

/// One unit of an AUGraph. Every field is read and written under `lock`, which is the playback graph's own
/// (recursive) lock: a render pass holds it while it calls a render callback, so a callback may call any
/// Audio Unit or AUGraph call, and one lock orders everything (the graph's, then a node's).
final class GraphUnit: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is under `lock` (the graph's), as said above; `node` and
    // `description` are fixed.
    enum Kind {
        /// An I/O unit (RemoteIO, HAL, default or system output, voice processing): the server's sink.
        case hardwareOutput
        /// The generic output: rendered by AudioUnitRender on the program's thread.
        case genericOutput
        case filePlayer
        case mixer
        /// Speed and pitch apart (NewTimePitch, TimePitch): rate 1/32…32, pitch ±2 400 cents.
        case timePitch
        /// Time-domain stretching (AUiPodTimeOther): its rate only, 1/32…32, the pitch kept.
        case timeStretch
        /// Speed with pitch (Varispeed): rate 0.25…4, or in cents ±2 400.
        case varispeed
    }

    /// The units an AUGraph can hold here, by subtype.
    static func kind(of description: AudioComponentDescription) -> Kind? {
        switch (description.componentType, description.componentSubType) {
        case (kAudioUnitType_Output, kAudioUnitSubType_GenericOutput): .genericOutput
        case (kAudioUnitType_Output, kAudioUnitSubType_RemoteIO), (kAudioUnitType_Output, kAudioUnitSubType_HALOutput),
             (kAudioUnitType_Output, kAudioUnitSubType_DefaultOutput), (kAudioUnitType_Output, kAudioUnitSubType_SystemOutput),
             (kAudioUnitType_Output, kAudioUnitSubType_VoiceProcessingIO): .hardwareOutput
        case (kAudioUnitType_Generator, kAudioUnitSubType_AudioFilePlayer): .filePlayer
        case (kAudioUnitType_Mixer, kAudioUnitSubType_MultiChannelMixer): .mixer
        case (kAudioUnitType_FormatConverter, kAudioUnitSubType_NewTimePitch), (kAudioUnitType_FormatConverter, kAudioUnitSubType_TimePitch): .timePitch
        case (kAudioUnitType_FormatConverter, kAudioUnitSubType_AUiPodTimeOther): .timeStretch
        case (kAudioUnitType_FormatConverter, kAudioUnitSubType_Varispeed): .varispeed
        default: nil
        }
    }

    let description: AudioComponentDescription
    let kind: Kind
    let node: GraphNode
    let lock: PosixMutex
    /// The graph the unit belongs to (which made it and outlives its use).
    weak var owner: AUGraphObject?
    /// Its handle in the unit registry.
    var handle: AudioUnit?
    var isInitialized = false

    /// Stream formats set by the program, by scope and element (the others: `defaultFormat`).
    private var formats: [FormatKey: AudioStreamBasicDescription] = [:]
    private struct FormatKey: Hashable {
        let scope: AudioUnitScope
        let element: AudioUnitElement
    }
    var maximumFrames: UInt32 = 4_096

    // The mixer's buses (Apple's default: 8) and parameters, the file player's files and regions.
    private(set) var busCount = 8
    private var busVolume: [Int: Float] = [:]
    private var busPan: [Int: Float] = [:]
    private var busEnabled: [Int: Bool] = [:]
    private var files: [UInt: GraphFile] = [:]
    private var startTime: AudioTimeStamp?

    init(description: AudioComponentDescription, kind: Kind, node: GraphNode, lock: PosixMutex) {
        self.description = description
        self.kind = kind
        self.node = node
        self.lock = lock
        if kind != .mixer { busCount = kind == .filePlayer ? 0 : 1 }
    }

    // MARK: Formats

    /// Float32, one buffer per channel, stereo, at `rate`: Apple's canonical format for units.
    static func canonical(rate: Double, channels: UInt32 = 2) -> AudioStreamBasicDescription {
        IOUnit.packed(rate: rate, channels: channels, bits: 32, float: true, bigEndian: false, interleaved: false)
    }

    /// The format of `scope`'s `element`: the program's, else the canonical one at `defaultRate`.
    func format(_ scope: AudioUnitScope, _ element: AudioUnitElement, defaultRate: Double) -> AudioStreamBasicDescription {
        lock.withLock { formats[FormatKey(scope: scope, element: element)] ?? Self.canonical(rate: defaultRate) }
    }

    /// The format set by the program for `scope`'s `element`, if any.
    func setFormat(_ scope: AudioUnitScope, _ element: AudioUnitElement) -> AudioStreamBasicDescription? {
        lock.withLock { formats[FormatKey(scope: scope, element: element)] }
    }

    /// Whether the unit has `element` in `scope`.
    func hasElement(_ scope: AudioUnitScope, _ element: AudioUnitElement) -> Bool {
        switch scope {
        case kAudioUnitScope_Global: element == 0
        case kAudioUnitScope_Input: Int(element) < lock.withLock { busCount }
        case kAudioUnitScope_Output: element == 0
        default: false
        }
    }

    // MARK: Properties

    /// A property's size and whether it can be set; nil for one the unit does not have.
    func propertyInfo(_ id: AudioUnitPropertyID, _ scope: AudioUnitScope, _ element: AudioUnitElement) -> (size: Int, writable: Bool)? {
        switch id {
        case kAudioUnitProperty_StreamFormat:
            guard scope != kAudioUnitScope_Global, hasElement(scope, element) else { return nil }
            return (MemoryLayout<AudioStreamBasicDescription>.size, true)
        case kAudioUnitProperty_SampleRate:
            guard scope != kAudioUnitScope_Global, hasElement(scope, element) else { return nil }
            return (8, true)
        case kAudioUnitProperty_ElementCount: return (4, kind == .mixer && scope == kAudioUnitScope_Input)
        case kAudioUnitProperty_MaximumFramesPerSlice: return (4, true)
        case kAudioUnitProperty_Latency: return (8, false)
        case kAudioUnitProperty_SetRenderCallback:
            guard scope == kAudioUnitScope_Input, hasElement(scope, element) else { return nil }
            return (MemoryLayout<AURenderCallbackStruct>.size, true)
        case kAudioOutputUnitProperty_IsRunning where kind == .hardwareOutput || kind == .genericOutput: return (4, false)
        case kAudioUnitProperty_ScheduledFileIDs where kind == .filePlayer: return (lock.withLock { files.count } * MemoryLayout<AudioFileID>.size, true)
        case kAudioUnitProperty_ScheduledFileRegion where kind == .filePlayer: return (MemoryLayout<ScheduledAudioFileRegion>.size, true)
        case kAudioUnitProperty_ScheduledFilePrime where kind == .filePlayer: return (4, true)
        case kAudioUnitProperty_ScheduleStartTimeStamp where kind == .filePlayer: return (MemoryLayout<AudioTimeStamp>.size, true)
        case kAudioUnitProperty_CurrentPlayTime where kind == .filePlayer: return (MemoryLayout<AudioTimeStamp>.size, false)
        default: return nil
        }
    }

    /// Reads a property into `data` (whose room, `size`, was checked against `propertyInfo`).
    func getProperty(_ id: AudioUnitPropertyID, _ scope: AudioUnitScope, _ element: AudioUnitElement, _ data: UnsafeMutableRawPointer,
                     _ size: inout UInt32) -> OSStatus {
        lock.withLock {
            let rate = Double(owner?.graph.sampleRate ?? 44_100)
            switch id {
            case kAudioUnitProperty_StreamFormat: data.storeBytes(of: format(scope, element, defaultRate: rate), as: AudioStreamBasicDescription.self)
            case kAudioUnitProperty_SampleRate: data.storeBytes(of: format(scope, element, defaultRate: rate).mSampleRate, as: Double.self)
            case kAudioUnitProperty_ElementCount:
                data.storeBytes(of: UInt32(scope == kAudioUnitScope_Input ? busCount : scope == kAudioUnitScope_Output ? 1 : 1), as: UInt32.self)
            case kAudioUnitProperty_MaximumFramesPerSlice: data.storeBytes(of: maximumFrames, as: UInt32.self)
            case kAudioUnitProperty_Latency: data.storeBytes(of: 0.0, as: Double.self)
            case kAudioUnitProperty_SetRenderCallback:
                let callback = owner?.callback(into: self, bus: Int(element)) ?? AURenderCallbackStruct(inputProc: nil, inputProcRefCon: nil)
                data.storeBytes(of: callback, as: AURenderCallbackStruct.self)
            case kAudioOutputUnitProperty_IsRunning: data.storeBytes(of: UInt32(owner?.isRunning == true ? 1 : 0), as: UInt32.self)
            case kAudioUnitProperty_ScheduledFileIDs:
                let ids = files.keys.sorted()
                let room = Int(size) / MemoryLayout<AudioFileID>.size
                for (index, id) in ids.prefix(room).enumerated() {
                    data.storeBytes(of: OpaquePointer(bitPattern: id), toByteOffset: index * MemoryLayout<AudioFileID>.size, as: AudioFileID?.self)
                }
                size = UInt32(min(room, ids.count) * MemoryLayout<AudioFileID>.size)
                return noErr
            case kAudioUnitProperty_ScheduledFilePrime: data.storeBytes(of: UInt32(0), as: UInt32.self)
            case kAudioUnitProperty_ScheduleStartTimeStamp:
                data.storeBytes(of: startTime ?? AudioTimeStamp(), as: AudioTimeStamp.self)
            case kAudioUnitProperty_CurrentPlayTime:
                var time = AudioTimeStamp()
                time.mSampleTime = (node as? GraphPlayer)?.playerTime.map(Double.init) ?? -1
                time.mFlags = .sampleTimeValid
                data.storeBytes(of: time, as: AudioTimeStamp.self)
            default: return kAudioUnitErr_InvalidProperty
            }
            size = UInt32(propertyInfo(id, scope, element)?.size ?? 0)
            return noErr
        }
    }

    /// Sets a property from `data` (of `size` bytes, checked against `propertyInfo`).
    func setProperty(_ id: AudioUnitPropertyID, _ scope: AudioUnitScope, _ element: AudioUnitElement, _ data: UnsafeRawPointer,
                     _ size: UInt32) -> OSStatus {
        // Files are opened without the lock (the render thread needs it; an open may wait on the disk).
        if id == kAudioUnitProperty_ScheduledFileIDs { return setFiles(data, count: Int(size) / MemoryLayout<AudioFileID>.size) }
        return lock.withLock { () -> OSStatus in
            switch id {
            case kAudioUnitProperty_StreamFormat, kAudioUnitProperty_SampleRate:
                guard !isInitialized else { return kAudioUnitErr_Initialized }
                let key = FormatKey(scope: scope, element: element)
                let current = formats[key] ?? Self.canonical(rate: Double(owner?.graph.sampleRate ?? 44_100))
                guard let format = changedFormat(current, id, data) else { return kAudioUnitErr_FormatNotSupported }
                formats[key] = format
            case kAudioUnitProperty_ElementCount:
                guard kind == .mixer, scope == kAudioUnitScope_Input else { return kAudioUnitErr_PropertyNotWritable }
                guard !isInitialized else { return kAudioUnitErr_Initialized }
                let count = data.load(as: UInt32.self)
                guard (1...4_096).contains(count) else { return kAudioUnitErr_InvalidPropertyValue }
                busCount = Int(count)
            case kAudioUnitProperty_MaximumFramesPerSlice:
                let frames = data.load(as: UInt32.self)
                guard (1...1_048_576).contains(frames) else { return kAudioUnitErr_InvalidPropertyValue }
                maximumFrames = frames
            case kAudioUnitProperty_SetRenderCallback:
                guard let owner else { return kAUGraphErr_InvalidAudioUnit }
                return owner.setCallback(data.load(as: AURenderCallbackStruct.self), into: self, bus: Int(element))
            case kAudioUnitProperty_ScheduledFileRegion: return schedule(data.load(as: ScheduledAudioFileRegion.self))
            case kAudioUnitProperty_ScheduledFilePrime: break  // files are read as they play: nothing to prime
            case kAudioUnitProperty_ScheduleStartTimeStamp: return start(at: data.load(as: AudioTimeStamp.self))
            default: return kAudioUnitErr_PropertyNotWritable
            }
            return noErr
        }
    }

    // MARK: The file player

    /// The files regions may be scheduled from: each must be open in Audio File Services with a path
    /// libsndfile reads (a file opened through callbacks has none).
    private func setFiles(_ data: UnsafeRawPointer, count: Int) -> OSStatus {
        guard kind == .filePlayer else { return kAudioUnitErr_InvalidProperty }
        let known = lock.withLock { files }
        var opened: [UInt: GraphFile] = [:]
        for index in 0..<count {
            guard let id = data.load(fromByteOffset: index * MemoryLayout<AudioFileID>.size, as: AudioFileID?.self),
                  let file = FileRegistry.find(id) else { return kAudio_ParamError }
            let key = UInt(bitPattern: id)
            if let known = known[key] {
                opened[key] = known
                continue
            }
            do throws(RecorderError) {
                opened[key] = try GraphFile(path: file.path)
            } catch {
                QueueRegistry.noteFailure("the file player cannot read \(file.path.isEmpty ? "a file opened through callbacks" : file.path): "
                    + "\(error.message)")
                return kAudioUnitErr_InvalidFile
            }
        }
        lock.withLock { files = opened }
        return noErr
    }

    /// Setting no file IDs (a null pointer): the player keeps none.
    func clearFiles() -> OSStatus {
        lock.withLock { files.removeAll() }
        return noErr
    }

    /// Schedules a region: `mFramesToPlay` frames from `mStartFrame` (clamped to the file), `mLoopCount`
    /// more times after the first (at most 65 535), at the player's sample time `mTimeStamp` (nil or negative: after what
    /// is scheduled). Its completion runs, with noErr, once its last frame has been rendered (or the
    /// unit is reset).
    private func schedule(_ region: ScheduledAudioFileRegion) -> OSStatus {
        guard let player = node as? GraphPlayer else { return kAudioUnitErr_InvalidProperty }
        guard let file = files[UInt(bitPattern: region.mAudioFile)] else {
            QueueRegistry.noteFailure("the file player was given a region of a file not in its kAudioUnitProperty_ScheduledFileIDs: "
                + "set the file IDs first")
            return kAudioUnitErr_InvalidPropertyValue
        }
        let time: GraphScheduleTime? = region.mTimeStamp.mFlags.contains(.sampleTimeValid) && region.mTimeStamp.mSampleTime >= 0
            && region.mTimeStamp.mSampleTime.isFinite ? .player(Int64(min(region.mTimeStamp.mSampleTime, 1e15))) : nil
        let frames = region.mFramesToPlay == UInt32.max ? nil : Int64(region.mFramesToPlay)
        let plays = Int(min(region.mLoopCount, 65_535)) + 1
        let completion = RegionCompletion(region)
        let start = max(0, region.mStartFrame)
        for play in 0..<plays {
            if play == plays - 1 {
                player.schedule(file, from: start, frames: frames, at: play == 0 ? time : nil) { completion.run() }
            } else {
                player.schedule(file, from: start, frames: frames, at: play == 0 ? time : nil)
            }
        }
        return noErr
    }

    /// Starts the player at `time`: a sample time of −1 (or none valid) at the next render, else at that
    /// graph sample time (a host time through the stream's clock).
    private func start(at time: AudioTimeStamp) -> OSStatus {
        guard let player = node as? GraphPlayer else { return kAudioUnitErr_InvalidProperty }
        startTime = time
        if time.mFlags.contains(.sampleTimeValid), time.mSampleTime >= 0, time.mSampleTime.isFinite {
            player.play(at: Int64(min(time.mSampleTime, 1e15)))
        } else if time.mFlags.contains(.hostTimeValid), let sample = owner?.graph.sampleTime(forHostTime: time.mHostTime) {
            player.play(at: sample)
        } else {
            player.play()
        }
        return noErr
    }

    /// AudioUnitReset: the file player forgets its regions and stops (their completions run); the others
    /// have no state to clear.
    func reset() {
        guard let player = node as? GraphPlayer else { return }
        lock.withLock { startTime = nil }
        player.stop()
    }

    // MARK: The mixer

    /// Sets a parameter: the mixer's input volume (0…1), enable (0 or 1) and pan (−1…1) by input bus, and
    /// its output volume (0…1). Out-of-range values are clamped; a NaN is refused.
    func setParameter(_ id: AudioUnitParameterID, _ scope: AudioUnitScope, _ element: AudioUnitElement, _ value: Float) -> OSStatus {
        if kind == .timePitch || kind == .timeStretch || kind == .varispeed { return setTimeParameter(id, scope, element, value) }
        return lock.withLock { () -> OSStatus in
            guard kind == .mixer, let mixer = node as? GraphMixer else { return kAudioUnitErr_InvalidParameter }
            guard value.isFinite else { return kAudioUnitErr_InvalidParameterValue }
            let bus = Int(element)
            switch (scope, id) {
            case (kAudioUnitScope_Output, kMultiChannelMixerParam_Volume) where element == 0: mixer.outputVolume = min(1, max(0, value))
            case (kAudioUnitScope_Input, kMultiChannelMixerParam_Volume) where bus < busCount: busVolume[bus] = min(1, max(0, value))
            case (kAudioUnitScope_Input, kMultiChannelMixerParam_Pan) where bus < busCount: busPan[bus] = min(1, max(-1, value))
            case (kAudioUnitScope_Input, kMultiChannelMixerParam_Enable) where bus < busCount: busEnabled[bus] = value != 0
            case (kAudioUnitScope_Input, _) where bus >= busCount, (kAudioUnitScope_Output, _) where element != 0: return kAudioUnitErr_InvalidElement
            default: return kAudioUnitErr_InvalidParameter
            }
            if scope == kAudioUnitScope_Input { applyBus(bus) }
            return noErr
        }
    }

    /// Reads a parameter (as `setParameter` sets them; the defaults: volume 1, enabled, pan 0).
    func getParameter(_ id: AudioUnitParameterID, _ scope: AudioUnitScope, _ element: AudioUnitElement) -> (OSStatus, Float) {
        if kind == .timePitch || kind == .timeStretch || kind == .varispeed { return timeParameter(id, scope, element) }
        return lock.withLock { () -> (OSStatus, Float) in
            guard kind == .mixer, let mixer = node as? GraphMixer else { return (kAudioUnitErr_InvalidParameter, 0) }
            let bus = Int(element)
            switch (scope, id) {
            case (kAudioUnitScope_Output, kMultiChannelMixerParam_Volume) where element == 0: return (noErr, mixer.outputVolume)
            case (kAudioUnitScope_Input, kMultiChannelMixerParam_Volume) where bus < busCount: return (noErr, busVolume[bus] ?? 1)
            case (kAudioUnitScope_Input, kMultiChannelMixerParam_Pan) where bus < busCount: return (noErr, busPan[bus] ?? 0)
            case (kAudioUnitScope_Input, kMultiChannelMixerParam_Enable) where bus < busCount: return (noErr, busEnabled[bus] ?? true ? 1 : 0)
            case (kAudioUnitScope_Input, _) where bus >= busCount, (kAudioUnitScope_Output, _) where element != 0:
                return (kAudioUnitErr_InvalidElement, 0)
            default: return (kAudioUnitErr_InvalidParameter, 0)
            }
        }
    }

    // MARK: The time units

    /// Sets a time unit's parameter, in the global scope: NewTimePitch's rate (1/32…32) and pitch (cents,
    /// ±2 400), AUiPodTimeOther's rate, Varispeed's playback rate (0.25…4) or cents (±2 400: the rate
    /// 2^(cents/1 200)). Clamped as Apple's ranges; a NaN or infinity is refused.
    private func setTimeParameter(_ id: AudioUnitParameterID, _ scope: AudioUnitScope, _ element: AudioUnitElement, _ value: Float) -> OSStatus {
        guard scope == kAudioUnitScope_Global, element == 0 else { return kAudioUnitErr_InvalidScope }
        guard value.isFinite else { return kAudioUnitErr_InvalidParameterValue }
        switch (kind, id) {
        case (.timePitch, kNewTimePitchParam_Rate), (.timeStretch, kNewTimePitchParam_Rate): (node as? GraphTimePitch)?.rate = Double(value)
        case (.timePitch, kNewTimePitchParam_Pitch): (node as? GraphTimePitch)?.pitch = Double(value)
        case (.varispeed, kVarispeedParam_PlaybackRate): (node as? GraphVarispeed)?.rate = Double(value)
        case (.varispeed, kVarispeedParam_PlaybackCents): (node as? GraphVarispeed)?.rate = pow(2, Double(min(2_400, max(-2_400, value))) / 1_200)
        default: return kAudioUnitErr_InvalidParameter
        }
        return noErr
    }

    private func timeParameter(_ id: AudioUnitParameterID, _ scope: AudioUnitScope, _ element: AudioUnitElement) -> (OSStatus, Float) {
        guard scope == kAudioUnitScope_Global, element == 0 else { return (kAudioUnitErr_InvalidScope, 0) }
        switch (kind, id) {
        case (.timePitch, kNewTimePitchParam_Rate), (.timeStretch, kNewTimePitchParam_Rate): return (noErr, Float((node as? GraphTimePitch)?.rate ?? 1))
        case (.timePitch, kNewTimePitchParam_Pitch): return (noErr, Float((node as? GraphTimePitch)?.pitch ?? 0))
        case (.varispeed, kVarispeedParam_PlaybackRate): return (noErr, Float((node as? GraphVarispeed)?.rate ?? 1))
        case (.varispeed, kVarispeedParam_PlaybackCents): return (noErr, Float(1_200 * log2((node as? GraphVarispeed)?.rate ?? 1)))
        default: return (kAudioUnitErr_InvalidParameter, 0)
        }
    }

    /// Gives what is connected into mixer bus `bus` that bus's volume (zero while disabled) and pan: the
    /// graph mixes each source at its node's volume and pan.
    func applyBus(_ bus: Int) {
        lock.withLock {
            guard kind == .mixer, let graph = owner?.graph, let source = graph.source(into: node, bus: bus) else { return }
            source.volume = busEnabled[bus] ?? true ? busVolume[bus] ?? 1 : 0
            source.pan = busPan[bus] ?? 0
        }
    }
}

/// A region's completion: the program's procedure called with a copy of the region as it was given.
private final class RegionCompletion: @unchecked Sendable {
    // @unchecked Sendable: the copy is this object's own, freed with it (after the player dropped its
    // handler); the program's procedure is called from the one thread that completes the region.
    private let region: UnsafeMutablePointer<ScheduledAudioFileRegion>

    init(_ given: ScheduledAudioFileRegion) {
        region = .allocate(capacity: 1)
        region.initialize(to: given)
    }

    deinit { region.deallocate() }

    func run() { region.pointee.mCompletionProc?(region.pointee.mCompletionProcUserData, region, noErr) }
}
