// AUAudioUnit for the output units (RemoteIO, HAL output, default and system output, voice processing):
// Apple's version 3 API over the same I/O unit as Audio Unit Services' C calls — busses with AVAudioFormats,
// the input handler and output provider, the render block that pulls the input, starting the hardware.
import Foundation
import Locking
import OpenAudioToolbox

public typealias AUAudioUnitStatus = OSStatus
public typealias AUAudioFrameCount = UInt32
public typealias AUAudioChannelCount = UInt32

/// Supplies `frameCount` frames into `inputData` for bus `inputBusNumber` (an output unit's output provider).
public typealias AURenderPullInputBlock = (_ actionFlags: UnsafeMutablePointer<AudioUnitRenderActionFlags>, _ timestamp: UnsafePointer<AudioTimeStamp>,
                                           _ frameCount: AUAudioFrameCount, _ inputBusNumber: Int,
                                           _ inputData: UnsafeMutablePointer<AudioBufferList>) -> AUAudioUnitStatus
/// Renders `frameCount` frames of bus `outputBusNumber` into `outputData` (an I/O unit's bus 1: the input).
public typealias AURenderBlock = (_ actionFlags: UnsafeMutablePointer<AudioUnitRenderActionFlags>, _ timestamp: UnsafePointer<AudioTimeStamp>,
                                  _ frameCount: AUAudioFrameCount, _ outputBusNumber: Int, _ outputData: UnsafeMutablePointer<AudioBufferList>,
                                  _ pullInputBlock: AURenderPullInputBlock?) -> AUAudioUnitStatus
/// Told that `frameCount` frames of input can be rendered from bus `inputBusNumber` with the render block.
public typealias AUInputHandler = (_ actionFlags: UnsafeMutablePointer<AudioUnitRenderActionFlags>, _ timestamp: UnsafePointer<AudioTimeStamp>,
                                   _ frameCount: AUAudioFrameCount, _ inputBusNumber: Int) -> Void

/// One bus of a unit: its format (set before the render resources are allocated) and whether it is enabled.
open class AUAudioUnitBus: NSObject {
    private weak var owner: AUAudioUnit?
    private let clientSide: Bool
    private let element: Int
    /// The bus's index in its array.
    public let index: Int

    init(owner: AUAudioUnit, element: Int, clientSide: Bool, index: Int) {
        self.owner = owner
        self.element = element
        self.clientSide = clientSide
        self.index = index
        super.init()
    }

    /// The bus's format: the client's (bus 0 of the inputs, bus 1 of the outputs) or the device's.
    public var format: AVAudioFormat {
        guard let unit = owner?.unit else { return AVAudioEngine.defaultFormat }
        var description = unit.lock.withLock {
            clientSide ? (element == 0 ? unit.outputFormat : unit.inputFormat) : (element == 0 ? unit.deviceOutputFormat : unit.deviceInputFormat)
        }
        return AVAudioFormat(streamDescription: &description) ?? AVAudioEngine.defaultFormat
    }

    /// Sets the client side's format (linear PCM the converters take, at a whole rate the server plays).
    /// - Throws: an NSError: `kAudioUnitErr_PropertyNotWritable` for the device's side,
    ///   `kAudioUnitErr_Initialized` once the render resources are allocated, `kAudioUnitErr_FormatNotSupported`.
    public func setFormat(_ format: AVAudioFormat) throws {
        guard let owner else { return }
        guard clientSide else {
            throw statusError(kAudioUnitErr_PropertyNotWritable,
                "cannot set the device's side of bus \(element): the server's device chooses it; set the other side (the program's)")
        }
        let status = owner.setProperty(kAudioUnitProperty_StreamFormat, scope: element == 0 ? kAudioUnitScope_Input : kAudioUnitScope_Output,
                                       element: UInt32(element), format.streamDescription.pointee)
        guard status == noErr else {
            throw statusError(status, status == kAudioUnitErr_Initialized
                ? "cannot set the format of bus \(element) while the render resources are allocated: deallocateRenderResources() first"
                : "cannot set the format of bus \(element) to \(format): give linear PCM of 1 to 32 channels at a whole rate of 1 to 384000 Hz")
        }
    }

