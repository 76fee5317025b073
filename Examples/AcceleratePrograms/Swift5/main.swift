// Shapes of real Apple programs that use vDSP, with only the imports changed: a tap's level meter, a
// tuner's FFT (Hann window, vDSP_ctoz, vDSP_fft_zrip, vDSP_zvmags, the loudest bin), a fade, a waveform's
// peaks (vDSP_desamp over magnitudes, in decibels), DFTs of a length that is not a power of two, and the
// Swift overlay's meter and FFT. Compiled in Swift 5 and Swift 6 language modes; the tests run both and
// check every number against numpy.
//
//   accelerate-programs CLIP OUTDIR      (the first 4 096 frames of CLIP; vectors written as OUTDIR/NAME.f32)
import Foundation
import OpenAVFAudio
import OpenAccelerate

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write("usage: accelerate-programs CLIP OUTDIR\n".data(using: .utf8)!)
    exit(64)
}
let outputDirectory = URL(fileURLWithPath: arguments[2])

/// Writes a vector as raw little-endian Float32, for the test to read.
func save(_ name: String, _ values: [Float]) {
    let data = values.withUnsafeBufferPointer { Data(buffer: $0) }
    try! data.write(to: outputDirectory.appendingPathComponent(name + ".f32"))
}

let file = try AVAudioFile(forReading: URL(fileURLWithPath: arguments[1]))
let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 4096)!
try file.read(into: buffer, frameCount: 4096)
let frameCount = Int(buffer.frameLength)
let samples = Array(UnsafeBufferPointer(start: buffer.floatChannelData![0], count: frameCount))

// A tap's meter, as level meters write it.
var rms: Float = 0
var peak: Float = 0
var mean: Float = 0
vDSP_rmsqv(buffer.floatChannelData![0], 1, &rms, vDSP_Length(buffer.frameLength))
vDSP_maxmgv(buffer.floatChannelData![0], 1, &peak, vDSP_Length(buffer.frameLength))
vDSP_meanv(samples, 1, &mean, vDSP_Length(frameCount))
print("rms \(rms)")
print("peak \(peak)")
print("mean \(mean)")

// A tuner's spectrum (the shape of AudioKit's FFTTap and many tuners).
let log2n = vDSP_Length(log2(Float(frameCount)))
let n = 1 << Int(log2n)
let fftSetup = vDSP_create_fftsetup(log2n, FFTRadix(kFFTRadix2))!
var window = [Float](repeating: 0, count: n)
vDSP_hann_window(&window, vDSP_Length(n), Int32(vDSP_HANN_NORM))
var windowed = [Float](repeating: 0, count: n)
vDSP_vmul(samples, 1, window, 1, &windowed, 1, vDSP_Length(n))
save("windowed", windowed)
var realp = [Float](repeating: 0, count: n / 2)
var imagp = [Float](repeating: 0, count: n / 2)
var magnitudes = [Float](repeating: 0, count: n / 2)
realp.withUnsafeMutableBufferPointer { realPointer in
    imagp.withUnsafeMutableBufferPointer { imagPointer in
        var output = DSPSplitComplex(realp: realPointer.baseAddress!, imagp: imagPointer.baseAddress!)
        windowed.withUnsafeBufferPointer { pointer in
            pointer.baseAddress!.withMemoryRebound(to: DSPComplex.self, capacity: n) {
                vDSP_ctoz($0, 2, &output, 1, vDSP_Length(n / 2))
            }
        }
        vDSP_fft_zrip(fftSetup, &output, 1, log2n, FFTDirection(FFT_FORWARD))
        save("packed_real", Array(realPointer))
        save("packed_imag", Array(imagPointer))
        let nyquist = output.imagp[0]
        output.imagp[0] = 0
        vDSP_zvmags(&output, 1, &magnitudes, 1, vDSP_Length(n / 2))
        // Back again: the inverse is unscaled, so the round trip is 2n times the input.
        output.imagp[0] = nyquist
        var restored = [Float](repeating: 0, count: n)
        vDSP_fft_zrip(fftSetup, &output, 1, log2n, FFTDirection(FFT_INVERSE))
        var scale = 1 / Float(2 * n)
        restored.withUnsafeMutableBufferPointer { restoredPointer in
            restoredPointer.baseAddress!.withMemoryRebound(to: DSPComplex.self, capacity: n / 2) {
                vDSP_ztoc(&output, 1, $0, 2, vDSP_Length(n / 2))
            }
            vDSP_vsmul(restoredPointer.baseAddress!, 1, &scale, restoredPointer.baseAddress!, 1, vDSP_Length(n))
        }
        save("restored", restored)
    }
}
vDSP_destroy_fftsetup(fftSetup)
save("magnitudes", magnitudes)
var loudest: Float = 0
var loudestBin: vDSP_Length = 0
vDSP_maxvi(magnitudes, 1, &loudest, &loudestBin, vDSP_Length(n / 2))
print("loudest bin \(loudestBin): \(Double(loudestBin) * file.processingFormat.sampleRate / Double(n)) Hz")

