// The overlay's element-by-element arithmetic, decibels, windows and ramps, in both forms Apple gives:
// returning a new array, or writing `result` (as many elements as the shortest vector involved).
extension vDSP {
    /// Runs `body` with the input's start, the output's start and the count both have.
    @inline(__always)
    static func map<U: AccelerateBuffer, V: AccelerateMutableBuffer, T>(
        _ vector: U, _ result: inout V, _ body: (UnsafePointer<T>, UnsafeMutablePointer<T>, vDSP_Length) -> Void
    ) where U.Element == T, V.Element == T {
        vector.withUnsafeBufferPointer { input in
            result.withUnsafeMutableBufferPointer { output in
                guard let source = input.baseAddress, let destination = output.baseAddress else { return }
                body(source, destination, vDSP_Length(min(input.count, output.count)))
            }
        }
    }

    /// As `map`, two inputs.
    @inline(__always)
    static func map2<T: AccelerateBuffer, U: AccelerateBuffer, V: AccelerateMutableBuffer, E>(
        _ a: T, _ b: U, _ result: inout V, _ body: (UnsafePointer<E>, UnsafePointer<E>, UnsafeMutablePointer<E>, vDSP_Length) -> Void
    ) where T.Element == E, U.Element == E, V.Element == E {
        a.withUnsafeBufferPointer { first in
            b.withUnsafeBufferPointer { second in
                result.withUnsafeMutableBufferPointer { output in
                    guard let pa = first.baseAddress, let pb = second.baseAddress, let pc = output.baseAddress else { return }
                    body(pa, pb, pc, vDSP_Length(min(first.count, second.count, output.count)))
                }
            }
        }
    }

    public static func multiply<U: AccelerateBuffer, V: AccelerateMutableBuffer>(_ scalar: Float, _ vector: U, result: inout V)
    where U.Element == Float, V.Element == Float {
        var scalar = scalar
        map(vector, &result) { vDSP_vsmul($0, 1, &scalar, $1, 1, $2) }
    }

    public static func multiply<U: AccelerateBuffer>(_ scalar: Float, _ vector: U) -> [Float] where U.Element == Float {
        var result = [Float](repeating: 0, count: vector.count)
        multiply(scalar, vector, result: &result)
        return result
    }

    public static func multiply<T: AccelerateBuffer, U: AccelerateBuffer, V: AccelerateMutableBuffer>(_ vectorA: T, _ vectorB: U, result: inout V)
    where T.Element == Float, U.Element == Float, V.Element == Float {
        map2(vectorA, vectorB, &result) { vDSP_vmul($0, 1, $1, 1, $2, 1, $3) }
    }

    public static func multiply<T: AccelerateBuffer, U: AccelerateBuffer>(_ vectorA: T, _ vectorB: U) -> [Float]
    where T.Element == Float, U.Element == Float {
        var result = [Float](repeating: 0, count: min(vectorA.count, vectorB.count))
        multiply(vectorA, vectorB, result: &result)
        return result
    }

    public static func add<U: AccelerateBuffer, V: AccelerateMutableBuffer>(_ scalar: Float, _ vector: U, result: inout V)
    where U.Element == Float, V.Element == Float {
        var scalar = scalar
        map(vector, &result) { vDSP_vsadd($0, 1, &scalar, $1, 1, $2) }
    }

    public static func add<U: AccelerateBuffer>(_ scalar: Float, _ vector: U) -> [Float] where U.Element == Float {
        var result = [Float](repeating: 0, count: vector.count)
        add(scalar, vector, result: &result)
        return result
    }

    public static func add<T: AccelerateBuffer, U: AccelerateBuffer, V: AccelerateMutableBuffer>(_ vectorA: T, _ vectorB: U, result: inout V)
    where T.Element == Float, U.Element == Float, V.Element == Float {
        map2(vectorA, vectorB, &result) { vDSP_vadd($0, 1, $1, 1, $2, 1, $3) }
    }

    public static func add<T: AccelerateBuffer, U: AccelerateBuffer>(_ vectorA: T, _ vectorB: U) -> [Float]
    where T.Element == Float, U.Element == Float {
        var result = [Float](repeating: 0, count: min(vectorA.count, vectorB.count))
        add(vectorA, vectorB, result: &result)
        return result
    }

