// True peak of a file as it is decoded: each decoded block, with the frames before it, is scanned by
// whichever thread is free (helpers, one per extra core, and the decoding thread itself when no buffer
// is free), so the file is decoded once and the 4× interpolation, most of an analysis's work, uses
// every core.
import Glibc
import Locking

/// Hands decoded blocks to true-peak scans on other threads. The decoding thread calls `buffer()`,
/// fills it, `submit`s it, and at the end `finish()`; helpers run `work()`. A block's scan starts from
/// fresh interpolators fed the `preroll` frames before it with their outputs left out: the interpolator
/// spans 13 input frames, so from the block's first frame on every value is the one a single scan over
/// the file computes (and so are the overs).
final class TruePeakJobs: @unchecked Sendable {
    // @unchecked Sendable: a buffer's floats are touched by one thread at a time, handed over only under
    // `state`'s lock (free → the decoder → queued → one scanner → free); everything else is in `state`
    // or immutable.
    struct Job {
        /// The buffer: `Self.preroll` frames' room, of which the last `preroll` hold the frames before the
        /// block, then the block.
        let storage: UnsafeMutablePointer<Float>
        /// The file frame of the block's first frame (after the pre-roll).
        let firstFrame: Int64
        /// Frames before the block (its pre-roll), then the block's frames.
        let preroll: Int
        let frames: Int
    }

    struct State {
        var free: [UnsafeMutablePointer<Float>]
        var queue: [Job] = []
        var finished = false
        var peaks: [Float]
        var overs: [Over] = []
        var oversLeftOut = 0
    }

    static let preroll = 64
    let channels: Int
    let sampleRate: Int
    /// Frames of one block (and so of one job).
    let blockFrames: Int
    /// Linear ceiling above which overs are noted; nil: overs not asked for.
    let ceiling: Float?
    let gap: Int64
    private let state: Locked<State>
    private let buffers: [UnsafeMutablePointer<Float>]

    /// `helpers` threads will call `work()` (0: the decoding thread scans every block itself).
    init(channels: Int, sampleRate: Int, blockFrames: Int, helpers: Int, ceiling: Float?, gap: Int64) {
        self.channels = channels
        self.sampleRate = sampleRate
        self.blockFrames = blockFrames
        self.ceiling = ceiling
        self.gap = gap
        let floats = (Self.preroll + blockFrames) * channels
        buffers = (0..<(helpers + 2)).map { _ in
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: floats)
            buffer.initialize(repeating: 0, count: floats)
            return buffer
        }
        state = Locked(State(free: buffers, peaks: [Float](repeating: 0, count: channels)))
    }

    deinit { for buffer in buffers { buffer.deallocate() } }

    /// A free buffer of `(preroll + blockFrames) × channels` floats; when none is free, this thread scans
    /// a queued block first (so the decoder is never idle while work waits).
    func buffer() -> UnsafeMutablePointer<Float> {
        while true {
            var job: Job?
            let buffer: UnsafeMutablePointer<Float>? = state.withLock { state in
                if let buffer = state.free.popLast() { return buffer }
                if !state.queue.isEmpty { job = state.queue.removeFirst() }
                return nil
            }
            if let buffer { return buffer }
            if let job {
                scan(job)
            } else {
                _ = state.wait { !$0.free.isEmpty || !$0.queue.isEmpty }
            }
        }
    }

    /// Queues a filled buffer: the last `preroll` of its first `Self.preroll` frames hold the frames before
    /// the block, then come the block's `frames` frames from `firstFrame`.
    func submit(_ storage: UnsafeMutablePointer<Float>, firstFrame: Int64, preroll: Int, frames: Int) {
        state.withLockBroadcasting { $0.queue.append(Job(storage: storage, firstFrame: firstFrame, preroll: preroll, frames: frames)) }
    }

    /// Gives back a buffer that was not filled.
    func giveBack(_ storage: UnsafeMutablePointer<Float>) {
        state.withLockBroadcasting { $0.free.append(storage) }
    }

    /// A helper's loop: scans queued blocks until `finish` and the queue is empty.
    func work() {
        while true {
            var job: Job?
            var done = false
            _ = state.wait { !$0.queue.isEmpty || $0.finished }
            state.withLock { state in
                if !state.queue.isEmpty { job = state.queue.removeFirst() } else if state.finished { done = true }
            }
            if let job { scan(job) } else if done { return }
        }
    }

    /// No more blocks: this thread scans what is queued; the helpers end when the queue is empty.
    /// Returns the linear peaks (sample or interpolated, whichever is higher) per channel and the overs,
    /// once the helpers (`join`) have returned.
    func finish(join: () -> Void) -> (peaks: [Float], overs: [Over], leftOut: Int) {
        state.withLockBroadcasting { $0.finished = true }
        while let job = state.withLock({ state -> Job? in state.queue.isEmpty ? nil : state.queue.removeFirst() }) {
            scan(job)
        }
        join()
        return state.withLock { state in
            let overs = (0..<channels).flatMap { channel in
                OverRuns.joined(state.overs.filter { $0.channel == channel }, gap: gap)
            }
            return (state.peaks, overs, state.oversLeftOut)
        }
    }

    private func scan(_ job: Job) {
        var peaks = [Float](repeating: 0, count: channels)
        var found: [Over] = []
        var leftOut = 0
        for channel in 0..<channels {
            var scanner = TruePeakScanner(sampleRate: sampleRate)
            let start = job.storage + (Self.preroll - job.preroll) * channels + channel
            if job.preroll > 0 { scanner.add(start, count: job.preroll, stride: channels, counting: false) }
            let block = start + job.preroll * channels
            if let ceiling {
                var runs = OverRuns(kind: .truePeak, channel: channel, gap: gap, limit: 10_000)
                scanner.add(block, count: job.frames, stride: channels, counting: true, ceiling: ceiling,
                            firstFrame: job.firstFrame, overs: &runs)
                runs.close()
                found += runs.runs
                leftOut += runs.leftOut
            } else {
                scanner.add(block, count: job.frames, stride: channels)
            }
            // The pre-roll's samples belong to the block before, which counts them.
            peaks[channel] = max(scanner.interpolatedPeak, Self.samplePeak(block, count: job.frames, stride: channels))
        }
        state.withLockBroadcasting { state in
            for channel in 0..<channels { state.peaks[channel] = max(state.peaks[channel], peaks[channel]) }
            // At most 10 000 runs a channel over the whole file; more are counted only.
            let room = max(0, 10_000 * channels - state.overs.count)
            state.overs += found.prefix(room)
            state.oversLeftOut += leftOut + max(0, found.count - room)
            state.free.append(job.storage)
        }
    }

    private static func samplePeak(_ samples: UnsafePointer<Float>, count: Int, stride: Int) -> Float {
        var peak: Float = 0
        for index in 0..<count { peak = max(peak, abs(samples[index * stride])) }
        return peak
    }
}
