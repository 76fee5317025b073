// The overlay's Fourier transforms: `vDSP.FFT` (power-of-two, split complex, over vDSP_fft_zrop and
// vDSP_fft_zop) and `vDSP.DFT` (f * 2^n points, over vDSP_DFT_Execute). Float only: Debian ships KissFFT
// in single precision alone, so `ofType: DSPDoubleSplitComplex.self` and `ofType: Double.self` do not compile.
extension vDSP {
    public enum Radix: Sendable {
        case radix2, radix3, radix5

        public var fftRadix: FFTRadix {
            switch self {
            case .radix2: FFTRadix(kFFTRadix2)
            case .radix3: FFTRadix(kFFTRadix3)
            case .radix5: FFTRadix(kFFTRadix5)
            }
        }
    }

    public enum FourierTransformDirection: Sendable {
        case forward, inverse

        public var dftDirection: vDSP_DFT_Direction { self == .forward ? .FORWARD : .INVERSE }
        public var fftDirection: FFTDirection { self == .forward ? FFTDirection(kFFTDirection_Forward) : FFTDirection(kFFTDirection_Inverse) }
    }

    /// A power-of-two FFT's setup, destroyed with the object. Apple's packing and scaling (vDSP_fft_zrip's).
    /// One transform at a time per object (the setup's lock orders concurrent ones).
    public final class FFT<T: vDSP_FourierTransformable> {
        let setup: FFTSetup
        let log2n: vDSP_Length

        /// Nil for a radix other than 2 or a log2n over 24.
        public init?(log2n: vDSP_Length, radix: vDSP.Radix, ofType: T.Type) {
            guard let setup = vDSP_create_fftsetup(log2n, radix.fftRadix) else { return nil }
            self.setup = setup
            self.log2n = log2n
        }

        deinit { vDSP_destroy_fftsetup(setup) }

        /// The real forward transform of the 2^log2n points packed in `input` (even ones in realp, odd in imagp).
        public func forward(input: DSPSplitComplex, output: inout DSPSplitComplex) {
            transform(input: input, output: &output, direction: .forward)
        }

        public func inverse(input: DSPSplitComplex, output: inout DSPSplitComplex) {
            transform(input: input, output: &output, direction: .inverse)
        }

        /// The real transform (vDSP_fft_zrop) of `input` into `output`.
        public func transform(input: DSPSplitComplex, output: inout DSPSplitComplex, direction: vDSP.FourierTransformDirection) {
            var source = input
            vDSP_fft_zrop(setup, &source, 1, &output, 1, log2n, direction.fftDirection)
        }
    }

    public enum DFTTransformType: Sendable {
        case complexComplex, complexReal
    }

    /// A DFT's setup of `count` points (f * 2^n: f 1, 3, 5 or 15), destroyed with the object. Complex to
    /// complex is unscaled; complex to real packs and scales as vDSP_fft_zrip.
    public final class DFT<T: vDSP_FloatingPointDiscreteFourierTransformable> {
        let setup: vDSP_DFT_Setup
        let count: Int
        let transformType: DFTTransformType

        /// Nil for a count vDSP's DFT does not take.
        public init?(previous: vDSP.DFT<T>? = nil, count: Int, direction: vDSP.FourierTransformDirection, transformType: vDSP.DFTTransformType,
                     ofType: T.Type) {
            guard count > 0 else { return nil }
            let made = transformType == .complexComplex
                ? vDSP_DFT_zop_CreateSetup(previous?.setup, vDSP_Length(count), direction.dftDirection)
                : vDSP_DFT_zrop_CreateSetup(previous?.setup, vDSP_Length(count), direction.dftDirection)
            guard let made else { return nil }
            setup = made
            self.count = count
            self.transformType = transformType
        }

        deinit { vDSP_DFT_DestroySetup(setup) }

        /// The transform's output: `count` values each (complexComplex) or `count / 2` (complexReal).
        public func transform<U: AccelerateBuffer>(inputReal: U, inputImaginary: U) -> (real: [Float], imaginary: [Float])
        where U.Element == Float {
            let length = transformType == .complexComplex ? count : count / 2
            var real = [Float](repeating: 0, count: length), imaginary = [Float](repeating: 0, count: length)
            transform(inputReal: inputReal, inputImaginary: inputImaginary, outputReal: &real, outputImaginary: &imaginary)
            return (real, imaginary)
        }

        /// Does nothing when a vector is shorter than the transform's length.
        public func transform<U: AccelerateBuffer, V: AccelerateMutableBuffer>(inputReal: U, inputImaginary: U, outputReal: inout V,
                                                                              outputImaginary: inout V)
        where U.Element == Float, V.Element == Float {
            let length = transformType == .complexComplex ? count : count / 2
            inputReal.withUnsafeBufferPointer { ir in
                inputImaginary.withUnsafeBufferPointer { ii in
                    outputReal.withUnsafeMutableBufferPointer { or in
                        outputImaginary.withUnsafeMutableBufferPointer { oi in
                            guard [ir.count, ii.count, or.count, oi.count].allSatisfy({ $0 >= length }),
                                  let pir = ir.baseAddress, let pii = ii.baseAddress, let por = or.baseAddress, let poi = oi.baseAddress
                            else { return }
                            vDSP_DFT_Execute(setup, pir, pii, por, poi)
                        }
                    }
                }
            }
        }
    }
}

/// What `vDSP.FFT` transforms: split-complex vectors of Float (Apple's protocol; no Double here).
public protocol vDSP_FourierTransformable {}
extension DSPSplitComplex: vDSP_FourierTransformable {}

/// What `vDSP.DFT` transforms: Float (Apple's protocol; no Double here).
public protocol vDSP_FloatingPointDiscreteFourierTransformable {}
extension Float: vDSP_FloatingPointDiscreteFourierTransformable {}
