// vDSP's calls at their edges: Apple's operand orders and empty vectors, setups refused rather than
// trapping (a radix, a length, a log2n too large), integers that saturate, half windows, and one FFT setup
// shared by several threads giving each the same answer.
import Foundation
import OpenAccelerate
import Testing

struct VDSPEdgeTests {
    /// vsub and vdiv take the subtrahend and the divisor first, as Apple's do; an empty vector gives the
    /// values Apple documents (NaN for a mean or RMS of nothing, -infinity for its maximum, 0 for its sum).
    @Test func operandOrdersAndEmptyVectorsAreApples() {
        let a: [Float] = [1, 2, 3], b: [Float] = [10, 20, 30]
        var c = [Float](repeating: 0, count: 3)
        vDSP_vsub(a, 1, b, 1, &c, 1, 3)
        #expect(c == [9, 18, 27])
        vDSP_vdiv(a, 1, b, 1, &c, 1, 3)
        #expect(c == [10, 10, 10])
        var value: Float = 7
        vDSP_rmsqv(a, 1, &value, 0)
        #expect(value.isNaN)
        vDSP_maxv(a, 1, &value, 0)
        #expect(value == -.infinity)
        vDSP_sve(a, 1, &value, 0)
        #expect(value == 0)
        // A stride of 2 reads every other element; maxvi's index counts in elements times the stride.
        var index: vDSP_Length = 9
        vDSP_maxvi([5, 100, 7, -1, 6], 2, &value, &index, 3)
        #expect(value == 7 && index == 2)
    }

    @Test func setupsThatCannotBeMadeAreNilNotATrap() throws {
        #expect(vDSP_create_fftsetup(25, FFTRadix(kFFTRadix2)) == nil)
        #expect(vDSP_create_fftsetup(10, FFTRadix(kFFTRadix3)) == nil)
        #expect(vDSP_create_fftsetup(10, -7) == nil)
        vDSP_destroy_fftsetup(nil)
        for (length, complex, made) in [(100, true, false), (0, true, false), (24, true, true), (8, true, true), (8, false, false),
                                        (16, false, true), (15 * 64, false, true), (7 * 16, false, false)] {
            let setup = complex ? vDSP_DFT_zop_CreateSetup(nil, vDSP_Length(length), .FORWARD)
                                : vDSP_DFT_zrop_CreateSetup(nil, vDSP_Length(length), .INVERSE)
            #expect((setup != nil) == made, "\(length) points, \(complex ? "complex" : "real")")
            vDSP_DFT_DestroySetup(setup)
        }
        // A transform longer than its setup, or in no direction, leaves the data as it was.
        let setup = try #require(vDSP_create_fftsetup(4, FFTRadix(kFFTRadix2)))
        defer { vDSP_destroy_fftsetup(setup) }
        var real: [Float] = Array(repeating: 1, count: 64), imaginary: [Float] = Array(repeating: 2, count: 64)
        real.withUnsafeMutableBufferPointer { r in
            imaginary.withUnsafeMutableBufferPointer { i in
                var split = DSPSplitComplex(realp: r.baseAddress!, imagp: i.baseAddress!)
                vDSP_fft_zrip(setup, &split, 1, 7, FFTDirection(FFT_FORWARD))
                vDSP_fft_zip(setup, &split, 1, 4, 0)
            }
        }
        #expect(real.allSatisfy { $0 == 1 } && imaginary.allSatisfy { $0 == 2 })
    }

    /// Floats to integers saturate at the type's range, NaN gives 0; vfix truncates and vfixr rounds.
    @Test func integersSaturate() {
        let input: [Float] = [1.7, -1.7, 40_000, -40_000, .infinity, .nan, 2.5]
        var truncated = [Int16](repeating: 9, count: 7), rounded = [Int16](repeating: 9, count: 7)
        vDSP_vfix16(input, 1, &truncated, 1, 7)
        vDSP_vfixr16(input, 1, &rounded, 1, 7)
        #expect(truncated == [1, -1, 32_767, -32_768, 32_767, 0, 2])
        #expect(rounded == [2, -2, 32_767, -32_768, 32_767, 0, 2])
    }

    /// A half window writes its first (N + 1) / 2 points and leaves the rest; a Hann window is periodic.
    @Test func halfWindowsWriteHalf() {
        var window = [Float](repeating: -1, count: 8)
        vDSP_hann_window(&window, 8, Int32(vDSP_HANN_DENORM) | Int32(vDSP_HALF_WINDOW))
        #expect(window[0] == 0 && abs(window[2] - 0.5) < 1e-7 && abs(window[3] - 0.8535534) < 1e-6 && window[4...] == [-1, -1, -1, -1])
        vDSP_hann_window(&window, 8, Int32(vDSP_HANN_NORM))
        #expect(abs(window[4] - 1.633) < 1e-6)
    }

    /// Four threads transforming with one setup at once get what one thread alone gets.
    @Test func oneSetupServesSeveralThreads() async throws {
        let log2n: vDSP_Length = 12, n = 1 << 12
        let setup = try #require(vDSP_create_fftsetup(log2n, FFTRadix(kFFTRadix2)))
        defer { vDSP_destroy_fftsetup(setup) }
        let signal = (0..<n).map { Float(sin(Double($0) * 0.01) + 0.3 * cos(Double($0) * 0.37)) }
        // Safe to send: the setup is only read, and each transform takes its lock.
        nonisolated(unsafe) let shared = setup
        func spectrum() -> [Float] {
            var real = stride(from: 0, to: n, by: 2).map { signal[$0] }, imaginary = stride(from: 1, to: n, by: 2).map { signal[$0] }
            for _ in 0..<50 {
                real.withUnsafeMutableBufferPointer { r in
                    imaginary.withUnsafeMutableBufferPointer { i in
                        var split = DSPSplitComplex(realp: r.baseAddress!, imagp: i.baseAddress!)
                        vDSP_fft_zrip(shared, &split, 1, log2n, FFTDirection(FFT_FORWARD))
                        vDSP_fft_zrip(shared, &split, 1, log2n, FFTDirection(FFT_INVERSE))
                        var scale = 1 / Float(2 * n)
                        vDSP_vsmul(r.baseAddress!, 1, &scale, r.baseAddress!, 1, vDSP_Length(n / 2))
                        vDSP_vsmul(i.baseAddress!, 1, &scale, i.baseAddress!, 1, vDSP_Length(n / 2))
                    }
                }
            }
            return real + imaginary
        }
        let alone = spectrum()
        let together = await withTaskGroup(of: [Float].self) { group in
            for _ in 0..<4 { group.addTask { spectrum() } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(together.count == 4 && together.allSatisfy { $0 == alone })
        // And the round trips gave the signal back (fifty of them, each to float precision).
        let evens = stride(from: 0, to: n, by: 2).map { signal[$0] }
        #expect(zip(alone.prefix(n / 2), evens).allSatisfy { abs($0 - $1) < 1e-4 })
    }
}
