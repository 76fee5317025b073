// The overlay's reductions (`vDSP.rootMeanSquare(_:)`, `vDSP.maximumMagnitude(_:)` …): one value from a
// vector of Float or Double, through the C function of the same job.
extension vDSP {
    /// Calls `reduce` with the vector's start and count (a vDSP call's `A` and `N`), its result stored in C[0].
    @inline(__always)
    static func reduce<U: AccelerateBuffer, T: BinaryFloatingPoint>(
        _ vector: U, _ reduce: (UnsafePointer<T>, vDSP_Stride, UnsafeMutablePointer<T>, vDSP_Length) -> Void
    ) -> T where U.Element == T {
        var result = T.nan
        vector.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return }
            reduce(start, 1, &result, vDSP_Length(buffer.count))
        }
        return result
    }

    public static func rootMeanSquare<U: AccelerateBuffer>(_ vector: U) -> Float where U.Element == Float { reduce(vector, vDSP_rmsqv) }
    public static func rootMeanSquare<U: AccelerateBuffer>(_ vector: U) -> Double where U.Element == Double { reduce(vector, vDSP_rmsqvD) }
    public static func maximumMagnitude<U: AccelerateBuffer>(_ vector: U) -> Float where U.Element == Float { reduce(vector, vDSP_maxmgv) }
    public static func maximumMagnitude<U: AccelerateBuffer>(_ vector: U) -> Double where U.Element == Double { reduce(vector, vDSP_maxmgvD) }
    public static func maximum<U: AccelerateBuffer>(_ vector: U) -> Float where U.Element == Float { reduce(vector, vDSP_maxv) }
    public static func maximum<U: AccelerateBuffer>(_ vector: U) -> Double where U.Element == Double { reduce(vector, vDSP_maxvD) }
    public static func minimum<U: AccelerateBuffer>(_ vector: U) -> Float where U.Element == Float { reduce(vector, vDSP_minv) }
    public static func minimum<U: AccelerateBuffer>(_ vector: U) -> Double where U.Element == Double { reduce(vector, vDSP_minvD) }
    public static func mean<U: AccelerateBuffer>(_ vector: U) -> Float where U.Element == Float { reduce(vector, vDSP_meanv) }
    public static func mean<U: AccelerateBuffer>(_ vector: U) -> Double where U.Element == Double { reduce(vector, vDSP_meanvD) }
    public static func meanSquare<U: AccelerateBuffer>(_ vector: U) -> Float where U.Element == Float { reduce(vector, vDSP_measqv) }
    public static func meanSquare<U: AccelerateBuffer>(_ vector: U) -> Double where U.Element == Double { reduce(vector, vDSP_measqvD) }
    public static func meanMagnitude<U: AccelerateBuffer>(_ vector: U) -> Float where U.Element == Float { reduce(vector, vDSP_meamgv) }
    public static func sum<U: AccelerateBuffer>(_ vector: U) -> Float where U.Element == Float { reduce(vector, vDSP_sve) }
    public static func sum<U: AccelerateBuffer>(_ vector: U) -> Double where U.Element == Double { reduce(vector, vDSP_sveD) }
    public static func sumOfSquares<U: AccelerateBuffer>(_ vector: U) -> Float where U.Element == Float { reduce(vector, vDSP_svesq) }
    public static func sumOfSquares<U: AccelerateBuffer>(_ vector: U) -> Double where U.Element == Double { reduce(vector, vDSP_svesqD) }

    /// The first largest element and its index.
    public static func indexOfMaximum<U: AccelerateBuffer>(_ vector: U) -> (UInt, Float) where U.Element == Float {
        var value = Float.nan
        var index: vDSP_Length = 0
        vector.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return }
            vDSP_maxvi(start, 1, &value, &index, vDSP_Length(buffer.count))
        }
        return (index, value)
    }

    /// The dot product of two vectors of one length (the shorter one's, if they differ).
    public static func dot<U: AccelerateBuffer>(_ vectorA: U, _ vectorB: U) -> Float where U.Element == Float {
        var result: Float = 0
        vectorA.withUnsafeBufferPointer { a in
            vectorB.withUnsafeBufferPointer { b in
                guard let pa = a.baseAddress, let pb = b.baseAddress else { return }
                vDSP_dotpr(pa, 1, pb, 1, &result, vDSP_Length(min(a.count, b.count)))
            }
        }
        return result
    }
}
