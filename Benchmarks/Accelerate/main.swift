// What Benchmarks/run times of OpenAccelerate, in a release build, beside numpy and a plain Swift loop:
// prints the median nanoseconds per call of each case over REPS calls on the same data.
//
//   vdsp-bench rms N REPS      vDSP_rmsqv and a plain Swift loop over N floats
//   vdsp-bench fft LOG2N REPS  vDSP_fft_zrip forward of 2^LOG2N real points (packed by vDSP_ctoz once)
import Foundation
import OpenAccelerate

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let size = Int(arguments[2]), let repetitions = Int(arguments[3]), size > 0, repetitions > 0 else {
    fail("usage: vdsp-bench rms N REPS | fft LOG2N REPS")
}

/// Median nanoseconds of `body` over `repetitions` runs, in 9 rounds.
func time(_ body: () -> Void) -> Double {
    var rounds: [Double] = []
    for _ in 0..<9 {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<repetitions { body() }
        rounds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(repetitions))
    }
    return rounds.sorted()[4]
}

/// Uniform noise in ±0.5 from a linear congruential sequence (the same every run).
func noise(count: Int) -> [Float] {
    var seed: UInt32 = 7
    return (0..<count).map { _ in
        seed = seed &* 1_664_525 &+ 1_013_904_223
        return Float(seed >> 8) / Float(1 << 24) - 0.5
    }
}

switch arguments[1] {
case "rms":
    let samples = noise(count: size)
    var result: Float = 0
    let vdsp = time { vDSP_rmsqv(samples, 1, &result, vDSP_Length(size)) }
    let checked = result
    let loop = time {
        var sum: Float = 0
        for sample in samples { sum += sample * sample }
        result = (sum / Float(size)).squareRoot()
    }
    print("vDSP_rmsqv \(vdsp)")
    print("loop \(loop)")
    print("value \(checked) \(result)")
case "fft":
    let n = 1 << size
    let samples = noise(count: n)
    guard let setup = vDSP_create_fftsetup(vDSP_Length(size), FFTRadix(kFFTRadix2)) else { fail("no setup for 2^\(size)") }
    var real = stride(from: 0, to: n, by: 2).map { samples[$0] }, imaginary = stride(from: 1, to: n, by: 2).map { samples[$0] }
    let input = (real, imaginary)
    let nanoseconds = time {
        real.withUnsafeMutableBufferPointer { r in
            imaginary.withUnsafeMutableBufferPointer { i in
                var split = DSPSplitComplex(realp: r.baseAddress!, imagp: i.baseAddress!)
                vDSP_fft_zrip(setup, &split, 1, vDSP_Length(size), FFTDirection(FFT_FORWARD))
            }
        }
        (real, imaginary) = input
    }
    print("vDSP_fft_zrip \(nanoseconds)")
    vDSP_destroy_fftsetup(setup)
default:
    fail("usage: vdsp-bench rms N REPS | fft LOG2N REPS")
}
