// A click train written into named pipes in lockstep, each pipe's clock running at its own rate: sources that drift.
import Foundation
import Glibc
import Synchronization

/// Writes one click (a single sample of 20 000) per second of each pipe's own clock into every pipe, 16-bit
/// mono, from one thread, all pipes in the same step: a pipe at +200 ppm gets 48 009.6 frames for every
/// 48 000 of a pipe at 0, as a device whose crystal runs fast would deliver. Paced at real time by the
/// monotonic clock (`module-pipe-source` posts what it reads at its writer's pace, so the server's timing
/// sees these clocks as it would a device's). The writer wakes every millisecond, so the source posts a
/// millisecond's audio at a time, as a device posts its periods. (Written four and eight times faster
/// than real time, the drift cases measured the machine: the answers' scatter in frames grew with the
/// speed, and the recorders' posts cost each debug build a core.)
public final class PacedClicks: @unchecked Sendable {
    // @unchecked Sendable: the writing state is the writer thread's alone; `stopping` is atomic.
    public let rates: [Double]
    private let paths: [String]
    private let seconds: Double
    private let stopping = Atomic<Bool>(false)
    private var thread: Thread?
    /// Each click's sample: 20 000 unless asked (32 767 is a full-scale sample).
    public let amplitude: Int16

    public init(paths: [String], sampleRate: Int, ppm: [Double], seconds: Double, amplitude: Int16 = 20_000) {
        self.paths = paths
        self.amplitude = amplitude
        rates = ppm.map { Double(sampleRate) * (1 + $0 * 1e-6) }
        self.seconds = seconds
    }

    /// The frame of click `index` in pipe `pipe`'s own stream.
    public func clickFrame(_ index: Int, pipe: Int) -> Int { Int((Double(index) * rates[pipe]).rounded()) }

    /// Opens the pipes (their reader, the server, has them open) and starts writing.
    public func start() throws {
        var descriptors: [Int32] = []
        for path in paths {
            let descriptor = open(path, O_WRONLY)
            guard descriptor >= 0 else { throw TestFailure("cannot open the pipe \(path): errno \(errno)") }
            descriptors.append(descriptor)
        }
        let opened = descriptors
        let thread = Thread { [self] in write(opened) }
        self.thread = thread
        thread.start()
    }

    public func stop() { stopping.store(true, ordering: .relaxed) }

    /// A source `name` of `server` (module-pipe-source, 8 kHz mono 16-bit) fed a click a second of
    /// `amplitude`, written from now on (for ten minutes at most); its pipe in `directory`. Stop it when done.
    public static func pipeSource(_ name: String, server: PrivateServer, directory: String, amplitude: Int16 = 20_000) throws -> PacedClicks {
        try server.run("pactl", ["load-module", "module-pipe-source", "source_name=\(name)", "file=\(directory)/\(name)",
                                 "rate=8000", "channels=1", "format=s16le"])
        let clicks = PacedClicks(paths: [directory + "/" + name], sampleRate: 8_000, ppm: [0], seconds: 600, amplitude: amplitude)
        try clicks.start()
        return clicks
    }

    /// A pipe whose reader went first (the server unloading its source) makes `write` raise SIGPIPE, which
    /// would end the whole test process. The signal is blocked in this thread alone (a process-wide ignore
    /// would be inherited by every program the tests start), so `write` fails with EPIPE instead; the pending
    /// signal is consumed before the thread ends.
    private func write(_ descriptors: [Int32]) {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
        defer {
            descriptors.forEach { close($0) }
            var none = timespec(tv_sec: 0, tv_nsec: 0)
            while sigtimedwait(&pipeSignal, nil, &none) == SIGPIPE {}
        }
        var written = [Int](repeating: 0, count: descriptors.count)
        var nextClick = [Int](repeating: 0, count: descriptors.count)
        var block = [Int16](repeating: 0, count: 1 << 16)
        let start = monotonicSeconds()
        while !stopping.load(ordering: .relaxed) {
            let audioTime = min(seconds, monotonicSeconds() - start)
            for (pipe, descriptor) in descriptors.enumerated() {
                let due = Int(audioTime * rates[pipe])
                while written[pipe] < due {
                    let count = min(due - written[pipe], block.count)
                    for index in 0..<count { block[index] = 0 }
                    while clickFrame(nextClick[pipe], pipe: pipe) < written[pipe] + count {
                        let frame = clickFrame(nextClick[pipe], pipe: pipe)
                        if frame >= written[pipe] { block[frame - written[pipe]] = amplitude.littleEndian }
                        nextClick[pipe] += 1
                    }
                    let bytes = block.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, count * 2) }
                    guard bytes == count * 2 else { return }
                    written[pipe] += count
                }
            }
            if audioTime >= seconds { return }
            usleep(1_000)
        }
    }
}

/// The frames of `samples` where a click stands (its largest sample, clicks at least 1 000 frames apart).
public func clickPositions(_ samples: [Int16], threshold: Int16 = 6_000) -> [Int] {
    var positions: [Int] = []
    var index = 0
    while index < samples.count {
        if abs(Int(samples[index])) >= Int(threshold) {
            let end = min(samples.count, index + 200)
            let peak = (index..<end).max { abs(Int(samples[$0])) < abs(Int(samples[$1])) } ?? index
            positions.append(peak)
            index += 1_000
        } else {
            index += 1
        }
    }
    return positions
}

/// The clicks a channel of a take should hold and does not, where the recorder reported no loss: the
/// oracle of a click train when a take may lose frames. Clicks are expected every `period` frames from
/// the first one found, over the take's `frames`; one missing where a reported loss (`lost`, take frames of
/// silence written for this channel's source, widened by `slack`) stands is explained, any other is
/// returned (its expected frame). Expected clicks within `slack` of the take's ends are not judged.
public func unexplainedMissingClicks(_ positions: [Int], period: Double, frames: Int, lost: [Range<Int>],
                                     slack: Int) -> [Int] {
    guard let first = positions.first else {
        // Not one click: explained only if the losses cover the take.
        let covered = lost.reduce(0) { $0 + $1.count }
        return covered >= frames - Int(period) - 2 * slack ? [] : [0]
    }
    var missing: [Int] = []
    let lowest = -Int((Double(first) / period).rounded(.down))
    var index = lowest
    while true {
        let expected = first + Int((Double(index) * period).rounded())
        index += 1
        if expected >= frames - slack { break }
        if expected < slack { continue }
        if positions.contains(where: { abs($0 - expected) <= slack }) { continue }
        if lost.contains(where: { $0.lowerBound - slack <= expected && expected < $0.upperBound + slack }) { continue }
        missing.append(expected)
    }
    return missing
}
