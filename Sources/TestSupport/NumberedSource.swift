// The oracle for "no frame lost": a pipe source on the private server fed a numbered sequence, so every
// frame of a take says which frame of the feed it is, and a frame missing from a take is found by number.
import Foundation
import Glibc
import RecorderKit
import Synchronization

/// A pipe source (`module-pipe-source`, on PulseAudio and on pipewire-pulse alike) named `name`, 44.1 kHz
/// mono 16-bit, fed by a thread of this process with frame after frame of a numbered sequence: frame n
/// holds `value(n)`, never 0. A take of it must hold consecutive numbers; where it does not, frames of the
/// feed are missing from it, and `check(_:gaps:)` says whose loss that is:
/// - the recorder's, unless it counted and placed it (silence of exactly the missing length there);
/// - the server's source's, when a second record stream of the same source (the witness, `parecord`,
///   started first) shows the very same numbers missing: both streams were given the same data, so the
///   frames never left the source. (Seen on pipewire-pulse under load: 512 frames skipped by its pipe
///   source, missing alike from two streams.) The witness can only clear a loss, never make one: its own
///   drops elsewhere are not compared, and it cannot drop exactly the same numbers as the take by chance
///   without the source having skipped them.
/// Silence with no number missing around it (a sink or source that played silence for want of data, a
/// stream's start) is not a loss: no frame of the feed is missing.
///
/// The feed runs at real time, 0.1 s ahead of the clock (the servers' pipe sources read what is there:
/// PulseAudio's as it comes, PipeWire's each cycle), at real-time priority where the process may have it,
/// so a loaded machine does not starve the source; `worstLateness` says how late the feed ever woke.
public final class NumberedSource: @unchecked Sendable {
    // @unchecked Sendable: the feeder shares only `state` (atomics and a semaphore) with the rest;
    // `witness` and the path are set in init and never changed.
    public static let name = "rk_numbered"
    public static let sampleRate = 44_100
    /// The sequence's period: 65 535 frames (1.49 s). A loss of a whole number of periods would hide.
    public static let period = 65_535

    /// Frame `n` of the feed: n mod 65 535 + 1, as a 16-bit pattern (never 0).
    public static func value(_ n: Int64) -> Int16 {
        Int16(bitPattern: UInt16(truncatingIfNeeded: n % Int64(period) + 1))
    }

    /// The number (0..<65 535) a sample carries, nil for silence.
    static func number(_ sample: Int16) -> Int? {
        let pattern = Int(UInt16(bitPattern: sample))
        return pattern == 0 ? nil : pattern - 1
    }

    /// What the feeder shares with the rest: atomics only.
    private final class FeedState: Sendable {
        let stopping = Atomic<Bool>(false)
        let fed = Atomic<Int64>(0)
        let lateNanoseconds = Atomic<Int64>(0)
        /// Each write: the frames fed once it returned, and when (CLOCK_REALTIME seconds).
        let writes = Mutex<[(fed: Int64, time: Double)]>([])
        let finished = DispatchSemaphore(value: 0)
    }

    private let fifo: String
    private let state = FeedState()
    private let witness: ReferenceCapture
    /// The pipe source's name on the server (`name` unless another was asked: a take of two numbered sources).
    public let sourceName: String

    /// Loads the pipe source on `server` (named `sourceName`), starts the feed and the witness, and returns
    /// once the server delivers the feed (the witness has received some).
    public init(server: PrivateServer, directory: String, sourceName: String = NumberedSource.name) async throws {
        self.sourceName = sourceName
        fifo = directory + (sourceName == Self.name ? "/numbered.fifo" : "/\(sourceName).fifo")
        let fifo = self.fifo
        try await offThread {
            try server.run("pactl", ["load-module", "module-pipe-source", "source_name=\(sourceName)", "file=\(fifo)",
                                     "format=s16le", "rate=\(Self.sampleRate)", "channels=1"])
        }
        // The server holds the FIFO open to read (and write, so it never sees an end): opening it to
        // write does not block.
        let descriptor = open(fifo, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw TestFailure("cannot open the numbered source's FIFO \(fifo): \(String(cString: strerror(errno)))") }
        let thread = Thread { [state] in
            Self.feed(descriptor, state)
            close(descriptor)
            state.finished.signal()
        }
        thread.name = "numbered feed"
        thread.start()
        do {
            witness = try await ReferenceCapture(server: server, source: sourceName, directory: directory)
        } catch {
            state.stopping.store(true, ordering: .releasing)
            throw error
        }
    }

