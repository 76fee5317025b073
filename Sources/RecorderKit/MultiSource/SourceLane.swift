// One source of a several-source take: its record stream, its clock against the first source, and its frames on
// their way into the take (as captured, or through the adaptive resampler once its clock drifts).
import Glibc
import Synchronization

/// A source of a `SourceGroup`. Everything here runs on the mainloop thread with the lock held (the
/// stream's callbacks, the group's mixing), except the figures `report` reads (atomics).
///
/// Invariant: the first frame of `ready` is the take frame the group writes next, and `inputPosition`
/// is the source frame the end of `ready` stands for. A source is placed on the take at `offset` (the
/// take frame of its frame 0, from when each source captured, see `SourceGroup.align`); from there it
/// passes as captured, byte for byte, until its clock has drifted `deadband` frames from the first
/// source's, and from then on through libsoxr at the ratio that keeps it where the first source's clock
/// says it should be.
final class SourceLane: CallbackTarget {
    let index: Int
    let capture: CaptureStream
    /// The stream's format: the take's rate and sample format, the source's channels.
    let format: StreamFormat
    /// Frames ready for the take, in the stream's format.
    let ready: FrameRing
    /// The last frames passed as captured: the resampler is primed with them when it takes over.
    private let history: FrameRing
    private var current: Int?
    private var currentOffset = 0
    /// Take frame of the source's frame 0 (known once aligned).
    var offset: Int64 = 0
    /// Silence still to go before the source's first frame (it began after the take did).
    var leadingSilence: Int64 = 0
    /// The source frame the end of `ready` stands for.
    private(set) var inputPosition = 0.0
    var clock: LaneClock
    private(set) var resampler: LaneResampler?
    let correctsDrift: Bool
    /// How far (frames) the source may drift before the resampler takes over: 0.5 ms, past what the
    /// server's timing answers scatter (±0.25 ms between two monitors of one clock), judged once ten
    /// seconds of them are fitted.
    let deadband: Double
    /// What the stream delivered past a hold while reading waits at it, moved out of the capture's buffers
    /// so that they go on filling: left in them, the stream's own queue filled in a second and a half and
    /// the hold gave up before the clock had answered (a loaded machine's answers come late). Read before
    /// the capture's buffers, first in first out: it only ever holds the frames that follow `consumedFrames`.
    /// Allocated once (a lag limit of frames); its pages are touched only while a hold waits.
    private let setAside: FrameRing
    /// True while the input being read comes from `setAside`.
    private var readingSetAside = false
    /// Decoding and encoding room: `chunkFrames` frames of floats, and of bytes.
    private let chunkFrames = 4_096
    private let bytes: UnsafeMutableRawPointer
    private let history0: UnsafeMutableRawPointer

    // Timing rounds (see `SourceGroup`): the server's answer for this source, per round.
    var timingOperation: OpaquePointer?
    /// At `time` (the server's clock, ns) the source had captured `frames` frames; `flowing`: data had
    /// reached the stream by then.
    var observation: (round: Int, time: Int64, frames: Double, flowing: Bool)?
    weak var group: SourceGroup?
    /// The round the request out belongs to.
    var pendingRound = 0
    /// The silence the watch had placed outside the server's indices at the last answer, and the round
    /// whose answer first counted more (the source's count stepped there: a loss).
    var countedSilence: Int64 = 0
    var steppedAtRound: Int?

    /// Figures for `SourceReport`, read from any thread.
    let offsetFrames = Atomic<Int64>(0)
    let driftMicro = Atomic<Int64>(0)  // ppm × 1 000
    /// Set once the clock claims a slope (a second of audio observed).
    let driftKnown = Atomic<Bool>(false)
    let correcting = Atomic<Bool>(false)
    /// Holds ended without the clock's answers (`SourceReport.lossesPlacedByCount`).
    let placedByCount = Atomic<Int>(0)