    /// Whether the bus carries audio (an I/O unit's bus 0 output, bus 1 input).
    public var isEnabled: Bool {
        get { element == 0 ? owner?.isOutputEnabled ?? false : owner?.isInputEnabled ?? false }
        set { if element == 0 { owner?.isOutputEnabled = newValue } else { owner?.isInputEnabled = newValue } }
    }
}

/// A unit's busses.
open class AUAudioUnitBusArray: NSObject {
    private let busses: [AUAudioUnitBus]
    init(_ busses: [AUAudioUnitBus]) {
        self.busses = busses
        super.init()
    }
    /// How many busses.
    public var count: Int { busses.count }
    /// Bus `index` (an index outside reads the last bus, never a trap).
    public subscript(index: Int) -> AUAudioUnitBus { busses[max(0, min(busses.count - 1, index))] }
}

/// An Audio Unit of version 3: the output units over the server (record and play), as Apple's I/O units
/// are driven: `inputBusses[0]` takes the program's output format, `outputBusses[1]` gives the input's;
/// `outputProvider` supplies what is played, `inputHandler` is told of captured frames, and the render
/// block (bus 1) pulls them. Handlers are called on the streams' threads (never the server's).
open class AUAudioUnit: NSObject {
    let unit: IOUnit
    /// What the unit is.
    public let componentDescription: AudioComponentDescription
    private let state = Locked(State())
    private struct State {
        var allocated = false
        var inputHandler: AUInputHandler?
        var outputProvider: AURenderPullInputBlock?
    }
    private lazy var busses: (inputs: AUAudioUnitBusArray, outputs: AUAudioUnitBusArray) = (
        AUAudioUnitBusArray([AUAudioUnitBus(owner: self, element: 0, clientSide: true, index: 0),
                             AUAudioUnitBus(owner: self, element: 1, clientSide: false, index: 1)]),
        AUAudioUnitBusArray([AUAudioUnitBus(owner: self, element: 0, clientSide: false, index: 0),
                             AUAudioUnitBus(owner: self, element: 1, clientSide: true, index: 1)]))

    /// A unit of `componentDescription`: one of Apple's output units.
    /// - Throws: an NSError (`kAudioUnitErr_FailedInitialization`, with a line) for any other component.
    public init(componentDescription: AudioComponentDescription, options: AudioComponentInstantiationOptions = []) throws {
        var wanted = componentDescription
        guard AudioComponentFindNext(nil, &wanted) != nil, componentDescription.componentType == kAudioUnitType_Output else {
            throw statusError(kAudioUnitErr_FailedInitialization,
                "cannot make the unit \(componentDescription.componentType)/\(componentDescription.componentSubType): only Apple's output "
                + "units (RemoteIO, HAL output, default, system and voice processing output) exist on Linux; effects are AVAudioEngine's nodes")
        }
        unit = IOUnit(kind: componentDescription)
        self.componentDescription = componentDescription
        super.init()
    }

    deinit { unit.uninitialize() }

    func setProperty(_ id: AudioUnitPropertyID, scope: AudioUnitScope, element: UInt32, _ format: AudioStreamBasicDescription) -> OSStatus {
        unit.lock.withLock { () -> OSStatus in
            guard !unit.initialized else { return kAudioUnitErr_Initialized }
            guard SampleCodec.accepts(format) else {
                return kAudioUnitErr_FormatNotSupported
            }
            if element == 0 { unit.outputFormat = format } else { unit.inputFormat = format }
            return noErr
        }
    }

    /// The program's side (`[0]`) and the device's side of the input (`[1]`).
    public var inputBusses: AUAudioUnitBusArray { busses.inputs }
    /// The device's side of the output (`[0]`) and the program's side of the input (`[1]`).
    public var outputBusses: AUAudioUnitBusArray { busses.outputs }