    /// Frames fed so far.
    public var framesFed: Int64 { state.fed.load(ordering: .relaxed) }

    /// How late (seconds) the feed ever woke past its 5 ms sleep: under 0.1 s the source never ran dry.
    public var worstLateness: Double { Double(state.lateNanoseconds.load(ordering: .relaxed)) / 1e9 }

    /// When (CLOCK_REALTIME seconds) frame `n` of the feed went into the FIFO: the end of the write that
    /// carried it. The server's pipe source reads what is there as it comes, so it captured the frame
    /// then (to its poll's wake-up). Nil for a frame not fed yet.
    public func writeTime(ofFrame n: Int64) -> Double? {
        state.writes.withLock { writes in
            var low = 0, high = writes.count
            while low < high {
                let middle = (low + high) / 2
                if writes[middle].fed <= n { low = middle + 1 } else { high = middle }
            }
            return low < writes.count ? writes[low].time : nil
        }
    }

    /// The frame of the feed written last at or before `time` (CLOCK_REALTIME seconds), nil before the first write.
    public func frameFed(at time: Double) -> Int64? {
        state.writes.withLock { writes in writes.last { $0.time <= time }.map { $0.fed - 1 } }
    }

    /// Writes the sequence at real time, `lead` frames ahead of the clock, until told to stop or the
    /// server goes (the write fails: SIGPIPE is blocked on this thread, so it returns EPIPE instead).
    private static func feed(_ descriptor: Int32, _ state: FeedState) {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        var priority = sched_param()
        priority.sched_priority = 10
        _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &priority)  // refused without the right: then as is
        let rate = Int64(sampleRate), lead = Int64(sampleRate / 10), chunk = 441
        var samples = [Int16](repeating: 0, count: chunk)
        var written: Int64 = 0
        var origin = monotonicNanoseconds()
        while !state.stopping.load(ordering: .acquiring) {
            let now = monotonicNanoseconds()
            var due = (now - origin) * rate / 1_000_000_000 + lead
            if due - written > 2 * lead {
                // The write blocked (the server did not read: no one records the source): go on from
                // here at real time, instead of a burst of what the clock says is owed.
                origin = now - written * 1_000_000_000 / rate
                due = written + lead
            }
            guard written < due else {
                usleep(5_000)
                let overslept = monotonicNanoseconds() - now - 5_000_000
                if overslept > state.lateNanoseconds.load(ordering: .relaxed) { state.lateNanoseconds.store(overslept, ordering: .relaxed) }
                continue
            }
            let count = Int(min(due - written, Int64(chunk)))
            for index in 0..<count { samples[index] = value(written + Int64(index)) }
            let complete = samples.withUnsafeBytes { bytes -> Bool in
                var offset = 0
                let total = count * 2
                while offset < total {
                    let result = write(descriptor, bytes.baseAddress! + offset, total - offset)
                    if result < 0 && errno == EINTR { continue }
                    guard result > 0 else { return false }
                    offset += result
                }
                return true
            }
            guard complete else { return }
            written += Int64(count)
            state.fed.store(written, ordering: .relaxed)
            var wall = timespec()
            clock_gettime(CLOCK_REALTIME, &wall)
            let fed = written
            state.writes.withLock { $0.append((fed, Double(wall.tv_sec) + Double(wall.tv_nsec) / 1e9)) }
        }
    }

    /// A take's frames against the feed. `gaps`: where the recorder said it lost frames (the take's frame
    /// and the count), silence in their place. Waits (ceiling 60 s, only a hang) for the witness to have
    /// passed the take's end when a loss must be looked up in it.
    /// As `check(_:gaps:)` with the stretches a recording's summary placed as silence.
    public func check(_ take: [Int16], gaps: [RecordingGap]) async throws -> NumberedCheck {
        try await check(take, gaps: gaps.map { (frame: Int($0.startFrame), count: Int($0.frameCount)) })
    }

    /// As `check(_:gaps:)` with the losses the file itself marks (its markers "gap 1.148 s: …" at each
    /// gap's first frame): for takes made by the command or the page, whose summaries a test does not hold.
    /// A marker gives the length to the millisecond, so it explains a loss within half a millisecond of it.
    public func check(file path: String) async throws -> NumberedCheck {
        let contents = try readSoundFile(path)
        let analysis = try FileAnalysis.analyze(path: path)
        return try await check(contents.samples, gaps: Self.markedGaps(analysis.markers, sampleRate: contents.sampleRate),
                               countSlack: Self.markerSlack(sampleRate: contents.sampleRate))
    }

    /// The gaps a file's markers name, with their lengths in frames (from milliseconds).
    public static func markedGaps(_ markers: [FileMarker], sampleRate: Int) -> [(frame: Int, count: Int)] {
        markers.compactMap { marker in
            guard marker.label.hasPrefix("gap "), let end = marker.label.range(of: " s") else { return nil }
            guard let seconds = Double(marker.label[marker.label.index(marker.label.startIndex, offsetBy: 4)..<end.lowerBound]) else {
                return nil
            }
            return (frame: Int(marker.frame), count: max(1, Int((seconds * Double(sampleRate)).rounded())))
        }
    }

    /// The gaps a file's markers name for one source of several ("gap 1.148 s in NAME: …"), with how far
    /// before its marker each loss may have begun ("found late: went missing up to 4.250 s before"; else 0).
    public static func markedGaps(_ markers: [FileMarker], sampleRate: Int, source: String) -> [(frame: Int, count: Int, foundLate: Int)] {
        zip(markers, markers.map { [$0] }.map { markedGaps($0, sampleRate: sampleRate) }).compactMap { marker, read in
            guard let gap = read.first, marker.label.contains(" in \(source): ") else { return nil }
            var late = 0
            if let range = marker.label.range(of: "went missing up to "),
               let seconds = Double(marker.label[range.upperBound...].prefix { $0 != " " }) {
                late = Int((seconds * Double(sampleRate)).rounded())
            }
            return (frame: gap.frame, count: gap.count, foundLate: late)
        }
    }

    /// Whether `dropped` frames, as a summary line states them, are the losses the file at `path` marks:
    /// none and no gap marker, or the markers' total (each to the millisecond, so half of one of slack per
    /// marker). A take of a known signal that runs beside other work may lose frames when its process
    /// stands still longer than the server's queue; counted and placed, that is the promise kept.
    public static func lossIsMarked(_ dropped: Int, in path: String) throws -> Bool {
        let analysis = try FileAnalysis.analyze(path: path)
        return lossIsMarked(dropped, markers: analysis.markers, sampleRate: analysis.sampleRate)
    }

    /// As `lossIsMarked(_:in:)` for a file's markers.
    public static func lossIsMarked(_ dropped: Int, markers: [FileMarker], sampleRate: Int) -> Bool {
        let gaps = markedGaps(markers, sampleRate: sampleRate)
        let marked = gaps.reduce(0) { $0 + $1.count }
        return abs(marked - dropped) <= gaps.count * markerSlack(sampleRate: sampleRate)
    }

    /// How far a gap marker's length (to the millisecond) may be from the frames it stands for: half a
    /// millisecond, rounded up.
    public static func markerSlack(sampleRate: Int) -> Int { sampleRate / 2_000 + 1 }

    /// `countSlack`: how far a gap's stated length may be from the frames missing (0: exactly; a file
    /// marker's milliseconds, half of one). `spread`: losses whose frames may have gone missing up to
    /// `before` frames ahead of their silence (at `frame`, `count` long) or `after` frames past it, as well
    /// as across it: a loss found late (its silence stands where reading was when it was counted), or one
    /// whose place is an estimate (where a full server queue filled, from the server's clock). A full
    /// queue takes the small posts of later audio that fit its last room while it refuses the rest, before
    /// the silence and after it until the reader has taken the backlog, so the numbers go missing in a few
    /// jumps near it (PulseAudio: 150 frames before it in one run, 175 after it in the next, 2 354 after it
    /// in a loaded one; 48 frames before it, from a second later in the feed, in another). The server's
    /// count decides: the jumps across the silence, then the others in reach nearest first, as many as
    /// make the count within `countSlack`; a jump beyond them is not that loss's. Across a silence longer
    /// than the sequence's period the numbers cannot tell whole periods apart (a jump across it may even
    /// read as none), so a run of jumps makes the count when whole periods more bring it there.
    public func check(_ take: [Int16], gaps: [(frame: Int, count: Int)] = [], countSlack: Int = 0,
                      spread: [(frame: Int, count: Int, before: Int, after: Int)] = []) async throws -> NumberedCheck {
        var unexplained: [NumberedCheck.Loss] = []
        var bySource: [NumberedCheck.Loss] = []
        let (jumps, numbered, unbroken) = Self.jumps(in: take)
        let spreadOnes = Self.spreadLosses(take, jumps: jumps, spread: spread, countSlack: countSlack)
        var counted = spreadOnes.counted
        var silence = unbroken + spreadOnes.silence
        var witnessNumbers: [Int?]?
        for (position, jump) in jumps.enumerated() where !spreadOnes.explained.contains(position) {
            let loss = NumberedCheck.Loss(frame: jump.at + 1, missing: jump.missing, silence: jump.zeros)
            let gapFrames = gaps.filter { $0.frame > jump.at && $0.frame < jump.next }.reduce(0) { $0 + $1.count }
            if gapFrames > 0 && abs(gapFrames - jump.missing) <= countSlack && jump.zeros >= jump.missing {
                counted += jump.missing
                silence += jump.zeros - jump.missing
                continue
            }
            if witnessNumbers == nil {
                let samples = try await witness.samples(afterFrames: Self.sampleRate / 5)
                witnessNumbers = samples.map(Self.number)
            }
            if Self.skips(witnessNumbers ?? [], from: jump.before, to: jump.after) {
                bySource.append(loss)
            } else {
                unexplained.append(loss)
            }
        }
        return NumberedCheck(frames: take.count, numbered: numbered, first: take.firstIndex { $0 != 0 },
                             unexplained: unexplained, bySource: bySource, counted: counted, silence: silence)
    }

    /// A place numbers go missing in a take: after frame `at` (the last numbered one before it, carrying
    /// `before`), `missing` of them (modulo the period), `zeros` frames of silence, the next numbered frame
    /// at `next` (carrying `after`).
    public typealias Jump = (at: Int, next: Int, before: Int, after: Int, missing: Int, zeros: Int)

    /// Every jump in `take`, how many of its frames carry a number, and the silence with no number missing
    /// around it.
    public static func jumps(in take: [Int16]) -> (jumps: [Jump], numbered: Int, silence: Int) {
        var jumps: [Jump] = []
        var numbered = 0, silence = 0
        var previous: (index: Int, number: Int)?
        for index in take.indices {
            guard let number = number(take[index]) else { continue }
            numbered += 1
            defer { previous = (index, number) }
            guard let before = previous else { continue }
            let zeros = index - before.index - 1
            let missing = (number - before.number - 1 + period) % period
            if missing == 0 {
                silence += zeros
            } else {
                jumps.append((before.index, index, before.number, number, missing, zeros))
            }
        }
        return (jumps, numbered, silence)
    }

    /// Which of `jumps` the `spread` losses explain (see `check(_:gaps:countSlack:spread:)`), the frames
    /// they count, and their silence beyond the counts.
    public static func spreadLosses(_ take: [Int16], jumps: [Jump], spread: [(frame: Int, count: Int, before: Int, after: Int)],
                                    countSlack: Int) -> (explained: Set<Int>, counted: Int, silence: Int) {
        var explained = Set<Int>()
        var counted = 0, silence = 0
        for gap in spread {
            // Its silence stands where it says (a numbered frame is never 0).
            let silent = gap.frame..<min(take.count, max(gap.frame, gap.frame + gap.count - countSlack))
            guard gap.frame >= 0, take[silent].allSatisfy({ $0 == 0 }) else { continue }
            let end = gap.frame + gap.count
            let inReach = jumps.indices.filter {
                jumps[$0].at >= gap.frame - gap.before - 1 && jumps[$0].at < end + gap.after && !explained.contains($0)
            }
            // The jumps across the silence first, then the rest by their distance from it; the loss's are
            // the longest run of them, nearest first, whose total makes the count (in whole periods more).
            func distance(_ index: Int) -> Int { max(0, gap.frame - jumps[index].next, jumps[index].at + 1 - end) }
            let nearest = inReach.sorted { distance($0) < distance($1) }
            var taken: [Int] = [], counting = 0, total = 0
            for (position, index) in nearest.enumerated() {
                total += jumps[index].missing
                let periods = max(0, Int((Double(gap.count - total) / Double(period)).rounded()))
                if abs(total + periods * period - gap.count) <= countSlack {
                    taken = Array(nearest[...position])
                    counting = total + periods * period
                }
            }
            guard !taken.isEmpty, abs(counting - gap.count) <= countSlack else { continue }
            explained.formUnion(taken)
            counted += counting
            silence += max(0, taken.reduce(0) { $0 + jumps[$1].zeros } - gap.count)
        }
        return (explained, counted, silence)
    }

    /// True when `numbers` holds `from` followed by `to` with nothing but silence between: the source
    /// skipped what lies between them.
    private static func skips(_ numbers: [Int?], from: Int, to: Int) -> Bool {
        var last: Int?
        for case let number? in numbers {
            if last == from && number == to { return true }
            last = number
        }
        return false
    }

    /// Stops the feed and the witness (idempotent); the pipe source goes with the server.
    public func stop() {
        guard !state.stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        witness.stop()
        // The feeder wakes every 5 ms, or its write fails once the server has gone.
        _ = state.finished.wait(timeout: .now() + 5)
    }

    deinit { stop() }
}

