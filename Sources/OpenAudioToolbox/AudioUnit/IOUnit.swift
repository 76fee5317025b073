// An output Audio Unit (RemoteIO, HAL output, default and system output, voice processing, generic
// output) over the server: bus 0 plays what the render callback renders (a playback stream), bus 1 captures
// (a record stream) for the input callback and AudioUnitRender; each side in the client's own stream
// format, converted by PCMConverter. What Audio Unit Services' calls and AUAudioUnit drive.
import Foundation
import Locking
import RecorderKit

/// One I/O unit. Settings under `lock`; the program's callbacks are called without it (on the playback
/// stream's reader thread and the capture's delivery thread), and may call any Audio Unit call, this
/// unit's disposal included.
package final class IOUnit: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is under `lock` (recursive), the captured frames under
    // `captured`'s lock, the input's own buffers under its converter's lock; `playList` and `playScratch`
    // are touched only by the playback stream's one reader thread; the streams are made and ended under `lock` and used only through their own
    // thread-safe calls.
    package let lock = PosixMutex(recursive: true)
    package let kind: AudioComponentDescription

    /// The client's formats: what the render callback gives (output, bus 0), what AudioUnitRender gives from
    /// the input (bus 1).
    package var outputFormat: AudioStreamBasicDescription { didSet { outputConverter = nil } }
    package var inputFormat: AudioStreamBasicDescription { didSet { inputConverter = nil } }
    /// The converters between the client's formats and the streams', made once for each format (a format
    /// changes only while the unit is uninitialized, and a change drops its converter).
    private var outputConverter: PCMConverter?
    private var inputConverter: PCMConverter?
    /// The playback side's list and bytes the render callback fills, kept between buffers (used only on
    /// the playback stream's reader thread).
    private var playList: UnsafeMutableAudioBufferListPointer?
    private var playScratch: [UInt8] = []
    /// The devices' formats (the server's default sink and source, or their rates and channels).
    package let deviceOutputFormat: AudioStreamBasicDescription
    package let deviceInputFormat: AudioStreamBasicDescription
    package var outputEnabled = true
    package var inputEnabled = false
    package var renderCallback: AURenderCallbackStruct?
    package var inputCallback: AURenderCallbackStruct?
    package var maximumFrames: UInt32 = 4_096
    package var shouldAllocateBuffer = true
    package private(set) var initialized = false
    package private(set) var running = false
    /// Swift-side handlers (AUAudioUnit's): called as the C callbacks are.
    package var renderHandler: ((UnsafeMutablePointer<AudioUnitRenderActionFlags>, UnsafePointer<AudioTimeStamp>, UInt32,
                                 UnsafeMutablePointer<AudioBufferList>) -> OSStatus)?
    package var inputHandler: ((UnsafeMutablePointer<AudioUnitRenderActionFlags>, UnsafePointer<AudioTimeStamp>, UInt32) -> Void)?
    /// The handle the callbacks are given (the registry's).
    package var handle: AudioUnit?

    private var player: Player?
    private var recorder: Recorder?
    private var renderedFrames: Int64 = 0
    /// Captured frames not yet rendered out (raw big-endian float32, interleaved), and their first frame's number.
    private let captured = Locked(Captured())
    private struct Captured {
        var bytes: [UInt8] = []
        var start = 0
        var firstFrame: Int64 = 0
    }

    /// The capture's layout: big-endian float32, interleaved, at the input format's rate and channels.
    private var captureFormat: AudioStreamBasicDescription {
        Self.packed(rate: inputFormat.mSampleRate, channels: inputFormat.mChannelsPerFrame, bits: 32, float: true, bigEndian: true)
    }
    /// The playback stream's layout: big-endian signed 16-bit, interleaved (what RecorderKit's player writes).
    private var playbackFormat: AudioStreamBasicDescription {
        Self.packed(rate: outputFormat.mSampleRate, channels: outputFormat.mChannelsPerFrame, bits: 16, float: false, bigEndian: true)
    }

    package static func packed(rate: Double, channels: UInt32, bits: UInt32, float: Bool, bigEndian: Bool,
                               interleaved: Bool = true) -> AudioStreamBasicDescription {
        var flags: AudioFormatFlags = (float ? kAudioFormatFlagIsFloat : kAudioFormatFlagIsSignedInteger) | kAudioFormatFlagIsPacked
        if bigEndian { flags |= kAudioFormatFlagIsBigEndian }
        if !interleaved { flags |= kAudioFormatFlagIsNonInterleaved }
        let bytes = bits / 8 * (interleaved ? channels : 1)
        return AudioStreamBasicDescription(mSampleRate: rate, mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags, mBytesPerPacket: bytes,
                                           mFramesPerPacket: 1, mBytesPerFrame: bytes, mChannelsPerFrame: channels, mBitsPerChannel: bits,
                                           mReserved: 0)
    }

    /// A unit of `kind`; the devices' formats from the server (44.1 kHz stereo output, mono input when it
    /// cannot be asked); the client formats float32, one buffer per channel, as Apple's defaults.
    package init(kind: AudioComponentDescription) {
        self.kind = kind
        let sink = (try? Player.sinks())?.first(where: \.isDefault)
        let source = (try? Recorder.sources())?.first(where: \.isDefault)
        deviceOutputFormat = Self.packed(rate: Double(sink?.sampleRate ?? 44_100), channels: UInt32(min(2, sink?.channelCount ?? 2)), bits: 32,
                                         float: true, bigEndian: false, interleaved: false)
        deviceInputFormat = Self.packed(rate: Double(source?.sampleRate ?? 44_100), channels: UInt32(min(2, source?.channelCount ?? 1)),
                                        bits: 32, float: true, bigEndian: false, interleaved: false)
        outputFormat = deviceOutputFormat
        inputFormat = deviceInputFormat
        inputEnabled = kind.componentSubType == kAudioUnitSubType_VoiceProcessingIO
    }

    /// Whether the unit has hardware at all (a generic output renders only when pulled).
    package var hasHardware: Bool { kind.componentSubType != kAudioUnitSubType_GenericOutput }
    /// Whether it can capture (the default and system outputs cannot).
    package var canInput: Bool {
        ![kAudioUnitSubType_DefaultOutput, kAudioUnitSubType_SystemOutput, kAudioUnitSubType_GenericOutput].contains(kind.componentSubType)
    }

    /// The converter of the output (client → 16-bit stream) or the input (float capture → client) side, made
    /// on first need; nil for a format the converter does not take.
    private func converter(output: Bool) -> PCMConverter? {
        lock.withLock {
            if output {
                if outputConverter == nil { outputConverter = PCMConverter(from: outputFormat, to: playbackFormat) }
                return outputConverter
            }
            if inputConverter == nil { inputConverter = PCMConverter(from: captureFormat, to: inputFormat) }
            return inputConverter
        }
    }

    deinit { if let playList { free(playList.unsafeMutablePointer) } }

    package func initialize() -> OSStatus {
        lock.withLock {
            guard converter(output: true) != nil, converter(output: false) != nil else {
                QueueRegistry.noteFailure("cannot initialize the unit: its stream formats must be packed linear PCM (8- to 32-bit integers, "
                    + "32- or 64-bit floats) of 1 to 32 channels")
                return kAudioUnitErr_FormatNotSupported
            }
            if kind.componentSubType == kAudioUnitSubType_VoiceProcessingIO, echoCancelSource == nil {
                QueueRegistry.noteFailure("cannot initialize a voice processing unit: the server has no echo-cancelling source; "
                    + "load one with `pactl load-module module-echo-cancel` (PulseAudio or pipewire-pulse) and try again")
                return kAudioUnitErr_FailedInitialization
            }
            initialized = true
            return noErr
        }
    }

    package func uninitialize() {
        stop()
        lock.withLock { initialized = false }
    }

    /// The server's echo-cancelling source (module-echo-cancel's), which a voice processing unit records from.
    private var echoCancelSource: String? {
        (try? Recorder.sources())?.first { $0.name.contains("echo-cancel") || $0.name.contains("echo_cancel") || $0.name.contains("aec") }?.name
    }

    // MARK: Running

    /// Starts the enabled sides: a playback stream pulling the render callback, a capture calling the
    /// input callback. A status and a line in `OpenAudioToolboxLastErrorMessage()` when the server refuses.
    package func start() -> OSStatus {
        // Settings under the lock; the streams made and started without it (a starting player fills its
        // first buffers from the render callback, on its own thread, which reads the settings).
        let settings = lock.withLock { () -> (ok: Bool, go: Bool, output: AudioStreamBasicDescription?, input: AudioStreamBasicDescription?, voice: Bool)? in
            guard initialized else { return nil }
            guard !running, !starting, hasHardware else { return (true, false, nil, nil, false) }
            starting = true
            return (true, true, outputEnabled ? outputFormat : nil, inputEnabled && canInput ? inputFormat : nil,
                    kind.componentSubType == kAudioUnitSubType_VoiceProcessingIO)
        }
        guard let settings else { return kAudioUnitErr_Uninitialized }
        guard settings.go else { return noErr }
        let name = ProcessInfo.processInfo.processName
        var madePlayer: Player?
        var madeRecorder: Recorder?
        do {
            if let input = settings.input {
                captured.withLock { $0 = Captured() }
                let format = try StreamFormat(sampleRate: Int(input.mSampleRate.rounded()), channelCount: Int(input.mChannelsPerFrame),
                                              sampleFormat: .float32)
                let made = try Recorder(format: format, source: settings.voice ? echoCancelSource : nil, bufferCount: 3,
                                        bufferDuration: 0.05, clientName: name)
                made.setInputHandler { [weak self] buffer in self?.capture(buffer) }
                madeRecorder = made
            }
            if let output = settings.output {
                let format = try StreamFormat(sampleRate: Int(output.mSampleRate.rounded()), channelCount: Int(output.mChannelsPerFrame))
                let made = try Player(format: format, bufferCount: 3, bufferDuration: 0.05, clientName: name) { [weak self] buffer in
                    self?.play(&buffer)
                }
                madePlayer = made
                lock.withLock {
                    renderedFrames = 0
                    player = made
                }
                try made.play()
            }
        } catch {
            madePlayer?.close()
            madeRecorder?.stop()
            lock.withLock {
                player = nil
                starting = false
            }
            QueueRegistry.noteFailure(error)
            return error.code == .invalidFormat ? kAudioUnitErr_FormatNotSupported : kAudioUnitErr_NoConnection
        }
        lock.withLock {
            player = madePlayer
            recorder = madeRecorder
            starting = false
            running = true
        }
        return noErr
    }

    /// True while `start` makes the streams (a second start meanwhile does nothing).
    private var starting = false

    /// Ends both streams (from any thread, the unit's own callbacks included).
    package func stop() {
        let (player, recorder) = lock.withLock { () -> (Player?, Recorder?) in
            defer {
                self.player = nil
                self.recorder = nil
                running = false
            }
            return (self.player, self.recorder)
        }
        player?.close()
        recorder?.stop()
    }

    // MARK: Output (the playback stream's reader thread)

    /// Fills one playback buffer from the render callback, in slices of at most `maximumFrames`.
    private func play(_ buffer: inout OutputBuffer) {
        let (format, callback, handler, maximum, unit) = lock.withLock { (outputFormat, renderCallback, renderHandler, Int(maximumFrames), handle) }
        guard callback?.inputProc != nil || handler != nil, let converter = converter(output: true) else { return }
        let frames = buffer.frameCapacity
        var done = 0
        let channels = Int(format.mChannelsPerFrame)
        let interleaved = format.mFormatFlags & kAudioFormatFlagIsNonInterleaved == 0
        let buffers = interleaved ? 1 : channels
        if playList?.count != buffers {
            if let playList { free(playList.unsafeMutablePointer) }
            playList = AudioBufferList.allocate(maximumBuffers: buffers)
        }
        let list = playList!
        let bytesPerFrame = Int(format.mBytesPerFrame)
        let scratchBytes = max(1, min(frames, maximum)) * bytesPerFrame * buffers
        if playScratch.count < scratchBytes { playScratch = [UInt8](repeating: 0, count: scratchBytes) }
        while done < frames {
            let slice = min(frames - done, max(1, maximum))
            var status = noErr
            playScratch.withUnsafeMutableBytes { raw in
                raw.initializeMemory(as: UInt8.self, repeating: 0)
                for index in 0..<list.count {
                    list[index] = AudioBuffer(mNumberChannels: UInt32(interleaved ? channels : 1), mDataByteSize: UInt32(slice * bytesPerFrame),
                                              mData: raw.baseAddress! + index * slice * bytesPerFrame)
                }
                var flags: AudioUnitRenderActionFlags = []
                var time = timeStamp(sample: renderedFrames)
                if let handler {
                    status = handler(&flags, &time, UInt32(slice), list.unsafeMutablePointer)
                } else if let proc = callback?.inputProc, let unit {
                    status = proc(callback?.inputProcRefCon ?? UnsafeMutableRawPointer(unit), &flags, &time, 0, UInt32(slice), list.unsafeMutablePointer)
                }
                guard status == noErr else { return }
                // Into the stream's bytes: big-endian 16-bit, interleaved, from frame `done`.
                var given = false
                var out = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(mNumberChannels: UInt32(channels),
                                          mDataByteSize: UInt32(slice * channels * 2), mData: buffer.bytes.baseAddress! + done * channels * 2))
                _ = converter.lock.withLock {
                    converter.fill(&out, capacity: slice) { _ in
                        defer { given = true }
                        return given ? .noDataNow : .data(list.unsafeMutablePointer, frames: slice)
                    }
                }
            }
            renderedFrames += Int64(slice)
            done += slice
            if status != noErr { break }  // the rest of this buffer stays silent
        }
    }

    private func timeStamp(sample: Int64) -> AudioTimeStamp {
        var time = AudioTimeStamp()
        time.mSampleTime = Double(sample)
        time.mHostTime = DeviceTimeline.now()
        time.mRateScalar = 1
        time.mFlags = [.sampleTimeValid, .hostTimeValid, .rateScalarValid]
        return time
    }

    // MARK: Input (the capture's delivery thread)

    /// Keeps a captured buffer for AudioUnitRender and tells the input callback, in slices.
    private func capture(_ buffer: CapturedBuffer) {
        let frameBytes = Int(captureFormat.mBytesPerFrame)
        let first = captured.withLock { held -> Int64 in
            if held.start > 0 && held.start * 2 >= held.bytes.count {
                held.bytes.removeFirst(held.start)
                held.start = 0
            }
            if held.bytes.isEmpty { held.firstFrame = buffer.startFrame }
            // At most a second is held for a program that never renders it: the oldest goes.
            let limit = Int(inputFormat.mSampleRate) * frameBytes
            held.bytes.append(contentsOf: buffer.bytes.prefix(buffer.frameCount * frameBytes))
            let over = held.bytes.count - held.start - limit
            if over > 0 {
                held.start += over
                held.firstFrame += Int64(over / frameBytes)
            }
            return buffer.startFrame
        }
        let (callback, handler, maximum, unit) = lock.withLock { (inputCallback, inputHandler, Int(maximumFrames), handle) }
        var done = 0
        while done < buffer.frameCount {
            let slice = min(buffer.frameCount - done, max(1, maximum))
            var flags: AudioUnitRenderActionFlags = []
            var time = timeStamp(sample: first + Int64(done))
            if let handler {
                handler(&flags, &time, UInt32(slice))
            } else if let proc = callback?.inputProc, let unit {
                _ = proc(callback?.inputProcRefCon ?? UnsafeMutableRawPointer(unit), &flags, &time, 1, UInt32(slice), nil)
            }
            done += slice
        }
    }

    /// AudioUnitRender of bus 1: the oldest captured frames not yet rendered, converted into `ioData` (in
    /// the unit's own buffers when its mData are nil); silence, flagged, for what was not captured yet.
    package func renderInput(_ flags: UnsafeMutablePointer<AudioUnitRenderActionFlags>, frames: Int,
                             _ ioData: UnsafeMutablePointer<AudioBufferList>) -> OSStatus {
        let (format, maximum, enabled) = lock.withLock { (inputFormat, Int(maximumFrames), inputEnabled && canInput) }
        guard enabled else { return kAudioUnitErr_NoConnection }
        guard frames <= maximum else { return kAudioUnitErr_TooManyFramesToProcess }
        guard let converter = converter(output: false) else { return kAudioUnitErr_FormatNotSupported }
        // One render of the input at a time (its converter and the unit's own buffers are shared).
        return converter.lock.withLock { renderInput(flags, frames: frames, ioData, format: format, converter: converter) }
    }

    private func renderInput(_ flags: UnsafeMutablePointer<AudioUnitRenderActionFlags>, frames: Int, _ ioData: UnsafeMutablePointer<AudioBufferList>,
                             format: AudioStreamBasicDescription, converter: PCMConverter) -> OSStatus {
        let list = UnsafeMutableAudioBufferListPointer(ioData)
        let perBuffer = Int(format.mBytesPerFrame) * frames
        if list.contains(where: { $0.mData == nil }) {
            // The unit's own buffers: allocated once per unit and size.
            let needed = perBuffer * list.count
            if inputScratch.count < needed { inputScratch = [UInt8](repeating: 0, count: needed) }
            inputScratch.withUnsafeMutableBytes { raw in
                for index in 0..<list.count {
                    list[index].mData = raw.baseAddress! + index * perBuffer
                    list[index].mDataByteSize = UInt32(perBuffer)
                }
            }
        }
        guard converter.fits(ioData, frames: frames, forOutput: true) else { return kAudio_ParamError }
        let frameBytes = Int(captureFormat.mBytesPerFrame)
        let input = AudioBufferList.allocate(maximumBuffers: 1)
        defer { free(input.unsafeMutablePointer) }
        let written = captured.withLock { held -> Int in
            let available = min(frames, (held.bytes.count - held.start) / frameBytes)
            var given = false
            let (count, _) = held.bytes.withUnsafeMutableBytes { raw -> (Int, PCMConverter.Ending) in
                input[0] = AudioBuffer(mNumberChannels: format.mChannelsPerFrame, mDataByteSize: UInt32(available * frameBytes),
                                       mData: raw.baseAddress! + held.start)
                return converter.fill(ioData, capacity: frames) { _ in
                    defer { given = true }
                    return given || available == 0 ? .noDataNow : .data(input.unsafeMutablePointer, frames: available)
                }
            }
            held.start += count * frameBytes
            held.firstFrame += Int64(count)
            return count
        }
        if written < frames {
            // Not captured yet: the rest is silence, and the flags say the output may be.
            let bytes = Int(format.mBytesPerFrame)
            for index in 0..<list.count {
                (list[index].mData! + written * bytes).initializeMemory(as: UInt8.self, repeating: 0, count: (frames - written) * bytes)
                list[index].mDataByteSize = UInt32(frames * bytes)
            }
            if written == 0 { flags.pointee.insert(.unitRenderAction_OutputIsSilence) }
        }
        return noErr
    }

    /// The unit's own input buffers (AudioUnitRender with nil mData), used by one render at a time.
    private var inputScratch: [UInt8] = []

    /// AudioUnitRender of bus 0 on a generic output: the render callback's frames, converted to nothing (the
    /// client's own format), straight into `ioData`.
    package func renderOutput(_ flags: UnsafeMutablePointer<AudioUnitRenderActionFlags>, _ time: UnsafePointer<AudioTimeStamp>,
                              frames: Int, _ ioData: UnsafeMutablePointer<AudioBufferList>) -> OSStatus {
        let (callback, handler, maximum, unit) = lock.withLock { (renderCallback, renderHandler, Int(maximumFrames), handle) }
        guard frames <= maximum else { return kAudioUnitErr_TooManyFramesToProcess }
        if let handler { return handler(flags, time, UInt32(frames), ioData) }
        guard let proc = callback?.inputProc, let unit else { return kAudioUnitErr_NoConnection }
        return proc(callback?.inputProcRefCon ?? UnsafeMutableRawPointer(unit), flags, time, 0, UInt32(frames), ioData)
    }
}