    init(index: Int, capture: CaptureStream, format: StreamFormat, correctsDrift: Bool, lagLimit: Int) {
        self.index = index
        self.capture = capture
        self.format = format
        self.correctsDrift = correctsDrift
        // Room for the lag a source may have behind the others (see `lagLimit`), and two chunks more.
        self.lagLimit = lagLimit
        ready = FrameRing(capacityFrames: lagLimit + 2 * chunkFrames + 1_024, bytesPerFrame: format.bytesPerFrame)
        history = FrameRing(capacityFrames: 2_048, bytesPerFrame: format.bytesPerFrame)
        setAside = FrameRing(capacityFrames: lagLimit, bytesPerFrame: format.bytesPerFrame)
        // Answers scatter by a tenth of a millisecond idle: a quarter of one is the least an outlier is.
        clock = LaneClock(minimumSpread: 10 * Double(format.sampleRate), scatterFloor: 0.000_25 * Double(format.sampleRate))
        deadband = Double(format.sampleRate) * 0.000_5
        bytes = .allocate(byteCount: 2 * (chunkFrames * 2 + 1_024) * format.bytesPerFrame, alignment: 16)
        history0 = .allocate(byteCount: 2_048 * format.bytesPerFrame, alignment: 16)
    }

    deinit {
        bytes.deallocate()
        history0.deallocate()
    }

    var isResampling: Bool { resampler != nil }

    /// How far (frames) a source may lag behind another before the group stands silence in for it (the
    /// same for every source of a take: `SourceGroup.lagLimit`).
    let lagLimit: Int
    /// Source frames still to discard when they arrive: the group stood silence in for them.
    private var owedSkip = 0
    /// Frames taken from the source's buffers so far (silence and skipped frames included; not those set
    /// aside, until they are read): the source frame the next one taken is (the stream's own count, as its
    /// notices place things).
    private var consumedFrames: Int64 = 0

    /// A loss of this source whose length is the server's clock against its index (`estimated`): reading
    /// stops `correctionRoom` frames before the end of its silence (what arrives meanwhile is set aside)
    /// until the source's clock has settled on its level after the loss (`SourceGroup.settleHolds`), and
    /// the silence is then made as long as
    /// that level says, so the frames after it land where the source captured them against the first
    /// source, not where the count's scatter put them (a millisecond or more apart, measured). The loss is
    /// reported then, with the length it has in the take.
    private(set) var hold: (at: Int64, notice: CaptureNotice)?
    /// How much a hold may lengthen or shorten a silence (100 ms): far more than a count's error.
    var correctionRoom: Int64 { Int64(format.sampleRate / 10) }
    /// True while reading waits at the hold.
    var isWaitingAtHold: Bool { hold.map { consumedFrames >= $0.at } ?? false }

    /// Holds `notice` (a loss of this source, its frame in the stream's count) if its length is an
    /// estimate and its silence is still ahead: true if it is held (the group reports it when the hold ends).
    func holdForLevel(_ notice: CaptureNotice) -> Bool {
        guard index > 0, isPlaced, correctsDrift, notice.estimated, hold == nil,
              notice.count >= 2 * correctionRoom, notice.frame + notice.count - correctionRoom > consumedFrames else { return false }
        hold = (notice.frame + notice.count - correctionRoom, notice)
        return true
    }

    /// Ends the hold, at `takeTail` (the take frame the end of `ready` stands for): with `correcting`, the
    /// silence is lengthened or shortened by where the clock puts the source (within `correctionRoom`).
    /// Returns the held notice, placed on the take, its count what the take holds.
    func endHold(takeTail: Int64, referenceOffset: Int64, correcting: Bool) -> CaptureNotice? {
        guard var (_, notice) = hold else { return nil }
        hold = nil
        notice.frame = takeTail + Int64((Double(notice.frame) - inputPosition).rounded())
        notice.source = index
        guard correcting else { return notice }
        // Where the source stands now by its answers since the loss (their median: the fitted line keeps the
        // level before the loss until it has `settling` of them).
        let error = Double(takeTail - referenceOffset) + clock.placingDifference - inputPosition
        let frames = Int64(max(-Double(correctionRoom), min(Double(correctionRoom), error)).rounded())
        if frames > 0 {
            // Behind where its clock puts it: that much of the silence is left out.
            owedSkip += Int(frames)
            inputPosition += Double(frames)
            notice.count -= frames
        } else if frames < 0 {
            notice.count += Int64(ready.push(nil, frames: Int(-frames)))
        }
        return notice
    }
    /// The source frame up to which the group has stood silence in: the source's own notices before it
    /// are told already.
    private(set) var coveredUntil = Int64.min

