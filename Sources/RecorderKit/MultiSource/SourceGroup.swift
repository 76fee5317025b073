// Several sources in one take: one record stream per source on one connection, placed by when each captured,
// kept on the first source's clock, and joined frame by frame into the recorder's buffers.
import Glibc
import Synchronization

/// The capture side of a take from several sources. Each source has its own record stream (a
/// `CaptureStream` with its own buffers, so each keeps its own losses, suspensions and reconnection),
/// all on one connection and so one mainloop thread. After every read there, the group moves what every
/// source has captured into the recorder's buffers, each source's channels after the one before, as
/// far as every source has frames for: a take frame is written once all its sources' frames are there.
///
/// Placement: the group asks the server where each stream's capture stands, every source in the same
/// mainloop iteration, ten times a second. From the first answers it
/// places each source's first frame on the take (`align`), so one sound reaching every source at once
/// lands on one frame; from all of them it follows each source's clock against the first's
/// (`LaneClock`), and a source that drifts is resampled to stay where the first source's clock says
/// (see `SourceLane`).
///
/// Joining runs on the mainloop thread: copies and, for a drifting source, libsoxr's resampling of
/// each buffer into storage allocated at the start; nothing waits, nothing allocates, no disk or user
/// code. (Resampling there is what PipeWire does in its graph thread and JACK's alsa_in in its process
/// callback.) Every other call runs under the mainloop lock.
final class SourceGroup: CallbackTarget, CaptureListener, CaptureSide, @unchecked Sendable {
    // @unchecked Sendable: `filler`, `flush`, `aligned`, the round fields and the lanes' mutable state are
    // touched only under the mainloop lock (callbacks, or `withLock`); the rest are atomics or immutable.
    let connection: PulseConnection
    let lanes: [SourceLane]
    let format: StreamFormat
    let pool: BufferPool
    let dataReady: Semaphore
    var filler: BufferFiller
    let notices = NoticeRing()
    let stalled = Atomic<Bool>(false)
    let closed = Atomic<Bool>(false)
    var wake = MainloopWake.none
    var flush: CaptureStream.Flush?
    var timer: OpaquePointer?
    var round = 0
    private var completedRound = 0
    /// The first source's frames per nanosecond of the server's clock (measured at every round).
    private var referenceRate: Double
    private var referenceMark: (time: Int64, frames: Double)?
    /// When the timing timer last fired (CLOCK_MONOTONIC ns).
    var lastTick: Int64 = 0
    /// Rounds up to this one straddle a stall or a loss: their answers are not observations.
    private var unreliableUntilRound = 0
    private(set) var aligned = false
    private var referenceFlowingRounds = 0
    private var firstReadyRound: Int?
    private let scratch: UnsafeMutableRawPointer
    private let scratchFrames = 4_096

    let sourceName: String
    var sourceNames: [String] { lanes.map(\.capture.sourceName) }
    var serverName: String { connection.serverName }

    /// Opens one stream per source (each source's own channels, unless `channelsPerSource`), at the
    /// take's rate and sample format. Throws the first source that cannot be opened, with every stream
    /// closed.
    init(sources: [String], channels: [Int], rate: Int, sampleFormat: SampleFormat, connection: PulseConnection,
         bufferFrames: Int, maxQueueFrames: Int?, pool: BufferPool, dataReady: Semaphore,
         correctsDrift: Bool, fragmentFrames: [Int]? = nil) throws(RecorderError) {
        self.connection = connection
        format = StreamFormat(takeRate: rate, channelCount: channels.reduce(0, +), sampleFormat: sampleFormat)
        self.pool = pool
        self.dataReady = dataReady
        filler = BufferFiller(pool: pool, bytesPerFrame: format.bytesPerFrame, dataReady: dataReady)
        referenceRate = Double(rate) / 1e9
        scratch = .allocate(byteCount: scratchFrames * format.bytesPerFrame, alignment: 16)
        var made: [SourceLane] = []
        let lagLimit = Self.lagLimit(rate: rate, fragmentFrames: (fragmentFrames ?? []) + [bufferFrames])
        for (index, source) in sources.enumerated() {
            do throws(RecorderError) {
                let laneFormat = try StreamFormat(sampleRate: rate, channelCount: channels[index], sampleFormat: sampleFormat)
                let laneFrames = fragmentFrames.flatMap { $0.indices.contains(index) ? $0[index] : nil } ?? bufferFrames
                let lanePool = BufferPool(count: 4, capacityBytes: laneFrames * laneFormat.bytesPerFrame)
                let capture = try CaptureStream(format: laneFormat, source: source, server: nil, clientName: "",
                                                fragmentBytes: laneFrames * laneFormat.bytesPerFrame,
                                                maxQueueBytes: maxQueueFrames.map { $0 * laneFormat.bytesPerFrame },
                                                pool: lanePool, dataReady: dataReady, shared: connection)
                made.append(SourceLane(index: index, capture: capture, format: laneFormat, correctsDrift: correctsDrift,
                                       lagLimit: lagLimit))
            } catch {
                for lane in made { lane.capture.close() }
                scratch.deallocate()
                throw error
            }
        }
        lanes = made
        sourceName = made.map(\.capture.sourceName).joined(separator: ", ")
        connection.withLock { lock in
            wake = MainloopWake(on: connection, userdata: userdata, lock) { api, event, userdata in
                MainloopWake.settle(api, event)
                SourceGroup.from(userdata)?.woke()
            }
            for lane in lanes {
                lane.group = self
                lane.capture.listener = self
            }
            startTimer(lock)
        }
    }

