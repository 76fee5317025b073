// AVAudioEngine's manual rendering: the graph rendered when the program asks, into its buffers, as fast as
// the machine goes, with no server (offline), or from the program's own audio callback (realtime).
import Foundation
import Locking
import OpenAudioToolbox
import RecorderKit

/// How a manually rendering engine is driven.
public enum AVAudioEngineManualRenderingMode: Int, Sendable {
    /// `renderOffline(_:to:)`, from any thread, as fast as the machine goes.
    case offline = 0
    /// `manualRenderingBlock`, from the program's own audio callback.
    case realtime = 1
}

/// What a manual render produced.
public enum AVAudioEngineManualRenderingStatus: Int, Sendable {
    case error = -1
    /// The frames asked for were rendered.
    case success = 0
    /// The frames were rendered, but the input node (connected) had no data: its part is silence.
    case insufficientDataFromInputNode = 1
    /// The engine could not render now (another render was under way).
    case cannotDoInCurrentContext = 2
}

/// Apple's manual rendering error codes (an NSError's code in NSOSStatusErrorDomain).
public enum AVAudioEngineManualRenderingError: Int, Sendable {
    /// The call does not belong to the engine's mode (or the engine is not rendering manually).
    case invalidMode = -80800
    /// The engine must be stopped for this call.
    case initialized = -80801
    /// The engine must be running for this call.
    case notRunning = -80802
}

/// Renders `numberOfFrames` into `outBuffer` (a buffer list of the manual rendering format); `outError`
/// receives the status behind an `.error`.
public typealias AVAudioEngineManualRenderingBlock = (_ numberOfFrames: AVAudioFrameCount, _ outBuffer: UnsafeMutablePointer<AudioBufferList>,
                                                      _ outError: UnsafeMutablePointer<OSStatus>?) -> AVAudioEngineManualRenderingStatus

/// An engine's manual rendering settings, and the buffer the render block renders through.
struct ManualRendering {
    let mode: AVAudioEngineManualRenderingMode
    let format: AVAudioFormat
    let maximumFrameCount: AVAudioFrameCount
    let scratch: AVAudioPCMBuffer
}

extension AVAudioEngine {
    /// Renders the engine manually from now on, in `pcmFormat` (linear PCM of 1 or 2 channels at any rate
    /// the graph takes; a mono format gets the mean of the mix's two channels), at most `maximumFrameCount`
    /// frames a call (1…1 048 576). The engine must be stopped. Its nodes keep their connections; the input
    /// node captures nothing in this mode (its part is silence, and renders say so).
    /// - Throws: an NSError (`AVAudioEngineManualRenderingError.initialized` while running,
    ///   `kAudioUnitErr_FormatNotSupported` or `kAudioUnitErr_InvalidPropertyValue` for what cannot be rendered).
    public func enableManualRenderingMode(_ mode: AVAudioEngineManualRenderingMode, format pcmFormat: AVAudioFormat,
                                          maximumFrameCount: AVAudioFrameCount) throws {
        guard !isRunning else {
            throw statusError(OSStatus(AVAudioEngineManualRenderingError.initialized.rawValue),
                              "cannot enable manual rendering while the engine runs: stop() it first")
        }
        guard pcmFormat.commonFormat != .otherFormat, (1...2).contains(pcmFormat.channelCount),
              let rate = playableRate(pcmFormat.sampleRate) else {
            throw statusError(kAudioUnitErr_FormatNotSupported,
                "cannot render manually in \(pcmFormat): use linear PCM of 1 or 2 channels at 1 to \(StreamFormat.maxSampleRate) Hz")
        }
        guard (1...(1 << 20)).contains(maximumFrameCount),
              let scratch = AVAudioPCMBuffer(pcmFormat: pcmFormat, frameCapacity: maximumFrameCount) else {
            throw statusError(kAudioUnitErr_InvalidPropertyValue,
                "cannot render up to \(maximumFrameCount) frames a call: ask for 1 to 1048576 (and less than 2 GiB of samples)")
        }
        graph.stop()
        graph.sampleRate = rate
        manual.withLock { $0 = ManualRendering(mode: mode, format: pcmFormat, maximumFrameCount: maximumFrameCount, scratch: scratch) }
    }

    /// Back to rendering to the server's sink (the engine stops first).
    public func disableManualRenderingMode() {
        guard manual.withLock({ $0 != nil }) else { return }
        graph.stop()
        manual.withLock { $0 = nil }
        graph.sampleRate = 44_100
    }

