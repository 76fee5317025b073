// Audio queue properties (running state, format, level metering, device rate and channels) and playback
// parameters (volume, pan), with Apple's signatures, and property listeners.
import Foundation
import RecorderKit

/// The bytes property `inID` takes: fixed sizes, or one AudioQueueLevelMeterState per channel.
@discardableResult
public func AudioQueueGetPropertySize(_ inAQ: AudioQueueRef, _ inID: AudioQueuePropertyID,
                                      _ outDataSize: UnsafeMutablePointer<UInt32>) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    guard let size = propertySize(inID, queue) else { return kAudioQueueErr_InvalidProperty }
    outDataSize.pointee = UInt32(size)
    return noErr
}

private func propertySize(_ id: AudioQueuePropertyID, _ queue: QueueObject) -> Int? {
    switch id {
    case kAudioQueueProperty_IsRunning, kAudioQueueProperty_EnableLevelMetering,
         kAudioQueueDeviceProperty_NumberChannels, kAudioQueueProperty_MaximumOutputPacketSize,
         kAudioQueueProperty_EnableTimePitch, kAudioQueueProperty_TimePitchAlgorithm, kAudioQueueProperty_TimePitchBypass:
        MemoryLayout<UInt32>.size
    case kAudioQueueDeviceProperty_SampleRate: MemoryLayout<Double>.size
    case kAudioQueueProperty_CurrentDevice: MemoryLayout<CFString>.size
    case kAudioQueueProperty_StreamDescription: MemoryLayout<AudioStreamBasicDescription>.size
    case kAudioQueueProperty_CurrentLevelMeter, kAudioQueueProperty_CurrentLevelMeterDB:
        MemoryLayout<AudioQueueLevelMeterState>.stride * queue.layout.channelCount
    default: nil
    }
}

/// Reads a property into `outData`, of `ioDataSize` bytes (set to the bytes written). The level
/// meters fill as many channels' states as fit, at least one; while metering is off they read silence
/// (−160 dB, 0 linear).
@discardableResult
public func AudioQueueGetProperty(_ inAQ: AudioQueueRef, _ inID: AudioQueuePropertyID,
                                  _ outData: UnsafeMutableRawPointer,
                                  _ ioDataSize: UnsafeMutablePointer<UInt32>) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    guard let size = propertySize(inID, queue) else { return kAudioQueueErr_InvalidProperty }
    let room = Int(ioDataSize.pointee)
    switch inID {
    case kAudioQueueProperty_CurrentLevelMeter, kAudioQueueProperty_CurrentLevelMeterDB:
        let stride = MemoryLayout<AudioQueueLevelMeterState>.stride
        guard room >= stride else { return kAudioQueueErr_InvalidPropertySize }
        let count = min(room / stride, queue.layout.channelCount)
        let enabled = queue.state.withLock { $0.meteringEnabled }
        let levels = enabled ? (queue.isInput ? queue.inputLevels() : queue.outputLevels()) : []
        let states = outData.bindMemory(to: AudioQueueLevelMeterState.self, capacity: count)
        for channel in 0..<count {
            let level = levels.indices.contains(channel)
                ? levels[channel] : LevelMeterState(averagePower: LevelMeterState.silence, peakPower: LevelMeterState.silence)
            if inID == kAudioQueueProperty_CurrentLevelMeterDB {
                states[channel] = AudioQueueLevelMeterState(mAveragePower: level.averagePower, mPeakPower: level.peakPower)
            } else {
                states[channel] = AudioQueueLevelMeterState(mAveragePower: linear(level.averagePower),
                                                            mPeakPower: linear(level.peakPower))
            }
        }
        ioDataSize.pointee = UInt32(count * stride)
        return noErr
    default:
        guard room >= size else { return kAudioQueueErr_InvalidPropertySize }
    }
    switch inID {
    case kAudioQueueProperty_IsRunning:
        let running = queue.state.withLock { $0.run != .stopped }
        outData.storeBytes(of: UInt32(running ? 1 : 0), as: UInt32.self)
    case kAudioQueueProperty_EnableLevelMetering:
        outData.storeBytes(of: UInt32(queue.state.withLock { $0.meteringEnabled } ? 1 : 0), as: UInt32.self)
    case kAudioQueueDeviceProperty_NumberChannels:
        outData.storeBytes(of: UInt32(queue.layout.channelCount), as: UInt32.self)
    case kAudioQueueProperty_MaximumOutputPacketSize:
        outData.storeBytes(of: UInt32(queue.layout.bytesPerFrame), as: UInt32.self)
    case kAudioQueueDeviceProperty_SampleRate:
        outData.storeBytes(of: Double(queue.layout.sampleRate), as: Double.self)
    case kAudioQueueProperty_StreamDescription:
        outData.storeBytes(of: queue.description, as: AudioStreamBasicDescription.self)
    case kAudioQueueProperty_EnableTimePitch:
        outData.storeBytes(of: UInt32(queue.state.withLock { $0.timePitch.enabled } ? 1 : 0), as: UInt32.self)
    case kAudioQueueProperty_TimePitchAlgorithm:
        outData.storeBytes(of: queue.state.withLock { $0.timePitch.algorithm }, as: UInt32.self)
    case kAudioQueueProperty_TimePitchBypass:
        outData.storeBytes(of: UInt32(queue.state.withLock { $0.timePitch.bypass } ? 1 : 0), as: UInt32.self)
    case kAudioQueueProperty_CurrentDevice:
        // The caller's CFString variable (a String here), assigned: "" for the default device.
        outData.assumingMemoryBound(to: CFString.self).pointee = queue.state.withLock { $0.device } ?? ""
    default:
        return kAudioQueueErr_InvalidProperty
    }
    ioDataSize.pointee = UInt32(size)
    return noErr
}