    deinit {
        close()
        scratch.deallocate()
    }

    // MARK: Joining (the mainloop thread, lock held)

    func captureDidRead(_ capture: CaptureStream) { mix(.inCallback) }

    /// The group's wake-up: a consumer freed a buffer, or a stop asks for a flush.
    func woke() {
        guard !closed.load(ordering: .acquiring) else { return }
        let lock = MainloopLock.inCallback
        guard flush != nil else { return mix(lock) }
        // A flush: every source hands on what it holds, and the take takes all it can, until it stands
        // still (or reaches the target). A source waiting for its clock after a loss waits no more.
        settleHolds(filler.framePosition, referenceOffset: lanes[0].offset, giveUp: true)
        var last: Int64 = -1
        while filler.framePosition != last {
            last = filler.framePosition
            for lane in lanes {
                if let link = lane.capture.link { lane.capture.readAvailable(link.stream) }
                lane.capture.filler.handOff()
            }
            mix(lock)
            if let target = flush?.target, filler.framePosition >= target { break }
        }
        answerFlush()
    }

    /// Moves every source's captured frames into the take's buffers, as far as all have them.
    func mix(_ lock: MainloopLock) {
        guard aligned, !closed.load(ordering: .acquiring) else { return }
        forwardNotices()
        let referenceOffset = lanes[0].offset
        while true {
            let position = filler.framePosition
            var frames = scratchFrames
            for lane in lanes {
                lane.pump(takeTail: position + Int64(lane.ready.count), referenceOffset: referenceOffset, lock)
                frames = min(frames, lane.ready.count)
            }
            if standInForLaggards(position) { continue }
            if settleHolds(position, referenceOffset: referenceOffset, giveUp: false) { continue }
            guard frames > 0 else {
                stalled.store(false, ordering: .releasing)
                return
            }
            // Only what the take's buffers can take now is copied: with them full (the delivery thread
            // behind), a read that copied a backlog of seconds to take none of it made each of the
            // source's small fragments cost that much, and the mainloop, busy with it, held the lock
            // the delivery thread needed to free a buffer.
            let room = filler.roomBytes / format.bytesPerFrame
            guard room > 0 else {
                stalled.store(true, ordering: .sequentiallyConsistent)
                atomicMemoryFence(ordering: .sequentiallyConsistent)
                if pool.free.isEmptyForConsumer { return }
                continue
            }
            frames = min(frames, room)
            var offset = 0
            for lane in lanes {
                lane.ready.peek(frames, into: scratch + offset, stride: format.bytesPerFrame)
                offset += lane.format.bytesPerFrame
            }
            let taken = filler.append(scratch, frames * format.bytesPerFrame) / format.bytesPerFrame
            for lane in lanes { lane.ready.discard(taken) }
            if taken < frames {
                // No free buffer: as the record stream does (see `CaptureStream.readAvailable`).
                stalled.store(true, ordering: .sequentiallyConsistent)
                atomicMemoryFence(ordering: .sequentiallyConsistent)
                if pool.free.isEmptyForConsumer { return }
            }
        }
    }

