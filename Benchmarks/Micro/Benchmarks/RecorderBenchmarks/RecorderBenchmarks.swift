// The per-buffer work of the delivery thread, one 100 ms buffer (4 410 frames) per iteration.
import Benchmark
import Glibc
import RecorderKit

/// One 100 ms mono buffer of a 1 kHz sine at half scale, as S16BE bytes.
private let buffer: [UInt8] = (0..<4_410).flatMap { frame -> [UInt8] in
    let sample = Int16((sin(2 * Double.pi * 1_000 * Double(frame) / 44_100) * 16_384).rounded())
    return [UInt8(truncatingIfNeeded: UInt16(bitPattern: sample) >> 8), UInt8(truncatingIfNeeded: sample)]
}

nonisolated(unsafe) let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
                                                maxDuration: .seconds(2))

    Benchmark("meter one 100 ms buffer (4410 samples)", configuration: configuration) { benchmark in
        var states = [LevelMeterState](repeating: LevelMeterState(averagePower: 0, peakPower: 0), count: 1)
        buffer.withUnsafeBytes { bytes in
            states.withUnsafeMutableBufferPointer { out in
                for _ in benchmark.scaledIterations {
                    LevelMeter.measure(bigEndianS16: bytes, into: out)
                    blackHole(out[0])
                }
            }
        }
    }

    Benchmark("file totals over one buffer", configuration: configuration) { benchmark in
        var totals = LevelTotals(channelCount: 1)
        buffer.withUnsafeBytes { bytes in
            for _ in benchmark.scaledIterations { totals.add(bigEndianS16: bytes) }
        }
        blackHole(totals.frames)
    }

    Benchmark("write one buffer as AIFF packets + header refresh", configuration: configuration) { benchmark in
        let path = "/tmp/recorder-micro-\(getpid()).aiff"
        let writer = try SoundFileWriter(path: path, format: .default, overwrite: true)
        try buffer.withUnsafeBytes { bytes in
            for _ in benchmark.scaledIterations { try writer.write(packets: bytes) }
        }
        writer.close()
        unlink(path)
    }
}