    /// The most frames one render gives (the handlers are called with slices of at most this many).
    public var maximumFramesToRender: AUAudioFrameCount {
        get { unit.lock.withLock { unit.maximumFrames } }
        set { unit.lock.withLock { unit.maximumFrames = max(1, min(1 << 20, newValue)) } }
    }

    public var canPerformInput: Bool { unit.canInput }
    public var canPerformOutput: Bool { unit.hasHardware }

    /// Whether the unit captures (bus 1); set before the render resources are allocated.
    public var isInputEnabled: Bool {
        get { unit.lock.withLock { unit.inputEnabled } }
        set { unit.lock.withLock { if !unit.initialized { unit.inputEnabled = newValue && unit.canInput } } }
    }

    /// Whether the unit plays (bus 0); set before the render resources are allocated.
    public var isOutputEnabled: Bool {
        get { unit.lock.withLock { unit.outputEnabled } }
        set { unit.lock.withLock { if !unit.initialized { unit.outputEnabled = newValue } } }
    }

    /// Supplies what bus 0 plays, on the playback stream's thread.
    public var outputProvider: AURenderPullInputBlock? {
        get { state.withLock { $0.outputProvider } }
        set {
            state.withLock { $0.outputProvider = newValue }
            unit.lock.withLock {
                unit.renderHandler = newValue.map { provider in { flags, time, frames, list in provider(flags, time, frames, 0, list) } }
            }
        }
    }

    /// Told of captured frames, on the capture's thread: render them from bus 1 with `renderBlock`.
    public var inputHandler: AUInputHandler? {
        get { state.withLock { $0.inputHandler } }
        set {
            state.withLock { $0.inputHandler = newValue }
            unit.lock.withLock {
                unit.inputHandler = newValue.map { handler in { flags, time, frames in handler(flags, time, frames, 1) } }
            }
        }
    }

    /// Renders bus 1 (the input): the captured frames not yet rendered, in bus 1's format (into the unit's
    /// own buffers when the list's mData are nil); bus 0 of a generic output: the output provider's frames.
    public var renderBlock: AURenderBlock {
        { [unit] flags, time, frames, bus, list, _ in
            switch bus {
            case 1: return unit.renderInput(flags, frames: Int(frames), list)
            case 0 where !unit.hasHardware: return unit.renderOutput(flags, time, frames: Int(frames), list)
            default: return kAudioUnitErr_InvalidElement
            }
        }
    }

    /// Checks the formats (and, for voice processing, that the server has an echo-cancelling source).
    /// - Throws: an NSError with the status and the one line that says what to do.
    public func allocateRenderResources() throws {
        let status = unit.initialize()
        guard status == noErr else {
            throw statusError(status, OpenAudioToolboxLastErrorMessage() ?? "cannot allocate the unit's render resources: status \(status)")
        }
        state.withLock { $0.allocated = true }
    }

    /// Stops the hardware and lets the formats be set again.
    public func deallocateRenderResources() {
        unit.uninitialize()
        state.withLock { $0.allocated = false }
    }

    /// Whether `allocateRenderResources()` succeeded and `deallocateRenderResources()` has not been called since.
    public var renderResourcesAllocated: Bool { state.withLock { $0.allocated } }

    /// Starts playing and capturing (the server's default sink and source, or those PULSE_SINK and
    /// PULSE_SOURCE name).
    /// - Throws: an NSError (`kAudioUnitErr_Uninitialized` before the resources are allocated,
    ///   `kAudioUnitErr_NoConnection` when the server refuses, with its line).
    public func startHardware() throws {
        let status = unit.start()
        guard status == noErr else {
            throw statusError(status, OpenAudioToolboxLastErrorMessage() ?? "cannot start the unit: status \(status)")
        }
    }

    /// Stops playing and capturing (from any thread, the handlers included).
    public func stopHardware() { unit.stop() }

    /// Whether the hardware runs.
    public var isRunning: Bool { unit.lock.withLock { unit.running } }
}
