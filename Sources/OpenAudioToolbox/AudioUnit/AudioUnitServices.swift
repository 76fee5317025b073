// Audio Component and Audio Unit Services with Apple's signatures, for the output units: finding a
// component by its description, making and disposing of an instance, its properties (stream formats,
// enabling I/O, the render and input callbacks, the slice size), initializing, starting and stopping,
// and AudioUnitRender — over IOUnit; and the units of an AUGraph (GraphUnit), whose calls go to their
// graph. Any thread, a unit's own callbacks included.
import Foundation
import Locking

/// The components there are: the output units (RemoteIO, HAL output, default and system output, voice
/// processing, generic output), each a fixed handle.
enum Components {
    static let descriptions: [AudioComponentDescription] = [
        kAudioUnitSubType_RemoteIO, kAudioUnitSubType_HALOutput, kAudioUnitSubType_DefaultOutput, kAudioUnitSubType_SystemOutput,
        kAudioUnitSubType_VoiceProcessingIO, kAudioUnitSubType_GenericOutput,
    ].map { AudioComponentDescription(componentType: kAudioUnitType_Output, componentSubType: $0,
                                      componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0) }

    /// Handle n is the address n + 1 past a private base: never dereferenced, only compared.
    nonisolated(unsafe) private static let base = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
    // nonisolated(unsafe): allocated once and never written; its address is only compared.

    static func handle(_ index: Int) -> AudioComponent { AudioComponent(base + index + 1) }
    static func index(_ component: AudioComponent?) -> Int? {
        guard let component else { return nil }
        let offset = UnsafeMutableRawPointer(component) - base - 1
        return descriptions.indices.contains(offset) ? offset : nil
    }
}

/// The live units by handle, so that a call with a disposed or foreign handle is refused with a status.
enum UnitRegistry {
    private static let units = HandleRegistry<IOUnit>()
    /// The units of AUGraphs (made and disposed of by their graph).
    private static let graphUnits = HandleRegistry<GraphUnit>()

    static func addGraphUnit(_ unit: GraphUnit) -> AudioUnit { graphUnits.add(unit) }
    static func removeGraphUnit(_ handle: AudioUnit) -> GraphUnit? { graphUnits.remove(handle) }
    static func graphUnit(_ handle: AudioUnit) -> GraphUnit? { graphUnits.find(handle) }

    static func add(_ unit: IOUnit) -> AudioUnit {
        let handle = units.add(unit)
        unit.handle = handle
        return handle
    }

    static func find(_ handle: AudioUnit) -> IOUnit? { units.find(handle) }
    static func remove(_ handle: AudioUnit) -> IOUnit? { units.remove(handle) }

    /// Runs `body` with the unit of `handle` (its lock is taken by the unit's own calls); kAudio_ParamError
    /// for a handle that is none.
    static func with(_ handle: AudioUnit, _ body: (IOUnit) -> OSStatus) -> OSStatus { units.with(handle, body) }
}

// MARK: Components

/// The next component after `inComponent` (nil: the first) matching `inDesc` (0 in a field matches any);
/// nil when there is none. Only Apple's output units exist here.
public func AudioComponentFindNext(_ inComponent: AudioComponent?, _ inDesc: UnsafePointer<AudioComponentDescription>) -> AudioComponent? {
    let wanted = inDesc.pointee
    let start = inComponent.flatMap(Components.index).map { $0 + 1 } ?? 0
    guard start < Components.descriptions.count else { return nil }
    for index in start..<Components.descriptions.count {
        let description = Components.descriptions[index]
        if (wanted.componentType == 0 || wanted.componentType == description.componentType)
            && (wanted.componentSubType == 0 || wanted.componentSubType == description.componentSubType)
            && (wanted.componentManufacturer == 0 || wanted.componentManufacturer == description.componentManufacturer) {
            return Components.handle(index)
        }
    }
    return nil
}