    /// vectorA - vectorB (the C function takes them the other way round).
    public static func subtract<T: AccelerateBuffer, U: AccelerateBuffer, V: AccelerateMutableBuffer>(_ vectorA: U, _ vectorB: T, result: inout V)
    where T.Element == Float, U.Element == Float, V.Element == Float {
        map2(vectorB, vectorA, &result) { vDSP_vsub($0, 1, $1, 1, $2, 1, $3) }
    }

    public static func subtract<T: AccelerateBuffer, U: AccelerateBuffer>(_ vectorA: U, _ vectorB: T) -> [Float]
    where T.Element == Float, U.Element == Float {
        var result = [Float](repeating: 0, count: min(vectorA.count, vectorB.count))
        subtract(vectorA, vectorB, result: &result)
        return result
    }

    public static func absolute<U: AccelerateBuffer, V: AccelerateMutableBuffer>(_ vector: U, result: inout V)
    where U.Element == Float, V.Element == Float {
        map(vector, &result) { vDSP_vabs($0, 1, $1, 1, $2) }
    }

    public static func absolute<U: AccelerateBuffer>(_ vector: U) -> [Float] where U.Element == Float {
        var result = [Float](repeating: 0, count: vector.count)
        absolute(vector, result: &result)
        return result
    }

    public static func clip<U: AccelerateBuffer, V: AccelerateMutableBuffer>(_ vector: U, to bounds: ClosedRange<Float>, result: inout V)
    where U.Element == Float, V.Element == Float {
        var low = bounds.lowerBound, high = bounds.upperBound
        map(vector, &result) { vDSP_vclip($0, 1, &low, &high, $1, 1, $2) }
    }

    public static func clip<U: AccelerateBuffer>(_ vector: U, to bounds: ClosedRange<Float>) -> [Float] where U.Element == Float {
        var result = [Float](repeating: 0, count: vector.count)
        clip(vector, to: bounds, result: &result)
        return result
    }