    /// Stands `frames` frames of silence in for a source that lags too far (its stream stalled or gone):
    /// the frames they stand for are discarded when they arrive. Returns how many were put in.
    func standIn(frames: Int) -> Int {
        let pushed = ready.push(nil, frames: frames)
        owedSkip += pushed
        inputPosition += Double(pushed)
        coveredUntil = Int64(inputPosition.rounded(.up))
        return pushed
    }

    /// The source frame the end of `ready` stands for.
    var inputPositionNow: Double { inputPosition }

    /// Places the source's frame 0 at take frame `offset` (0 or more): silence goes before it.
    func place(at offset: Int64) {
        self.offset = offset
        leadingSilence = offset
        inputPosition = -Double(offset)
        offsetFrames.store(offset, ordering: .relaxed)
        isPlaced = true
    }

    /// False until placed: the source delivers nothing yet, and its channels are silence.
    private(set) var isPlaced = false

    /// Silence for a source not placed yet, as far as the take has gone.
    func padUnplaced(frames: Int) {
        ready.push(nil, frames: frames)
    }

    /// Places a source that began after the take: at `offset`, with its channels silent up to there; if the
    /// take has already gone past it (`tail`), the frames it captured before then are left out (a loss,
    /// returned).
    @discardableResult
    func placeLate(at offset: Int64, tail: Int64) -> Int64 {
        self.offset = offset
        leadingSilence = max(0, offset - tail)
        inputPosition = Double(tail - offset)
        owedSkip = Int(max(0, tail - offset))
        offsetFrames.store(offset, ordering: .relaxed)
        isPlaced = true
        return Int64(owedSkip)
    }

    /// Moves captured frames into `ready` while it has room. `takeTail` is the take frame the end of
    /// `ready` stands for; `referenceOffset`, the first source's `offset`.
    func pump(takeTail: Int64, referenceOffset: Int64, _ lock: MainloopLock) {
        var tail = takeTail
        while ready.room > 0 {
            if leadingSilence > 0 {
                let pushed = ready.push(nil, frames: Int(min(leadingSilence, Int64(ready.room))))
                leadingSilence -= Int64(pushed)
                inputPosition += Double(pushed)
                tail += Int64(pushed)
                continue
            }
            guard let (data, available) = nextInput(lock) else { return }
            let frames = hold.map { min(available, Int(clamping: $0.at - consumedFrames)) } ?? available
            guard frames > 0 else {  // waiting at the hold: what arrives waits aside
                setAsideCaptured(lock)
                return
            }
            if owedSkip > 0 {
                let skipped = min(frames, owedSkip)
                owedSkip -= skipped
                consume(skipped, lock)
                continue
            }
            let error = index == 0 ? 0 : target(takeFrame: tail, referenceOffset: referenceOffset) - inputPosition
            if resampler == nil, correctsDrift, index > 0, clock.spread >= 10 * Double(format.sampleRate), abs(error) >= deadband {
                engage(ratio: ratio(error: error))
            }
            if let resampler {
                let ratio = ratio(error: error)
                let frames = min(frames, chunkFrames)
                // Outputs: about frames / ratio, plus what soxr held back.
                guard Double(ready.room) >= Double(frames) / ratio + 1_100 else { return }
                _ = format.sampleFormat.decode(UnsafeRawBufferPointer(start: data, count: frames * format.bytesPerFrame),
                                               into: UnsafeMutableBufferPointer(start: resampler.inputBuffer,
                                                                                count: frames * format.channelCount))
                let out = resampler.process(frames: frames, ratio: ratio)
                format.sampleFormat.encode(out, into: bytes)
                let produced = out.count / format.channelCount
                ready.push(bytes, frames: produced)
                inputPosition += Double(produced) * ratio
                tail += Int64(produced)
                consume(frames, lock)
            } else {
                let taken = ready.push(data, frames: frames)
                if history.room < taken { history.discard(taken - history.room) }
                history.push(data + max(0, taken - history.capacity) * format.bytesPerFrame, frames: min(taken, history.capacity))
                inputPosition += Double(taken)
                tail += Int64(taken)
                consume(taken, lock)
            }
        }
    }