/// How many components match `inDesc`.
public func AudioComponentCount(_ inDesc: UnsafePointer<AudioComponentDescription>) -> UInt32 {
    var count: UInt32 = 0
    var component = AudioComponentFindNext(nil, inDesc)
    while let found = component {
        count += 1
        component = AudioComponentFindNext(found, inDesc)
    }
    return count
}

/// The description of `inComponent`.
@discardableResult
public func AudioComponentGetDescription(_ inComponent: AudioComponent, _ outDesc: UnsafeMutablePointer<AudioComponentDescription>) -> OSStatus {
    guard let index = Components.index(inComponent) else { return kAudio_ParamError }
    outDesc.pointee = Components.descriptions[index]
    return noErr
}

/// A new unit of `inComponent` (it asks the server for its default sink's and source's formats).
@discardableResult
public func AudioComponentInstanceNew(_ inComponent: AudioComponent, _ outInstance: UnsafeMutablePointer<AudioComponentInstance?>) -> OSStatus {
    outInstance.pointee = nil
    guard let index = Components.index(inComponent) else { return kAudio_ParamError }
    outInstance.pointee = UnitRegistry.add(IOUnit(kind: Components.descriptions[index]))
    return noErr
}

/// Stops and disposes of the unit (from any thread, its own callbacks included); its handle is invalid after.
@discardableResult
public func AudioComponentInstanceDispose(_ inInstance: AudioComponentInstance) -> OSStatus {
    guard let unit = UnitRegistry.remove(inInstance) else {
        // A graph's unit is disposed of with its graph (AUGraphRemoveNode, AUGraphClose, DisposeAUGraph).
        return UnitRegistry.graphUnit(inInstance) == nil ? kAudio_ParamError : kAUGraphErr_CannotDoInCurrentContext
    }
    unit.uninitialize()
    return noErr
}

// MARK: Properties

/// The size of a property the unit has in `scope` and `element`, and whether it can be set; nil for none.
private func unitProperty(_ id: AudioUnitPropertyID, _ scope: AudioUnitScope, _ element: AudioUnitElement) -> (size: Int, writable: Bool)? {
    switch id {
    case kAudioUnitProperty_StreamFormat:
        guard element <= 1, scope == kAudioUnitScope_Input || scope == kAudioUnitScope_Output else { return nil }
        return (MemoryLayout<AudioStreamBasicDescription>.size, true)
    case kAudioUnitProperty_SampleRate:
        guard element <= 1, scope == kAudioUnitScope_Input || scope == kAudioUnitScope_Output else { return nil }
        return (8, true)
    case kAudioOutputUnitProperty_EnableIO:
        guard element <= 1 else { return nil }
        return (4, true)
    case kAudioOutputUnitProperty_HasIO:
        guard element <= 1 else { return nil }
        return (4, false)
    case kAudioUnitProperty_SetRenderCallback, kAudioOutputUnitProperty_SetInputCallback:
        return (MemoryLayout<AURenderCallbackStruct>.size, true)
    case kAudioUnitProperty_MaximumFramesPerSlice, kAudioUnitProperty_ShouldAllocateBuffer: return (4, true)
    case kAudioOutputUnitProperty_IsRunning: return (4, false)
    case kAudioUnitProperty_Latency: return (8, false)
    case kAudioUnitProperty_ElementCount: return (4, false)
    case kAUVoiceIOProperty_BypassVoiceProcessing, kAUVoiceIOProperty_VoiceProcessingEnableAGC, kAUVoiceIOProperty_MuteOutput: return (4, true)
    default: return nil
    }
}