    /// When one source has frames ready past its lag limit and another has fallen that far behind it,
    /// the one behind gets silence for the excess (counted and placed as its loss) so the take goes on.
    /// True if any was put in.
    private func standInForLaggards(_ position: Int64) -> Bool {
        guard let most = lanes.map(\.ready.count).max() else { return false }
        var stoodIn = false
        // A source not placed yet (it has delivered nothing) is silence as far as the others have frames:
        // its start offset, not a loss.
        for lane in lanes where !lane.isPlaced && lane.ready.count < most {
            lane.padUnplaced(frames: most - lane.ready.count)
            stoodIn = true
        }
        for lane in lanes where lane.isPlaced && most - lane.ready.count > lane.lagLimit {
            let tail = position + Int64(lane.ready.count)
            let count = lane.standIn(frames: most - lane.ready.count - lane.lagLimit)
            guard count > 0 else { continue }
            let gone = lane.capture.link == nil
            breakLines(after: lane)
            notices.push(CaptureNotice(kind: gone ? .gap : .dropped, frame: tail, count: Int64(count), source: lane.index))
            dataReady.post()
            stoodIn = true
        }
        return stoodIn
    }

    /// Answers after a loss whose median places the source when a hold ends (a second of rounds, after those
    /// left out; each scatters by a tenth of a millisecond idle, and the median keeps a late one out). With
    /// five, half a second's, the first answers after a stall still leaned while the server and this process
    /// caught up: two of eleven stalled takes beside `scripts/busy` and another suite stood 8 and 9 frames
    /// (1.1 ms at 8 kHz) off at once, where the line later put them.
    static let holdAnswers = 10

    /// Ends the holds of sources waiting at one (see `SourceLane.hold`) whose clock has `holdAnswers` after the
    /// loss, or all with `giveUp` (a stop's flush) or that wait too long (the others within half a second of
    /// standing silence in for them, or, with the frames set aside filling the lag limit, the source's own
    /// queue half way to dropping: the resampler's pull closes what is left). True if any ended.
    @discardableResult
    func settleHolds(_ position: Int64, referenceOffset: Int64, giveUp: Bool) -> Bool {
        guard let most = lanes.map(\.ready.count).max() else { return false }
        var ended = false
        for lane in lanes where lane.hold != nil && (giveUp || lane.isWaitingAtHold) {
            let late = most - lane.ready.count > lane.lagLimit - format.sampleRate / 2 || lane.capture.isFillingUp(.inCallback)
            guard giveUp || late || lane.clock.answersSinceBreak >= Self.holdAnswers else { continue }
            let tail = position + Int64(lane.ready.count)
            guard let notice = lane.endHold(takeTail: tail, referenceOffset: referenceOffset, correcting: !giveUp && !late) else { continue }
            // At a stop nothing follows the loss; otherwise a hold ended early is placed by the count alone.
            if late && !giveUp { lane.placedByCount.add(1, ordering: .relaxed) }
            if notice.count > 0 {
                notices.push(notice)
                dataReady.post()
            }
            ended = true
        }
        return ended
    }

    /// Each source's notices, placed on the take and marked with the source (less what the group has
    /// already told by standing silence in).
    private func forwardNotices() {
        for lane in lanes {
            while var notice = lane.capture.notices.pop() {
                if notice.count > 0, notice.kind != .moved, notice.kind != .suspended, notice.frame < lane.coveredUntil {
                    let told = min(notice.count, lane.coveredUntil - notice.frame)
                    notice.frame += told
                    notice.count -= told
                    if notice.count == 0 { continue }
                }
                if notice.count > 0, notice.kind != .suspended { breakLines(after: lane) }
                if flush == nil, lane.holdForLevel(notice) { continue }  // reported when the hold ends
                notice.frame = takeFrame(of: Double(notice.frame), in: lane)
                notice.source = lane.index
                notices.push(notice)
                dataReady.post()
            }
        }
    }

    /// A loss in `lane`: its clock's level may have stepped against the first source's (the first's:
    /// every other's), never its rate (see `LaneClock.breakLine`).
    private func breakLines(after lane: SourceLane) {
        for other in lanes.dropFirst() where lane.index == 0 || other === lane { other.clock.breakLine() }
        // Answers out now were taken before the loss was counted (its silence is in the watch's figures
        // from the answer that found it, in the take once reading reaches it): not observations.
        unreliableUntilRound = max(unreliableUntilRound, round)
    }

    /// The process stood still (the timer fired half a second late or more): the answers of the round in
    /// progress straddle the stall, and every source may have lost audio that its watch counts only at
    /// its next answer. No observation is taken until a round asked after the watches have answered.
    func stoodStill() {
        for lane in lanes.dropFirst() { lane.clock.breakLine() }
        unreliableUntilRound = max(unreliableUntilRound, round + Self.roundsAfterStall)
        referenceMark = nil
    }