/// dB (−160 for silence) as a linear amplitude 0…1.
private func linear(_ decibels: Float) -> Float {
    decibels <= LevelMeterState.silence ? 0 : Float(pow(10, Double(decibels) / 20))
}

/// Sets a property: kAudioQueueProperty_EnableLevelMetering (a UInt32, 0 or not),
/// kAudioQueueProperty_CurrentDevice (a CFString: a source's or sink's name), and for playback queues
/// kAudioQueueProperty_EnableTimePitch (before the first start, as Apple asks),
/// kAudioQueueProperty_TimePitchAlgorithm (spectral, time-domain or varispeed) and
/// kAudioQueueProperty_TimePitchBypass. A device or time-pitch changed after the first start answers
/// kAudioQueueErr_InvalidRunState; time-pitch on a recording queue kAudioQueueErr_InvalidPropertyValue; an unknown algorithm the same. Read-only properties answer
/// kAudioQueueErr_InvalidProperty.
@discardableResult
public func AudioQueueSetProperty(_ inAQ: AudioQueueRef, _ inID: AudioQueuePropertyID,
                                  _ inData: UnsafeRawPointer, _ inDataSize: UInt32) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    switch inID {
    case kAudioQueueProperty_EnableLevelMetering:
        guard inDataSize >= 4 else { return kAudioQueueErr_InvalidPropertySize }
        let enabled = inData.loadUnaligned(as: UInt32.self) != 0
        let player = queue.state.withLock { state -> Player? in
            state.meteringEnabled = enabled
            return state.player
        }
        player?.isMeteringEnabled = enabled
        return noErr
    case kAudioQueueProperty_CurrentDevice:
        // A CFString variable's address, as on Apple's systems: the device UID is a source's or sink's name
        // here (`Recorder.sources()`, `Player.sinks()`, `pactl list short sources`); "" for the default.
        guard Int(inDataSize) == MemoryLayout<CFString>.size else { return kAudioQueueErr_InvalidPropertySize }
        let name = inData.assumingMemoryBound(to: CFString.self).pointee
        let running = queue.state.withLock { state -> Bool in
            guard state.recorder == nil, state.player == nil else { return true }
            state.device = name.isEmpty ? nil : name
            return false
        }
        return running ? kAudioQueueErr_InvalidRunState : noErr
    case kAudioQueueProperty_EnableTimePitch, kAudioQueueProperty_TimePitchAlgorithm:
        guard inDataSize >= 4 else { return kAudioQueueErr_InvalidPropertySize }
        let value = inData.loadUnaligned(as: UInt32.self)
        let algorithms = [kAudioQueueTimePitchAlgorithm_Spectral, kAudioQueueTimePitchAlgorithm_TimeDomain,
                          kAudioQueueTimePitchAlgorithm_Varispeed]
        guard inID != kAudioQueueProperty_TimePitchAlgorithm || algorithms.contains(value) else {
            return kAudioQueueErr_InvalidPropertyValue
        }
        guard value == 0 || inID != kAudioQueueProperty_EnableTimePitch || !queue.isInput else {
            return kAudioQueueErr_InvalidPropertyValue
        }
        return queue.state.withLock { state -> OSStatus in
            guard state.player == nil, state.recorder == nil else { return kAudioQueueErr_InvalidRunState }
            if inID == kAudioQueueProperty_EnableTimePitch { state.timePitch.enabled = value != 0 } else { state.timePitch.algorithm = value }
            return noErr
        }
    case kAudioQueueProperty_TimePitchBypass:
        guard inDataSize >= 4 else { return kAudioQueueErr_InvalidPropertySize }
        let bypass = inData.loadUnaligned(as: UInt32.self) != 0
        queue.applyTimePitch { $0.bypass = bypass }
        return noErr
    default:
        return kAudioQueueErr_InvalidProperty
    }
}