/// A property's size and whether it can be set (`kAudioUnitErr_InvalidProperty` for one the unit does not
/// have, `kAudioUnitErr_InvalidElement` / `_InvalidScope` where it has it elsewhere).
@discardableResult
public func AudioUnitGetPropertyInfo(_ inUnit: AudioUnit, _ inID: AudioUnitPropertyID, _ inScope: AudioUnitScope, _ inElement: AudioUnitElement,
                                     _ outDataSize: UnsafeMutablePointer<UInt32>?, _ outWritable: UnsafeMutablePointer<DarwinBoolean>?) -> OSStatus {
    if let unit = UnitRegistry.graphUnit(inUnit) {
        guard let (size, writable) = unit.propertyInfo(inID, inScope, inElement) else { return kAudioUnitErr_InvalidProperty }
        outDataSize?.pointee = UInt32(size)
        outWritable?.pointee = DarwinBoolean(writable)
        return noErr
    }
    return UnitRegistry.with(inUnit) { _ in
        guard let (size, writable) = unitProperty(inID, inScope, inElement) else { return kAudioUnitErr_InvalidProperty }
        outDataSize?.pointee = UInt32(size)
        outWritable?.pointee = DarwinBoolean(writable)
        return noErr
    }
}

/// Reads a property: the stream formats (input scope of bus 0 and output scope of bus 1: the client's;
/// output scope of bus 0 and input scope of bus 1: the devices'), whether I/O is enabled or present, the
/// slice size, whether it runs, its latency.
@discardableResult
public func AudioUnitGetProperty(_ inUnit: AudioUnit, _ inID: AudioUnitPropertyID, _ inScope: AudioUnitScope, _ inElement: AudioUnitElement,
                                 _ outData: UnsafeMutableRawPointer, _ ioDataSize: UnsafeMutablePointer<UInt32>) -> OSStatus {
    if let unit = UnitRegistry.graphUnit(inUnit) {
        guard let (size, _) = unit.propertyInfo(inID, inScope, inElement) else { return kAudioUnitErr_InvalidProperty }
        guard Int(ioDataSize.pointee) >= size || inID == kAudioUnitProperty_ScheduledFileIDs else { return kAudioUnitErr_InvalidPropertyValue }
        return unit.getProperty(inID, inScope, inElement, outData, &ioDataSize.pointee)
    }
    return UnitRegistry.with(inUnit) { unit in
        guard let (size, _) = unitProperty(inID, inScope, inElement) else { return kAudioUnitErr_InvalidProperty }
        guard Int(ioDataSize.pointee) >= size else { return kAudioUnitErr_InvalidPropertyValue }
        unit.lock.withLock {
            let clientSide = (inScope == kAudioUnitScope_Input && inElement == 0) || (inScope == kAudioUnitScope_Output && inElement == 1)
            let format = clientSide ? (inElement == 0 ? unit.outputFormat : unit.inputFormat)
                                    : (inElement == 0 ? unit.deviceOutputFormat : unit.deviceInputFormat)
            switch inID {
            case kAudioUnitProperty_StreamFormat: outData.storeBytes(of: format, as: AudioStreamBasicDescription.self)
            case kAudioUnitProperty_SampleRate: outData.storeBytes(of: format.mSampleRate, as: Double.self)
            case kAudioOutputUnitProperty_EnableIO:
                outData.storeBytes(of: UInt32(inElement == 0 ? (unit.outputEnabled ? 1 : 0) : (unit.inputEnabled ? 1 : 0)), as: UInt32.self)
            case kAudioOutputUnitProperty_HasIO:
                outData.storeBytes(of: UInt32(inElement == 0 ? (unit.hasHardware ? 1 : 0) : (unit.canInput ? 1 : 0)), as: UInt32.self)
            case kAudioUnitProperty_SetRenderCallback, kAudioOutputUnitProperty_SetInputCallback:
                let callback = inID == kAudioUnitProperty_SetRenderCallback ? unit.renderCallback : unit.inputCallback
                outData.storeBytes(of: callback ?? AURenderCallbackStruct(inputProc: nil, inputProcRefCon: nil), as: AURenderCallbackStruct.self)
            case kAudioUnitProperty_MaximumFramesPerSlice: outData.storeBytes(of: unit.maximumFrames, as: UInt32.self)
            case kAudioUnitProperty_ShouldAllocateBuffer: outData.storeBytes(of: UInt32(unit.shouldAllocateBuffer ? 1 : 0), as: UInt32.self)
            case kAudioOutputUnitProperty_IsRunning: outData.storeBytes(of: UInt32(unit.running ? 1 : 0), as: UInt32.self)
            case kAudioUnitProperty_Latency: outData.storeBytes(of: 0.05, as: Double.self)  // one 50 ms stream buffer
            case kAudioUnitProperty_ElementCount: outData.storeBytes(of: UInt32(2), as: UInt32.self)
            default: outData.storeBytes(of: UInt32(0), as: UInt32.self)  // the voice processing switches: off
            }
        }
        ioDataSize.pointee = UInt32(size)
        return noErr
    }
}

