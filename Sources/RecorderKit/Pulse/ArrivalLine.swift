// The frame a stream captured at a given moment, reckoned from its data's arrivals: the earliest of the last seconds', not the last one.

/// Reckons the timeline frame captured at a moment from when data arrived here, at the sample rate.
///
/// Data never arrives before it was captured, and arrives late when this process is slow to read (a
/// loaded machine, a late callback): so each arrival gives a bound, and the tightest of the last
/// seconds' is kept. For each arrival, `offset` is its time less the time its last frame stands at on a
/// line of the sample rate (ns); the line used is the one through the smallest offset of the last
/// `slots` seconds. One late callback, or a second of them, then moves nothing; the reckoning is as good
/// as the most prompt arrival of those seconds (the source's latency plus a fragment's scheduling).
/// Within them, a source clock off the nominal rate moves the line by its drift over the window (8 s at
/// 200 ppm: 1.6 ms). A timeline shifted by silence placed for a loss is followed at once when the shift is
/// forward, and within the window when it is back.
///
/// Used under the mainloop lock only; allocates nothing after `init`.
struct ArrivalLine {
    static let slots = 8
    static let slotNanoseconds: Int64 = 1_000_000_000

    private let nanosecondsPerFrame: Double
    /// The first arrival: offsets are measured from it, so they stay small (Double keeps them to the
    /// nanosecond for years).
    private var origin: (frame: Int64, time: Int64)?
    /// Per slot: which second (since the origin) it holds, and its smallest offset (ns).
    private var second: [Int64]
    private var earliest: [Double]

    init(sampleRate: Int) {
        nanosecondsPerFrame = 1e9 / Double(max(1, sampleRate))
        second = [Int64](repeating: -1, count: Self.slots)
        earliest = [Double](repeating: .infinity, count: Self.slots)
    }

    /// Data up to timeline frame `frame` has arrived at `time` (CLOCK_MONOTONIC ns).
    mutating func arrived(frame: Int64, at time: Int64) {
        guard let origin else {
            origin = (frame, time)
            record(0, at: time)
            return
        }
        let offset = Double(time - origin.time) - Double(frame - origin.frame) * nanosecondsPerFrame
        record(offset, at: time)
    }

    private mutating func record(_ offset: Double, at time: Int64) {
        let now = (time - (origin?.time ?? time)) / Self.slotNanoseconds
        let slot = Int(now % Int64(Self.slots))
        if second[slot] != now {
            second[slot] = now
            earliest[slot] = offset
        } else {
            earliest[slot] = min(earliest[slot], offset)
        }
    }

    /// The timeline frame captured at `time` (CLOCK_MONOTONIC ns), nil before any data arrived.
    func frame(at time: Int64) -> Int64? {
        guard let origin else { return nil }
        // (In Double: any time is asked, however far from the origin.)
        let elapsed = Double(time) - Double(origin.time)
        // The slots of the last `slots` seconds before `time` (the newest second included).
        let now = Int64(min(max(elapsed / Double(Self.slotNanoseconds), -1e15), 1e15).rounded(.down))
        var best = Double.infinity
        for index in 0..<Self.slots where second[index] >= 0 && second[index] > now - Int64(Self.slots) {
            best = min(best, earliest[index])
        }
        if best == .infinity {
            // No arrival for a while (a suspended source, a stall): the newest one kept.
            guard let newest = second.indices.max(by: { second[$0] < second[$1] }) else { return nil }
            best = earliest[newest]
        }
        let frames = (elapsed - best) / nanosecondsPerFrame
        guard frames.isFinite, abs(frames) < 9e18 else { return nil }
        return origin.frame + Int64(frames.rounded())
    }
}
