// What happens to each decoded block of an analysis after the decoding thread has measured it: its true
// peak (and overs) scanned by whichever thread is free, and the stages that need the blocks in order
// (the loudness meter, the taps) run one block after another, each stage on whichever thread takes it.
// So the file is decoded once, and its work spreads over every core.
import Glibc
import Locking

/// Hands decoded blocks to the threads that work on them. The decoding thread calls `buffer()`, fills
/// it, `submit`s it, and at the end `finish(join:)`; helpers run `work()`. A block's buffer is free
/// again once its true peak is scanned and every ordered stage has seen it.
///
/// True peak: a block's scan starts from fresh interpolators fed the `preroll` frames before it, with
/// their outputs left out: the interpolator spans 13 input frames, so from the block's first frame on
/// every value is the one a single scan over the file computes (and so are the overs).
///
/// Ordered stages: each takes the blocks in the order they were submitted, one at a time, on whichever
/// thread is free; a stage's state is touched by one thread at a time, handed over under this object's
/// lock (which orders the memory), so a stage may hold state that is not thread-safe.
final class BlockWork: @unchecked Sendable {
    // @unchecked Sendable: a buffer's floats are touched by its writers and readers only while its
    // job is theirs (free → the decoder → queued → scanned and staged → free), handed over only under
    // `state`'s lock; the stages are run one at a time each (`busy`); the rest is in `state` or immutable.
    struct Job {
        /// The buffer: `BlockWork.preroll` frames' room, of which the last `preroll` hold the frames
        /// before the block, then the block.
        let storage: UnsafeMutablePointer<Float>
        /// The file frame of the block's first frame (after the pre-roll).
        let firstFrame: Int64
        let preroll: Int
        let frames: Int
        /// Its place in the order of submission.
        let sequence: Int
    }

    struct State {
        var free: [UnsafeMutablePointer<Float>]
        /// Blocks whose true peak is still to scan.
        var scans: [Job] = []
        /// Per ordered stage: blocks it has still to see (in order), whether a thread is running it.
        var staged: [[Job]]
        var busy: [Bool]
        /// Per buffer: parts of its work not done yet.
        var remaining: [UnsafeMutablePointer<Float>: Int] = [:]
        var submitted = 0
        var finished = false
        var peaks: [Float]
        var overs: [Over] = []
        var oversLeftOut = 0

        var idle: Bool { scans.isEmpty && staged.allSatisfy(\.isEmpty) && !busy.contains(true) }
        /// Whether a thread could take work now.
        var hasWork: Bool { !scans.isEmpty || staged.indices.contains { !busy[$0] && !staged[$0].isEmpty } }
    }

    /// One piece of work a thread took.
    enum Work {
        case scan(Job)
        case stage(Int, Job)
    }

    static let preroll = 64
    let channels: Int
    let sampleRate: Int
    /// Frames of one block.
    let blockFrames: Int
    /// Linear ceiling above which overs are noted; nil: overs not asked for.
    let ceiling: Float?
    let gap: Int64
    /// The ordered stages, each called with a block's frames (interleaved).
    private let stages: [@Sendable (UnsafeBufferPointer<Float>) -> Void]
    private let state: Locked<State>
    private let buffers: [UnsafeMutablePointer<Float>]

