// A graph's capture source: while the graph runs and the input has a tap or a connection, a Recorder
// captures the source; its tap gets each buffer as captured, and the graph hears it live (monitoring)
// through a short queue, resampled to the graph's rate when the source's differs.
import Glibc

/// A capture source in a graph (AVAudioEngine's input node): the source `source` names (nil: the one
/// PULSE_SOURCE names, else the server's default) at its own rate and channels (up to 2).
///
/// It captures only while the graph runs and it has a tap or its output is connected. A tap receives
/// each buffer as it arrives (0.05 s of the source's rate, on the capture's delivery thread). Connected
/// (live monitoring), it plays what it captured with about 0.1 s held back against the capture's and the
/// stream's jitter; if capture falls behind, silence fills in and the hold-back is taken again.
public final class GraphInput: GraphNode, @unchecked Sendable {
    // @unchecked Sendable: as GraphNode; `chosenSource`, `muted`, `recorder`, `queue`, `queued`, `primed`,
    // `dropped` and `capturedFrames` under `lock`; the resampler and its scratch (`scratch`, `resampled`, `taken`, `chunk`) only
    // in the render pass.
    /// The source captured (nil: PULSE_SOURCE's or the default). A change takes effect when capture next
    /// starts (the graph stopped and started again).
    public var source: String? {
        get { lock.withLock { chosenSource } }
        set { lock.withLock { chosenSource = newValue } }
    }
    private var chosenSource: String?
    /// Whether what it captures is replaced by silence (AVAudioInputNode's voice processing mute).
    public var isMuted: Bool {
        get { lock.withLock { muted } }
        set { lock.withLock { muted = newValue } }
    }
    private var muted = false

    /// The name of the source being captured (the server's, once capture started); nil while not capturing.
    public var capturingSource: String? { lock.withLock { recorder }?.sourceName }

    /// How long a frame takes from being captured to reaching the graph (seconds): the capture's latency
    /// (the source's and one buffer); nil while not capturing or before the server has said.
    public var captureLatency: Double? { lock.withLock { recorder }?.captureLatency }
    /// The source's own rate and channels (44 100 Hz mono when the server could not be asked).
    public let sampleRate: Int
    /// The channels captured: the source's, at most 2.
    public let channelCount: Int
    private let server: String?
    private var recorder: Recorder?
    /// Captured frames not yet played (interleaved), at most `queueLimit`.
    private var queue: [Float] = []
    private var queued = 0
    private var primed = false
    private var resampler: TimeStretcher?
    private var scratch: [Float] = []
    private let holdBack: Int
    private let queueLimit: Int

    /// The input of `source` on `server` (nil: libpulse's usual lookup); asks the server for the source's
    /// rate and channels.
    public init(source: String? = nil, server: String? = nil) {
        let sources = (try? Recorder.sources(server: server)) ?? []
        let name = source ?? getenv("PULSE_SOURCE").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        let info = name.flatMap { name in sources.first { $0.name == name } } ?? sources.first(where: \.isDefault)
        chosenSource = source
        self.server = server
        sampleRate = info?.sampleRate ?? 44_100
        channelCount = min(2, max(1, info?.channelCount ?? 1))
        holdBack = sampleRate / 10
        queueLimit = sampleRate
        super.init()
    }

    /// None: a source.
    public override var inputBusCount: Int { 0 }
    override var kind: String { "input" }
    override var tapsItsOwn: Bool { true }

    /// True while it captures.
    public var isCapturing: Bool { lock.withLock { recorder != nil } }

    /// Frames of the source dropped by the monitoring queue because the graph did not take them (over a
    /// second behind), since the input was made.
    public var droppedFrames: Int64 { lock.withLock { dropped } }
    private var dropped: Int64 = 0
    /// Frames captured since the input was made (the sample time of what its tap gets next).
    private var capturedFrames: Int64 = 0
    private var resampled: [Float] = []
    private var taken: [Float] = []
    private var chunk = GraphBuffer(channelCount: 1, frameCapacity: 1)

    // MARK: Capture

    override func tapsChanged() { update() }
    override func graphStarted(_ graph: PlaybackGraph) { update() }
    override func graphStopped() { update() }