/// A parameter's value: volume (0…1, 1 by default), pan (−1…1), the volume ramp time, play rate (1)
/// and pitch (0).
@discardableResult
public func AudioQueueGetParameter(_ inAQ: AudioQueueRef, _ inParamID: AudioQueueParameterID,
                                   _ outValue: UnsafeMutablePointer<AudioQueueParameterValue>) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    let value: Float? = queue.state.withLock { state in
        switch inParamID {
        case kAudioQueueParam_Volume: state.volume
        case kAudioQueueParam_Pan: state.pan
        case kAudioQueueParam_VolumeRampTime: state.volumeRampTime
        case kAudioQueueParam_PlayRate: state.timePitch.rate
        case kAudioQueueParam_Pitch: state.timePitch.pitch
        default: nil
        }
    }
    guard let value else { return kAudioQueueErr_InvalidParameter }
    outValue.pointee = value
    return noErr
}

/// Sets a playback parameter at once: volume (clamped to 0…1), pan (−1…1), the play rate (0.5…2) and
/// pitch (−2400…2400 cents), which act once kAudioQueueProperty_EnableTimePitch was set before the start
/// (the pitch with the spectral algorithm only, as Apple's); the ramp time is kept but a change is
/// immediate. A NaN is refused with kAudioQueueErr_InvalidParameter.
@discardableResult
public func AudioQueueSetParameter(_ inAQ: AudioQueueRef, _ inParamID: AudioQueueParameterID,
                                   _ inValue: AudioQueueParameterValue) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    guard inValue.isFinite else { return kAudioQueueErr_InvalidParameter }
    switch inParamID {
    case kAudioQueueParam_Volume:
        let volume = min(max(inValue, 0), 1)
        let player = queue.state.withLock { state -> Player? in
            state.volume = volume
            return state.player
        }
        player?.volume = volume
    case kAudioQueueParam_Pan:
        let pan = min(max(inValue, -1), 1)
        let player = queue.state.withLock { state -> Player? in
            state.pan = pan
            return state.player
        }
        player?.pan = pan
    case kAudioQueueParam_VolumeRampTime:
        queue.state.withLock { $0.volumeRampTime = max(0, inValue) }
    case kAudioQueueParam_PlayRate:
        queue.applyTimePitch { $0.rate = min(max(inValue, 0.5), 2) }
    case kAudioQueueParam_Pitch:
        queue.applyTimePitch { $0.pitch = min(max(inValue, -2_400), 2_400) }
    default:
        return kAudioQueueErr_InvalidParameter
    }
    return noErr
}

/// Calls `inProc` (where the queue's callbacks run) when property `inID` changes:
/// kAudioQueueProperty_IsRunning, as the queue starts and stops.
@discardableResult
public func AudioQueueAddPropertyListener(_ inAQ: AudioQueueRef, _ inID: AudioQueuePropertyID,
                                          _ inProc: AudioQueuePropertyListenerProc,
                                          _ inUserData: UnsafeMutableRawPointer?) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    guard inID == kAudioQueueProperty_IsRunning else { return kAudioQueueErr_InvalidProperty }
    queue.state.withLock { $0.listeners.append(.init(property: inID, proc: inProc, userData: inUserData)) }
    return noErr
}

/// Removes a listener added with the same property, procedure and user data.
@discardableResult
public func AudioQueueRemovePropertyListener(_ inAQ: AudioQueueRef, _ inID: AudioQueuePropertyID,
                                             _ inProc: AudioQueuePropertyListenerProc,
                                             _ inUserData: UnsafeMutableRawPointer?) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    let procAddress = unsafeBitCast(inProc, to: UnsafeRawPointer.self)
    let removed = queue.state.withLock { state -> Bool in
        guard let index = state.listeners.firstIndex(where: {
            $0.property == inID && $0.userData == inUserData
                && unsafeBitCast($0.proc, to: UnsafeRawPointer.self) == procAddress
        }) else { return false }
        state.listeners.remove(at: index)
        return true
    }
    return removed ? noErr : kAudioQueueErr_InvalidParameter
}