/// Sets a property: the client's stream formats (before `AudioUnitInitialize`; linear PCM the converters
/// take), enabling output (bus 0) or input (bus 1), the render callback (what bus 0 plays) and the input
/// callback (told when bus 1 has frames for AudioUnitRender), the slice size, whether the unit allocates
/// input buffers. The voice processing switches are kept (the echo canceller is the server's).
@discardableResult
public func AudioUnitSetProperty(_ inUnit: AudioUnit, _ inID: AudioUnitPropertyID, _ inScope: AudioUnitScope, _ inElement: AudioUnitElement,
                                 _ inData: UnsafeRawPointer?, _ inDataSize: UInt32) -> OSStatus {
    if let unit = UnitRegistry.graphUnit(inUnit) {
        guard let (size, writable) = unit.propertyInfo(inID, inScope, inElement) else { return kAudioUnitErr_InvalidProperty }
        guard writable else { return kAudioUnitErr_PropertyNotWritable }
        let minimum = inID == kAudioUnitProperty_ScheduledFileIDs ? 0 : size
        guard Int(inDataSize) >= minimum else { return kAudioUnitErr_InvalidPropertyValue }
        guard let inData else { return inID == kAudioUnitProperty_ScheduledFileIDs ? unit.clearFiles() : kAudioUnitErr_InvalidPropertyValue }
        return unit.setProperty(inID, inScope, inElement, inData, inDataSize)
    }
    return UnitRegistry.with(inUnit) { unit in
        guard let (size, writable) = unitProperty(inID, inScope, inElement) else { return kAudioUnitErr_InvalidProperty }
        guard writable else { return kAudioUnitErr_PropertyNotWritable }
        guard let inData, Int(inDataSize) >= size else { return kAudioUnitErr_InvalidPropertyValue }
        return unit.lock.withLock { () -> OSStatus in
            switch inID {
            case kAudioUnitProperty_StreamFormat, kAudioUnitProperty_SampleRate:
                let clientSide = (inScope == kAudioUnitScope_Input && inElement == 0) || (inScope == kAudioUnitScope_Output && inElement == 1)
                guard clientSide else { return kAudioUnitErr_PropertyNotWritable }  // the devices' side is the server's
                guard !unit.initialized else { return kAudioUnitErr_Initialized }
                guard let format = changedFormat(inElement == 0 ? unit.outputFormat : unit.inputFormat, inID, inData) else {
                    return kAudioUnitErr_FormatNotSupported
                }
                if inElement == 0 { unit.outputFormat = format } else { unit.inputFormat = format }
            case kAudioOutputUnitProperty_EnableIO:
                guard !unit.initialized else { return kAudioUnitErr_Initialized }
                let on = inData.load(as: UInt32.self) != 0
                if inElement == 0 {
                    unit.outputEnabled = on
                } else {
                    guard unit.canInput || !on else { return kAudioUnitErr_InvalidElement }
                    unit.inputEnabled = on
                }
            case kAudioUnitProperty_SetRenderCallback:
                let callback = inData.load(as: AURenderCallbackStruct.self)
                unit.renderCallback = callback.inputProc == nil ? nil : callback
            case kAudioOutputUnitProperty_SetInputCallback:
                let callback = inData.load(as: AURenderCallbackStruct.self)
                unit.inputCallback = callback.inputProc == nil ? nil : callback
            case kAudioUnitProperty_MaximumFramesPerSlice:
                let frames = inData.load(as: UInt32.self)
                guard (1...1_048_576).contains(frames) else { return kAudioUnitErr_InvalidPropertyValue }
                unit.maximumFrames = frames
            case kAudioUnitProperty_ShouldAllocateBuffer: unit.shouldAllocateBuffer = inData.load(as: UInt32.self) != 0
            default: break  // the voice processing switches
            }
            return noErr
        }
    }
}