    /// `helpers` threads will call `work()` (0: the decoding thread does all the work itself).
    init(channels: Int, sampleRate: Int, blockFrames: Int, helpers: Int, ceiling: Float?, gap: Int64,
         stages: [@Sendable (UnsafeBufferPointer<Float>) -> Void]) {
        self.channels = channels
        self.sampleRate = sampleRate
        self.blockFrames = blockFrames
        self.ceiling = ceiling
        self.gap = gap
        self.stages = stages
        let floats = (Self.preroll + blockFrames) * channels
        // Enough for every thread to hold one while the stages lag a block or two behind.
        buffers = (0..<(helpers + 2 + 2 * stages.count)).map { _ in
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: floats)
            buffer.initialize(repeating: 0, count: floats)
            return buffer
        }
        state = Locked(State(free: buffers, staged: stages.map { _ in [] }, busy: stages.map { _ in false },
                             peaks: [Float](repeating: 0, count: channels)))
    }

    deinit { for buffer in buffers { buffer.deallocate() } }

    /// Work that may be done now: the next block of a stage no thread is running, else a scan.
    private static func take(_ state: inout State) -> Work? {
        for stage in state.staged.indices where !state.busy[stage] && !state.staged[stage].isEmpty {
            state.busy[stage] = true
            return .stage(stage, state.staged[stage].removeFirst())
        }
        if !state.scans.isEmpty { return .scan(state.scans.removeFirst()) }
        return nil
    }

    /// A free buffer of `(preroll + blockFrames) × channels` floats; when none is free, this thread
    /// does waiting work first (so the decoder is never idle while work waits).
    func buffer() -> UnsafeMutablePointer<Float> {
        while true {
            var work: Work?
            let buffer: UnsafeMutablePointer<Float>? = state.withLock { state in
                if let buffer = state.free.popLast() { return buffer }
                work = Self.take(&state)
                return nil
            }
            if let buffer { return buffer }
            if let work {
                run(work)
            } else {
                _ = state.wait { !$0.free.isEmpty || $0.hasWork }
            }
        }
    }

    /// Queues a filled buffer: the last `preroll` of its first `Self.preroll` frames hold the frames before
    /// the block, then come the block's `frames` frames from `firstFrame`.
    func submit(_ storage: UnsafeMutablePointer<Float>, firstFrame: Int64, preroll: Int, frames: Int) {
        state.withLockBroadcasting { state in
            let job = Job(storage: storage, firstFrame: firstFrame, preroll: preroll, frames: frames, sequence: state.submitted)
            state.submitted += 1
            state.remaining[storage] = 1 + stages.count
            state.scans.append(job)
            for stage in state.staged.indices { state.staged[stage].append(job) }
        }
    }

    /// Gives back a buffer that was not filled.
    func giveBack(_ storage: UnsafeMutablePointer<Float>) {
        state.withLockBroadcasting { $0.free.append(storage) }
    }

    /// A helper's loop: does work until `finish` and none is left.
    func work() {
        while true {
            var work: Work?
            var done = false
            _ = state.wait { $0.finished && $0.idle || $0.hasWork }
            state.withLock { state in
                work = Self.take(&state)
                done = work == nil && state.finished && state.idle
            }
            if let work { run(work) } else if done { return }
        }
    }

    /// No more blocks: this thread works until every block is done, then `join`s the helpers. Returns the
    /// linear peaks of the oversampled signal per channel and the overs.
    func finish(join: () -> Void) -> (peaks: [Float], overs: [Over], leftOut: Int) {
        state.withLockBroadcasting { $0.finished = true }
        while true {
            var work: Work?
            let idle = state.withLock { state -> Bool in
                work = Self.take(&state)
                return work == nil && state.idle
            }
            if let work {
                run(work)
            } else if idle {
                break
            } else {
                _ = state.wait { $0.idle || $0.hasWork }
            }
        }
        join()
        return state.withLock { state in
            let overs = (0..<channels).flatMap { channel in
                OverRuns.joined(state.overs.filter { $0.channel == channel }, gap: gap)
            }
            return (state.peaks, overs, state.oversLeftOut)
        }
    }

    private func run(_ work: Work) {
        switch work {
        case .scan(let job):
            scan(job)
        case .stage(let stage, let job):
            let block = job.storage + Self.preroll * channels
            stages[stage](UnsafeBufferPointer(start: block, count: job.frames * channels))
            state.withLockBroadcasting { state in
                state.busy[stage] = false
                Self.partDone(job.storage, &state)
            }
        }
    }

    private static func partDone(_ storage: UnsafeMutablePointer<Float>, _ state: inout State) {
        let left = (state.remaining[storage] ?? 1) - 1
        if left == 0 {
            state.remaining[storage] = nil
            state.free.append(storage)
        } else {
            state.remaining[storage] = left
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
            // Oversampled values only: the samples' own peak is the decoding thread's.
            peaks[channel] = scanner.interpolatedPeak
        }
        state.withLockBroadcasting { state in
            for channel in 0..<channels { state.peaks[channel] = max(state.peaks[channel], peaks[channel]) }
            // At most 10 000 runs a channel over the whole file; more are counted only.
            let room = max(0, 10_000 * channels - state.overs.count)
            state.overs += found.prefix(room)
            state.oversLeftOut += leftOut + max(0, found.count - room)
            Self.partDone(job.storage, &state)
        }
    }
}