    /// Rounds not observed after a stall: the one out and the next two (the watches ask at once, and
    /// their answers come before the next round's; then the sources' clocks leave out their first answers).
    static let roundsAfterStall = 3

    /// The take frame that source frame `frame` of `lane` lands on (at its present ratio).
    func takeFrame(of frame: Double, in lane: SourceLane) -> Int64 {
        let tail = filler.framePosition + Int64(lane.ready.count)
        return tail + Int64((frame - lane.inputPositionNow).rounded())
    }

    // MARK: Placement (the mainloop thread, lock held)

    /// A source answered; the round is complete once every source has.
    func laneAnswered(_ lane: SourceLane) {
        if lanes.allSatisfy({ $0.observation?.round == round }) { completeRound() }
    }

    /// Adds this round's answers to each source's clock (the first source's position taken at each
    /// source's moment), and places the sources once each has two answers with data flowing.
    func completeRound() {
        guard completedRound < round else { return }
        completedRound = round
        guard let reference = lanes[0].observation, reference.round == round, reference.flowing else { return }
        referenceFlowingRounds += 1
        // A source whose watch counted a loss since its last answer: its count stepped.
        for lane in lanes where lane.steppedAtRound == round { breakLines(after: lane) }
        // A source whose watch follows a shortfall it cannot explain yet: its count may be short by a loss
        // not placed (its silence is counted later, where reading stands), so no round is an observation.
        let reliable = round > unreliableUntilRound && !lanes.contains { $0.capture.watch.countInDoubt }
        if !reliable {
            referenceMark = nil
        } else if let mark = referenceMark {
            // Measured over a second or more: the first source's position is carried to another
            // source's moment at its own rate, not the nominal one. A rate further from nominal than
            // any clock runs is a step in the first source's count (a loss) inside the window: not kept.
            if reference.time - mark.time >= 990_000_000 {
                let measured = (reference.frames - mark.frames) / Double(reference.time - mark.time)
                let nominal = Double(format.sampleRate) / 1e9
                if measured.isFinite, abs(measured / nominal - 1) <= LaneResampler.maximumDeviation { referenceRate = measured }
                referenceMark = (reference.time, reference.frames)
            }
        } else {
            referenceMark = (reference.time, reference.frames)
        }
        for lane in lanes.dropFirst() where reliable {
            guard let observed = lane.observation, observed.round == round, observed.flowing else { continue }
            let first = reference.frames + Double(observed.time - reference.time) * referenceRate
            lane.clock.add(reference: first, difference: observed.frames - first)
            lane.driftMicro.store(Int64((lane.clock.ppm * 1_000).rounded()), ordering: .relaxed)
            if lane.clock.slope != 0 { lane.driftKnown.store(true, ordering: .relaxed) }
        }
        if !aligned {
            // The first source and every source that delivers are placed; one that has delivered nothing
            // two seconds after the first was ready is placed when it does (`placeLate`).
            if firstReadyRound == nil, referenceFlowingRounds >= Self.placingRounds { firstReadyRound = round }
            let waited = firstReadyRound.map { round - $0 >= Self.lateSourceRounds } ?? false
            let ready = lanes.dropFirst().allSatisfy { $0.clock.count >= Self.placingRounds }
            if firstReadyRound != nil && (ready || waited) {
                align()
                mix(.inCallback)
            }
        } else {
            for lane in lanes where !lane.isPlaced && lane.clock.count >= Self.placingRounds {
                let offset = lanes[0].offset - Int64(lane.clock.placingDifference.rounded())
                let left = lane.placeLate(at: offset, tail: filler.framePosition + Int64(lane.ready.count))
                if left > 0 {
                    notices.push(CaptureNotice(kind: .dropped, frame: offset, count: left, source: lane.index))
                    dataReady.post()
                }
            }
        }
    }

    /// How far (frames) a source may lag behind another before the group stands silence in for it: three
    /// seconds, or two of the largest fragment asked of any source if more (a source with larger
    /// fragments or a larger latency than the others lags legitimately by about one).
    static func lagLimit(rate: Int, fragmentFrames: [Int]) -> Int { max(3 * rate, 2 * (fragmentFrames.max() ?? 0)) }

    /// Timing rounds after the first source is placed that a source which has delivered nothing is waited
    /// for before the take begins without it (it joins, at its place, when it delivers).
    static let lateSourceRounds = 20