    public static func fill<V: AccelerateMutableBuffer>(_ vector: inout V, with value: Float) where V.Element == Float {
        var value = value
        vector.withUnsafeMutableBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return }
            vDSP_vfill(&value, start, 1, vDSP_Length(buffer.count))
        }
    }

    public static func clear<V: AccelerateMutableBuffer>(_ vector: inout V) where V.Element == Float {
        vector.withUnsafeMutableBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return }
            vDSP_vclr(start, 1, vDSP_Length(buffer.count))
        }
    }

    /// `count` values from `initialValue`, `increment` apart (none for a count below 1).
    public static func ramp(withInitialValue initialValue: Float, increment: Float, count: Int) -> [Float] {
        var start = initialValue, step = increment
        var result = [Float](repeating: 0, count: max(0, count))
        vDSP_vramp(&start, &step, &result, 1, vDSP_Length(result.count))
        return result
    }

    /// `count` values from the range's lower bound to its upper bound, both included.
    public static func ramp(in range: ClosedRange<Float>, count: Int) -> [Float] {
        var start = range.lowerBound, end = range.upperBound
        var result = [Float](repeating: 0, count: max(0, count))
        vDSP_vgen(&start, &end, &result, 1, vDSP_Length(result.count))
        return result
    }

    /// 20 log10(amplitude / zeroReference).
    public static func amplitudeToDecibels<U: AccelerateBuffer>(_ amplitude: U, zeroReference: Float) -> [Float] where U.Element == Float {
        var result = [Float](repeating: 0, count: amplitude.count)
        convert(amplitude: amplitude, toDecibels: &result, zeroReference: zeroReference)
        return result
    }

    /// 10 log10(power / zeroReference).
    public static func powerToDecibels<U: AccelerateBuffer>(_ power: U, zeroReference: Float) -> [Float] where U.Element == Float {
        var result = [Float](repeating: 0, count: power.count)
        convert(power: power, toDecibels: &result, zeroReference: zeroReference)
        return result
    }

    public static func convert<U: AccelerateBuffer, V: AccelerateMutableBuffer>(amplitude: U, toDecibels decibels: inout V, zeroReference: Float)
    where U.Element == Float, V.Element == Float {
        var reference = zeroReference
        map(amplitude, &decibels) { vDSP_vdbcon($0, 1, &reference, $1, 1, $2, 1) }
    }

    public static func convert<U: AccelerateBuffer, V: AccelerateMutableBuffer>(power: U, toDecibels decibels: inout V, zeroReference: Float)
    where U.Element == Float, V.Element == Float {
        var reference = zeroReference
        map(power, &decibels) { vDSP_vdbcon($0, 1, &reference, $1, 1, $2, 0) }
    }

    /// The windows `vDSP.window(ofType:usingSequence:count:isHalfWindow:)` makes.
    public enum WindowSequence: Sendable {
        case hanningNormalized, hanningDenormalized, hamming, blackman
    }

    public static func window(ofType: Float.Type, usingSequence sequence: WindowSequence, count: Int, isHalfWindow: Bool) -> [Float] {
        var result = [Float](repeating: 0, count: max(0, count))
        formWindow(usingSequence: sequence, result: &result, isHalfWindow: isHalfWindow)
        return result
    }

    public static func window(ofType: Double.Type, usingSequence sequence: WindowSequence, count: Int, isHalfWindow: Bool) -> [Double] {
        var result = [Double](repeating: 0, count: max(0, count))
        result.withUnsafeMutableBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return }
            let half = Int32(isHalfWindow ? vDSP_HALF_WINDOW : 0), n = vDSP_Length(buffer.count)
            switch sequence {
            case .hanningNormalized: vDSP_hann_windowD(start, n, Int32(vDSP_HANN_NORM) | half)
            case .hanningDenormalized: vDSP_hann_windowD(start, n, Int32(vDSP_HANN_DENORM) | half)
            case .hamming: vDSP_hamm_windowD(start, n, half)
            case .blackman: vDSP_blkman_windowD(start, n, half)
            }
        }
        return result
    }

    public static func formWindow<V: AccelerateMutableBuffer>(usingSequence sequence: WindowSequence, result: inout V, isHalfWindow: Bool)
    where V.Element == Float {
        result.withUnsafeMutableBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return }
            let half = Int32(isHalfWindow ? vDSP_HALF_WINDOW : 0), n = vDSP_Length(buffer.count)
            switch sequence {
            case .hanningNormalized: vDSP_hann_window(start, n, Int32(vDSP_HANN_NORM) | half)
            case .hanningDenormalized: vDSP_hann_window(start, n, Int32(vDSP_HANN_DENORM) | half)
            case .hamming: vDSP_hamm_window(start, n, half)
            case .blackman: vDSP_blkman_window(start, n, half)
            }
        }
    }

    /// 16-bit integers to floats, as many as the destination holds.
    public static func convertElements<U: AccelerateBuffer, V: AccelerateMutableBuffer>(of source: U, to destination: inout V)
    where U.Element == Int16, V.Element == Float {
        source.withUnsafeBufferPointer { input in
            destination.withUnsafeMutableBufferPointer { output in
                guard let from = input.baseAddress, let to = output.baseAddress else { return }
                vDSP_vflt16(from, 1, to, 1, vDSP_Length(min(input.count, output.count)))
            }
        }
    }

    /// The squared magnitudes of a split-complex vector, as many as `result` holds.
    public static func squareMagnitudes<V: AccelerateMutableBuffer>(_ splitComplex: DSPSplitComplex, result: inout V) where V.Element == Float {
        var split = splitComplex
        result.withUnsafeMutableBufferPointer { output in
            guard let start = output.baseAddress else { return }
            vDSP_zvmags(&split, 1, start, 1, vDSP_Length(output.count))
        }
    }

    /// The magnitudes of a split-complex vector, as many as `result` holds.
    public static func absolute<V: AccelerateMutableBuffer>(_ vector: DSPSplitComplex, result: inout V) where V.Element == Float {
        var split = vector
        result.withUnsafeMutableBufferPointer { output in
            guard let start = output.baseAddress else { return }
            vDSP_zvabs(&split, 1, start, 1, vDSP_Length(output.count))
        }
    }

    /// Interleaved pairs into a split-complex vector, as many as the array holds.
    public static func convert(interleavedComplexVector: [DSPComplex], toSplitComplexVector splitComplexVector: inout DSPSplitComplex) {
        vDSP_ctoz(interleavedComplexVector, 2, &splitComplexVector, 1, vDSP_Length(interleavedComplexVector.count))
    }

    /// A split-complex vector into interleaved pairs, as many as the array holds.
    public static func convert(splitComplexVector: DSPSplitComplex, toInterleavedComplexVector interleavedComplexVector: inout [DSPComplex]) {
        var split = splitComplexVector
        vDSP_ztoc(&split, 1, &interleavedComplexVector, 2, vDSP_Length(interleavedComplexVector.count))
    }
}