/// A take read against a `NumberedSource`.
public struct NumberedCheck: Sendable, CustomStringConvertible {
    /// Numbers missing after the take's frame `frame` (where `silence` frames of silence stand).
    public struct Loss: Sendable, Equatable {
        public let frame: Int
        public let missing: Int
        public let silence: Int
    }

    /// The take's frames, and how many of them carry a number (the rest are silence).
    public let frames: Int
    public let numbered: Int
    /// The take's first numbered frame, nil if none.
    public let first: Int?
    /// Frames missing that the recorder neither counted nor placed, and the server's source did not skip.
    public let unexplained: [Loss]
    /// Frames the server's source skipped (missing from the witness alike).
    public let bySource: [Loss]
    /// Frames missing where the recorder said, as silence of their length.
    public let counted: Int
    /// Silence with no frame missing around it.
    public let silence: Int

    /// Frames the recorder lost without saying so.
    public var lostUncounted: Int { unexplained.reduce(0) { $0 + $1.missing } }

    public var description: String {
        "\(frames) frames, \(numbered) numbered (the first at \(first.map(String.init) ?? "none")); lost uncounted: "
            + "\(lostUncounted) \(unexplained.prefix(5)); skipped by the source: \(bySource.prefix(5)); counted: \(counted); "
            + "silence: \(silence)"
    }
}

private func monotonicNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}