    /// Answers a source's place is the median of (each scatters ±0.25 ms idle; a late one by ten
    /// milliseconds and more): the take's first buffer waits for them, about a second.
    static let placingRounds = 8

    /// Places each source's first frame on the take: the take begins with the source that began first,
    /// and every other begins with silence for as long as it began after it.
    private func align() {
        let placed = lanes.filter { $0.index == 0 || $0.clock.count >= Self.placingRounds }
        let differences = placed.map { $0.index == 0 ? 0 : $0.clock.placingDifference.rounded() }
        let first = max(0, differences.max() ?? 0)
        for (lane, difference) in zip(placed, differences) {
            lane.place(at: Int64(first - difference))
        }
        aligned = true
    }

    // MARK: CaptureSide

    var isFailed: Bool { lanes.contains { $0.capture.failed.load(ordering: .acquiring) } }
    var failedSourceName: String {
        lanes.first { $0.capture.failed.load(ordering: .acquiring) }?.capture.sourceName ?? sourceName
    }
    var isClosed: Bool { closed.load(ordering: .acquiring) }
    var isStalled: Bool { stalled.load(ordering: .sequentiallyConsistent) }
    func resume() { withLock { wake.request($0) } }
    var droppedFrameCount: Int64 { lanes.reduce(0) { $0 + $1.capture.droppedFrames.frames } }
    var gapFrameCount: Int64 { lanes.reduce(0) { $0 + $1.capture.gapFrames.frames } }
    var latencyMicroseconds: Int64 { lanes[0].capture.sourceLatency.load(ordering: .relaxed) }

    func withLock<T>(_ body: (MainloopLock) -> T) -> T { connection.withLock(body) }

    /// Each source's figures, from what the mainloop publishes (atomics): no lock taken.
    func sourceReports(sampleRate: Int) -> [SourceReport] {
        var first = 0
        return lanes.map { lane in
            defer { first += lane.format.channelCount }
            let measured = lane.driftKnown.load(ordering: .relaxed)
            return SourceReport(name: lane.capture.sourceName, firstChannel: first, channelCount: lane.format.channelCount,
                                sampleRate: sampleRate, startOffsetFrames: lane.offsetFrames.load(ordering: .relaxed),
                                driftPPM: lane.index == 0 ? 0 : measured ? Double(lane.driftMicro.load(ordering: .relaxed)) / 1_000 : nil,
                                isCorrectingDrift: lane.correcting.load(ordering: .relaxed),
                                droppedFrames: lane.capture.droppedFrames.frames, gapFrames: lane.capture.gapFrames.frames,
                                lossesPlacedByCount: lane.placedByCount.load(ordering: .relaxed))
        }
    }
    func framePosition(_ lock: MainloopLock) -> Int64 { filler.framePosition }
    func handOffPartial(_ lock: MainloopLock) { filler.handOff() }

    /// The take frame being captured now, by the first source.
    func positionNow(_ lock: MainloopLock) -> Int64 {
        aligned ? lanes[0].capture.positionNow(lock) + lanes[0].offset : filler.timelineFrames
    }

    func frameCaptured(at time: Int64, _ lock: MainloopLock) -> Int64 {
        lanes[0].capture.frameCaptured(at: time, lock) + (aligned ? lanes[0].offset : 0)
    }

    func currentSourceName(_ lock: MainloopLock) -> String {
        lanes.map { $0.capture.currentSourceName(lock) }.joined(separator: ", ")
    }

    /// Releases every failed stream; returns when the earliest of them stopped capturing.
    func detachFailed() -> Int64 {
        lanes.filter { $0.capture.failed.load(ordering: .acquiring) }.map { $0.capture.detachFailed() }.min() ?? monotonicNanoseconds()
    }

    /// Reconnects every source that has no stream; returns the longest gap.
    func reconnect(lostAt: Int64) throws(RecorderError) -> Int64 {
        var gap: Int64 = 0
        for lane in lanes where withLock({ _ in lane.capture.link == nil }) {
            gap = max(gap, try lane.capture.reconnect(lostAt: lostAt))
        }
        return gap
    }

    func close() {
        let first = withLock { lock -> Bool in
            guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return false }
            wake.free(lock)
            stopTimer(lock)
            for lane in lanes { lane.cancelTiming(lock) }
            return true
        }
        guard first else { return }
        for lane in lanes { lane.capture.close() }
        connection.close()
    }
}