/// `current` with a StreamFormat or SampleRate property's new value; nil (and a line in
/// `OpenAudioToolboxLastErrorMessage()`) for a format the units do not take.
func changedFormat(_ current: AudioStreamBasicDescription, _ id: AudioUnitPropertyID, _ data: UnsafeRawPointer) -> AudioStreamBasicDescription? {
    var format = current
    if id == kAudioUnitProperty_SampleRate {
        format.mSampleRate = data.load(as: Double.self)
    } else {
        format = data.load(as: AudioStreamBasicDescription.self)
    }
    guard SampleCodec.accepts(format) else {
        QueueRegistry.noteFailure("cannot take the stream format (\(format.mSampleRate) Hz, \(format.mChannelsPerFrame) channels, "
            + "\(format.mBitsPerChannel) bits): give packed linear PCM of 1 to 32 channels at a whole rate of 1 to 384000 Hz")
        return nil
    }
    return format
}

// MARK: Running

/// Checks the formats (and, for voice processing, that the server has an echo-cancelling source).
@discardableResult
public func AudioUnitInitialize(_ inUnit: AudioUnit) -> OSStatus {
    // A graph's units are initialized with their graph (AUGraphInitialize).
    if UnitRegistry.graphUnit(inUnit) != nil { return noErr }
    return UnitRegistry.with(inUnit) { $0.initialize() }
}

/// Stops the unit and lets its formats be set again.
@discardableResult
public func AudioUnitUninitialize(_ inUnit: AudioUnit) -> OSStatus {
    if UnitRegistry.graphUnit(inUnit) != nil { return noErr }
    return UnitRegistry.with(inUnit) { unit in
        unit.uninitialize()
        return noErr
    }
}

/// Starts playing (bus 0: the render callback, from the server's default sink or PULSE_SINK's) and
/// capturing (bus 1, when enabled: the default source or PULSE_SOURCE's; a voice processing unit the
/// echo-cancelling source). `kAudioUnitErr_Uninitialized` before AudioUnitInitialize; a stream the server
/// refuses is `kAudioUnitErr_NoConnection` with a line in `OpenAudioToolboxLastErrorMessage()`.
@discardableResult
public func AudioOutputUnitStart(_ ci: AudioUnit) -> OSStatus {
    if let unit = UnitRegistry.graphUnit(ci) {
        // A graph's output unit starts its graph; the graph's other units are no output unit.
        guard unit.kind == .hardwareOutput || unit.kind == .genericOutput else { return kAudio_ParamError }
        return unit.owner?.start() ?? kAUGraphErr_InvalidAudioUnit
    }
    return UnitRegistry.with(ci) { $0.start() }
}

/// Stops playing and capturing (from any thread, the unit's own callbacks included).
@discardableResult
public func AudioOutputUnitStop(_ ci: AudioUnit) -> OSStatus {
    if let unit = UnitRegistry.graphUnit(ci) {
        guard unit.kind == .hardwareOutput || unit.kind == .genericOutput else { return kAudio_ParamError }
        unit.owner?.stop()
        return noErr
    }
    return UnitRegistry.with(ci) { unit in
        unit.stop()
        return noErr
    }
}