    /// The source frame that take frame `takeFrame` stands for, by the fitted clock.
    func target(takeFrame: Int64, referenceOffset: Int64) -> Double {
        let reference = Double(takeFrame - referenceOffset)
        return reference + clock.difference(at: reference)
    }

    /// Input frames per output frame: the measured rate, and a pull toward the target that closes an
    /// error in about four seconds of audio; within ±0.5 %.
    private func ratio(error: Double) -> Double {
        let ratio = 1 + clock.slope + error / (4 * Double(format.sampleRate))
        return min(1 + LaneResampler.maximumDeviation, max(1 - LaneResampler.maximumDeviation, ratio))
    }

    /// The resampler takes over, primed with the frames just passed so its first output joins them.
    private func engage(ratio: Double) {
        let primed = history.copyLast(history.count, into: history0)
        guard let made = LaneResampler(channels: format.channelCount, chunkFrames: chunkFrames, ratio: ratio, primed: primed) else { return }
        if primed > 0 {
            _ = format.sampleFormat.decode(UnsafeRawBufferPointer(start: history0, count: primed * format.bytesPerFrame),
                                           into: UnsafeMutableBufferPointer(start: made.inputBuffer, count: primed * format.channelCount))
            let out = made.process(frames: primed, ratio: ratio)
            format.sampleFormat.encode(out, into: bytes)
            ready.push(bytes, frames: out.count / format.channelCount)
        }
        resampler = made
        correcting.store(true, ordering: .relaxed)
    }

    /// The frames to read next: those set aside at a hold, then the capture's buffers.
    private func nextInput(_ lock: MainloopLock) -> (UnsafeRawPointer, Int)? {
        if let run = setAside.firstRun() {
            readingSetAside = true
            return run
        }
        readingSetAside = false
        return nextCaptured(lock)
    }

    /// Moves the capture's buffers into `setAside` as far as it has room, freeing them to be filled.
    private func setAsideCaptured(_ lock: MainloopLock) {
        while setAside.room > 0, let (data, available) = nextCaptured(lock) {
            advanceCaptured(setAside.push(data, frames: available), lock)
        }
    }

    /// The captured frames waiting in the source's buffers, from the one being read.
    private func nextCaptured(_ lock: MainloopLock) -> (UnsafeRawPointer, Int)? {
        let pool = capture.pool
        while true {
            if current == nil {
                guard let next = pool.filled.pop() else { return nil }
                current = next
                currentOffset = 0
            }
            let index = current!
            let remaining = pool.byteCount(of: index) - currentOffset
            if remaining >= format.bytesPerFrame {
                return (UnsafeRawPointer(pool.bytes(of: index) + currentOffset), remaining / format.bytesPerFrame)
            }
            release(lock)
        }
    }

    /// `frames` of the input `nextInput` gave are taken: the source frame read next moves on.
    private func consume(_ frames: Int, _ lock: MainloopLock) {
        consumedFrames += Int64(frames)
        if readingSetAside {
            setAside.discard(frames)
        } else {
            advanceCaptured(frames, lock)
        }
    }

    /// `frames` of the buffer being read are gone (taken, or set aside).
    private func advanceCaptured(_ frames: Int, _ lock: MainloopLock) {
        guard let index = current else { return }
        currentOffset += frames * format.bytesPerFrame
        if capture.pool.byteCount(of: index) - currentOffset < format.bytesPerFrame { release(lock) }
    }

    /// Returns the buffer being read to the source's free set, and has a stalled stream read on.
    private func release(_ lock: MainloopLock) {
        guard let index = current else { return }
        current = nil
        capture.pool.free.push(index)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if capture.stalled.load(ordering: .sequentiallyConsistent) { capture.wake.request(lock) }
    }
}