    /// Starts or ends the capture as the graph runs and a tap or a connection wants it.
    private func update() {
        let graph = lock.withLock { self.graph }
        let connected = graph?.isConnected(self) ?? false
        // No capture while the graph renders manually: nothing plays then, and its passes are not in real time.
        let wanted = (graph?.isRunning ?? false) && !(graph?.isRenderingManually ?? false) && (connected || lock.withLock { tap != nil })
        let current = lock.withLock { recorder }
        if wanted, current == nil {
            guard let format = try? StreamFormat(sampleRate: sampleRate, channelCount: channelCount, sampleFormat: .float32),
                  let made = try? Recorder(format: format, source: self.source, server: server, bufferCount: 3, bufferDuration: 0.05,
                                           clientName: graph?.clientName ?? "recorder") else { return }
            made.setInputHandler { [weak self] captured in self?.captured(captured) }
            let kept = lock.withLock { () -> Bool in
                guard recorder == nil else { return false }
                recorder = made
                queued = 0
                primed = false
                return true
            }
            if !kept { made.stop() }
        } else if !wanted, let current {
            lock.withLock { if recorder === current { recorder = nil } }
            current.stop()
        }
    }

    /// On the recorder's delivery thread: the buffer to the tap, and into the monitoring queue when
    /// connected.
    private func captured(_ buffer: CapturedBuffer) {
        let frames = buffer.frameCount
        let silent = lock.withLock { muted }
        let channels = (0..<channelCount).map { silent ? [Float](repeating: 0, count: frames) : buffer.floatSamples(channel: $0) ?? [] }
        let (tap, start) = lock.withLock { () -> (Tap?, Int64) in
            defer { capturedFrames += Int64(frames) }
            return (self.tap, capturedFrames)
        }
        let tapped = GraphTapBuffer(channels: channels, sampleRate: sampleRate, sampleTime: start, hostTime: UInt64(monotonicNanoseconds()))
        tap?.handler(tapped)
        let graph = lock.withLock { self.graph }
        if let receiver = graph?.destination(of: self)?.node as? GraphReceiver {
            receiver.receive(tapped)
            return
        }
        guard graph?.isConnected(self) == true else { return }
        lock.withLock {
            let count = channelCount
            if queue.count < queueLimit * count { queue = [Float](repeating: 0, count: queueLimit * count) }
            let over = max(0, queued + frames - queueLimit)
            if over > 0 {
                // The graph fell over a second behind: the oldest frames go.
                queue.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: $0.baseAddress! + over * count, count: (queued - over) * count) }
                queued -= over
                dropped += Int64(over)
            }
            for frame in 0..<frames {
                for channel in 0..<count { queue[(queued + frame) * count + channel] = channels[channel][frame] }
            }
            queued += frames
        }
    }

    // MARK: Rendering (monitoring)

    override func outputChannels(_ pass: RenderPass) -> Int { channelCount }

    override func render(_ frames: Int, into buffer: GraphBuffer, pass: RenderPass) {
        let count = channelCount
        if sampleRate == pass.sampleRate {
            let got = take(frames, into: &scratch)
            for channel in 0..<count {
                let to = buffer.channel(channel)
                for frame in 0..<got { to[frame] = scratch[frame * count + channel] }
            }
            return
        }
        if resampler == nil {
            resampler = TimeStretcher(channelCount: count, sampleRate: sampleRate)
            resampler?.set(varispeed: Double(sampleRate) / Double(pass.sampleRate))
        }
        guard let resampler else { return }
        let got = GraphTimeEffect.stretch(resampler, frames: frames, channels: count, into: &resampled, scratch: &scratch) { wanted in
            chunk.prepare(channels: count, frames: wanted)
            let got = take(wanted, into: &taken)
            for channel in 0..<count {
                let to = chunk.channel(channel)
                for frame in 0..<got { to[frame] = taken[frame * count + channel] }
            }
            return chunk
        }
        for channel in 0..<count {
            let to = buffer.channel(channel)
            for frame in 0..<got { to[frame] = resampled[frame * count + channel] }
        }
    }

    /// Takes up to `frames` frames off the monitoring queue into `samples` (interleaved); returns how
    /// many (0 while the hold-back is being taken: silence).
    private func take(_ frames: Int, into samples: inout [Float]) -> Int {
        let count = channelCount
        if samples.count < frames * count { samples = [Float](repeating: 0, count: frames * count) }
        return lock.withLock { () -> Int in
            if !primed {
                guard queued >= holdBack else { return 0 }
                primed = true
            }
            let got = min(frames, queued)
            if got < frames { primed = false }  // ran dry: hold back again
            for index in 0..<got * count { samples[index] = queue[index] }
            queue.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: $0.baseAddress! + got * count, count: (queued - got) * count) }
            queued -= got
            return got
        }
    }
}