    /// Whether the engine renders manually.
    public var isInManualRenderingMode: Bool { manual.withLock { $0 != nil } }
    /// The manual rendering mode (`.offline` when not rendering manually).
    public var manualRenderingMode: AVAudioEngineManualRenderingMode { manual.withLock { $0?.mode } ?? .offline }
    /// The format rendered manually (the engine's output format when not).
    public var manualRenderingFormat: AVAudioFormat { outputFormat }
    /// The most frames one manual render takes (0 when not rendering manually).
    public var manualRenderingMaximumFrameCount: AVAudioFrameCount { manual.withLock { $0?.maximumFrameCount } ?? 0 }
    /// Frames rendered manually since the engine started.
    public var manualRenderingSampleTime: AVAudioFramePosition { graph.renderedFrameCount }

    /// Renders the next `numberOfFrames` frames into `buffer` (of the manual rendering format), as fast as
    /// the machine goes; its `frameLength` becomes `numberOfFrames`. Offline mode, engine running. From
    /// one thread at a time.
    /// - Throws: an NSError: `.invalidMode` outside offline manual rendering, `.notRunning` before
    ///   `start()`, `kAudioUnitErr_TooManyFramesToProcess` past the maximum or the buffer's capacity,
    ///   `kAudioUnitErr_FormatNotSupported` for a buffer of another format.
    public func renderOffline(_ numberOfFrames: AVAudioFrameCount, to buffer: AVAudioPCMBuffer) throws -> AVAudioEngineManualRenderingStatus {
        guard let settings = manual.withLock({ $0 }), settings.mode == .offline else {
            throw statusError(OSStatus(AVAudioEngineManualRenderingError.invalidMode.rawValue),
                "renderOffline needs offline manual rendering: call enableManualRenderingMode(.offline, format:maximumFrameCount:) first")
        }
        return try render(numberOfFrames, into: buffer, settings)
    }

    /// The block that renders in realtime manual rendering mode (in offline mode it renders as
    /// `renderOffline` does): into a buffer list of the manual rendering format, each buffer's
    /// `mDataByteSize` at least the frames' bytes. Call it from one thread at a time.
    public var manualRenderingBlock: AVAudioEngineManualRenderingBlock {
        { [weak self] frames, list, outError in
            guard let self, let settings = self.manual.withLock({ $0 }) else {
                outError?.pointee = OSStatus(AVAudioEngineManualRenderingError.invalidMode.rawValue)
                return .error
            }
            do {
                let status = try self.render(frames, into: settings.scratch, settings)
                let from = UnsafeMutableAudioBufferListPointer(settings.scratch.mutableAudioBufferList)
                let to = UnsafeMutableAudioBufferListPointer(list)
                let bytes = Int(frames) * Int(settings.format.streamDescription.pointee.mBytesPerFrame)
                guard to.count >= from.count, to.prefix(from.count).allSatisfy({ $0.mData != nil && Int($0.mDataByteSize) >= bytes }) else {
                    outError?.pointee = kAudio_ParamError
                    return .error
                }
                for index in 0..<from.count {
                    to[index].mData!.copyMemory(from: from[index].mData!, byteCount: bytes)
                    to[index].mDataByteSize = UInt32(bytes)
                }
                return status
            } catch {
                outError?.pointee = OSStatus(truncatingIfNeeded: (error as NSError).code)
                return .error
            }
        }
    }

    /// One manual render of `frames` frames into `buffer`.
    private func render(_ frames: AVAudioFrameCount, into buffer: AVAudioPCMBuffer, _ settings: ManualRendering) throws -> AVAudioEngineManualRenderingStatus {
        guard isRunning else {
            throw statusError(OSStatus(AVAudioEngineManualRenderingError.notRunning.rawValue),
                              "cannot render: the engine is not running; call start() first")
        }
        guard frames >= 1, frames <= settings.maximumFrameCount, frames <= buffer.frameCapacity else {
            throw statusError(kAudioUnitErr_TooManyFramesToProcess,
                "cannot render \(frames) frames: ask for 1 to \(min(settings.maximumFrameCount, buffer.frameCapacity)) "
                + "(manualRenderingMaximumFrameCount and the buffer's frameCapacity)")
        }
        guard buffer.format == settings.format else {
            throw statusError(kAudioUnitErr_FormatNotSupported,
                              "cannot render into a buffer of \(buffer.format): the manual rendering format is \(settings.format)")
        }
        let count = Int(frames)
        let mono = settings.format.channelCount == 1
        do {
            try graph.renderManually(frames: count) { mix in
                let left = mix.channel(0), right = mix.channel(1)
                for frame in 0..<count {
                    if mono {
                        buffer.setSample((left[frame] + right[frame]) / 2, channel: 0, frame: frame)
                    } else {
                        buffer.setSample(left[frame], channel: 0, frame: frame)
                        buffer.setSample(right[frame], channel: 1, frame: frame)
                    }
                }
            }
        } catch {
            throw statusError(OSStatus(AVAudioEngineManualRenderingError.notRunning.rawValue), error.message)
        }
        buffer.frameLength = frames
        if let input = inputNodeIfMade, graph.destination(of: input.graphNode) != nil { return .insufficientDataFromInputNode }
        return .success
    }
}