/// Bus 1: the captured frames not yet rendered, in the client's input format (into the unit's own
/// buffers when `ioData`'s mData are nil), silence for what has not been captured yet. Bus 0 of a generic
/// output: the render callback's frames. `kAudioUnitErr_TooManyFramesToProcess` past the slice size.
@discardableResult
public func AudioUnitRender(_ inUnit: AudioUnit, _ ioActionFlags: UnsafeMutablePointer<AudioUnitRenderActionFlags>?,
                            _ inTimeStamp: UnsafePointer<AudioTimeStamp>, _ inOutputBusNumber: UInt32, _ inNumberFrames: UInt32,
                            _ ioData: UnsafeMutablePointer<AudioBufferList>) -> OSStatus {
    if let unit = UnitRegistry.graphUnit(inUnit) {
        // A graph is pulled through its generic output, bus 0.
        guard unit.kind == .genericOutput, inOutputBusNumber == 0, let owner = unit.owner else { return kAudioUnitErr_CannotDoInCurrentContext }
        guard inNumberFrames <= unit.lock.withLock({ unit.maximumFrames }) else { return kAudioUnitErr_TooManyFramesToProcess }
        var time = inTimeStamp.pointee
        return owner.render(frames: Int(inNumberFrames), into: ioData, time: &time)
    }
    return UnitRegistry.with(inUnit) { unit in
        var flags = ioActionFlags?.pointee ?? []
        defer { ioActionFlags?.pointee = flags }
        switch inOutputBusNumber {
        case 1: return unit.renderInput(&flags, frames: Int(inNumberFrames), ioData)
        case 0 where !unit.hasHardware: return unit.renderOutput(&flags, inTimeStamp, frames: Int(inNumberFrames), ioData)
        default: return kAudioUnitErr_InvalidElement
        }
    }
}

/// Audio Unit parameters: the multichannel mixer's (in a graph) input volume, enable and pan by bus and
/// output volume, from the next render on (`inBufferOffsetInFrames` is not honoured within a slice); the
/// output units and the file player have none (`kAudioUnitErr_InvalidParameter`).
@discardableResult
public func AudioUnitSetParameter(_ inUnit: AudioUnit, _ inID: AudioUnitParameterID, _ inScope: AudioUnitScope, _ inElement: AudioUnitElement,
                                  _ inValue: AudioUnitParameterValue, _ inBufferOffsetInFrames: UInt32) -> OSStatus {
    if let unit = UnitRegistry.graphUnit(inUnit) { return unit.setParameter(inID, inScope, inElement, inValue) }
    return UnitRegistry.with(inUnit) { _ in kAudioUnitErr_InvalidParameter }
}

/// A parameter's value, as `AudioUnitSetParameter` sets them.
@discardableResult
public func AudioUnitGetParameter(_ inUnit: AudioUnit, _ inID: AudioUnitParameterID, _ inScope: AudioUnitScope, _ inElement: AudioUnitElement,
                                  _ outValue: UnsafeMutablePointer<AudioUnitParameterValue>) -> OSStatus {
    if let unit = UnitRegistry.graphUnit(inUnit) {
        let (status, value) = unit.getParameter(inID, inScope, inElement)
        if status == noErr { outValue.pointee = value }
        return status
    }
    return UnitRegistry.with(inUnit) { _ in kAudioUnitErr_InvalidParameter }
}

/// Clears a unit's state: a graph's file player forgets its regions and stops (their completions run);
/// the others have nothing to clear.
@discardableResult
public func AudioUnitReset(_ inUnit: AudioUnit, _ inScope: AudioUnitScope, _ inElement: AudioUnitElement) -> OSStatus {
    if let unit = UnitRegistry.graphUnit(inUnit) {
        unit.reset()
        return noErr
    }
    return UnitRegistry.with(inUnit) { _ in noErr }
}