// A fade in over the whole buffer.
var start: Float = 0
var step: Float = 1 / Float(n)
var ramp = [Float](repeating: 0, count: n)
vDSP_vramp(&start, &step, &ramp, 1, vDSP_Length(n))
var faded = [Float](repeating: 0, count: n)
vDSP_vmul(samples, 1, ramp, 1, &faded, 1, vDSP_Length(n))
save("faded", faded)

// A waveform's peaks, as waveform views draw them: magnitudes, a mean per 64 samples, in dB.
let samplesPerPixel = 64
var magnitudesInTime = [Float](repeating: 0, count: n)
vDSP_vabs(samples, 1, &magnitudesInTime, 1, vDSP_Length(n))
let filter = [Float](repeating: 1 / Float(samplesPerPixel), count: samplesPerPixel)
var pixels = [Float](repeating: 0, count: n / samplesPerPixel)
vDSP_desamp(magnitudesInTime, vDSP_Stride(samplesPerPixel), filter, &pixels, vDSP_Length(pixels.count), vDSP_Length(samplesPerPixel))
var zeroDecibels: Float = 1
var pixelDecibels = [Float](repeating: 0, count: pixels.count)
vDSP_vdbcon(pixels, 1, &zeroDecibels, &pixelDecibels, 1, vDSP_Length(pixels.count), 1)
save("pixels_db", pixelDecibels)

// DFTs of 768 points (3 x 2^8): complex to complex, and real.
let dftLength = 768
let zop = vDSP_DFT_zop_CreateSetup(nil, vDSP_Length(dftLength), vDSP_DFT_Direction.FORWARD)!
let zeros = [Float](repeating: 0, count: dftLength)
var zopReal = [Float](repeating: 0, count: dftLength)
var zopImag = [Float](repeating: 0, count: dftLength)
vDSP_DFT_Execute(zop, Array(samples[0..<dftLength]), zeros, &zopReal, &zopImag)
vDSP_DFT_DestroySetup(zop)
save("zop_real", zopReal)
save("zop_imag", zopImag)
let zrop = vDSP_DFT_zrop_CreateSetup(nil, vDSP_Length(dftLength), .FORWARD)!
let evens = stride(from: 0, to: dftLength, by: 2).map { samples[$0] }
let odds = stride(from: 1, to: dftLength, by: 2).map { samples[$0] }
var zropReal = [Float](repeating: 0, count: dftLength / 2)
var zropImag = [Float](repeating: 0, count: dftLength / 2)
vDSP_DFT_Execute(zrop, evens, odds, &zropReal, &zropImag)
vDSP_DFT_DestroySetup(zrop)
save("zrop_real", zropReal)
save("zrop_imag", zropImag)
print("no setup for 100 points: \(vDSP_DFT_zop_CreateSetup(nil, 100, .FORWARD) == nil)")

// The Swift overlay, as newer code writes the same meter and spectrum.
print("overlay rms \(vDSP.rootMeanSquare(samples)) peak \(vDSP.maximumMagnitude(samples))")
let hann = vDSP.window(ofType: Float.self, usingSequence: .hanningDenormalized, count: n, isHalfWindow: false)
let overlayWindowed = vDSP.multiply(samples, hann)
var forwardReal = [Float](repeating: 0, count: n / 2)
var forwardImag = [Float](repeating: 0, count: n / 2)
let overlayFFT = vDSP.FFT(log2n: log2n, radix: .radix2, ofType: DSPSplitComplex.self)!
forwardReal.withUnsafeMutableBufferPointer { realPointer in
    forwardImag.withUnsafeMutableBufferPointer { imagPointer in
        var split = DSPSplitComplex(realp: realPointer.baseAddress!, imagp: imagPointer.baseAddress!)
        let pairs = stride(from: 0, to: n, by: 2).map { DSPComplex(real: overlayWindowed[$0], imag: overlayWindowed[$0 + 1]) }
        vDSP.convert(interleavedComplexVector: pairs, toSplitComplexVector: &split)
        overlayFFT.forward(input: split, output: &split)
    }
}
save("overlay_real", forwardReal)
save("overlay_imag", forwardImag)
let overlayDecibels = vDSP.amplitudeToDecibels(vDSP.absolute(samples), zeroReference: 1)
print("overlay loudest sample \(vDSP.maximum(overlayDecibels)) dB")
