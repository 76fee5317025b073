// How one sample is stored, and the conversions between its bytes and fractions of full scale.
import CPulse

/// How one sample is stored in captured buffers: always big-endian (AIFF's order), as the server
/// delivers it.
public enum SampleFormat: String, Sendable, CaseIterable {
    /// Signed 16-bit integers (full scale 32 768): the default.
    case int16 = "s16"
    /// Signed 24-bit integers, three bytes each (full scale 8 388 608).
    case int24 = "s24"
    /// Signed 32-bit integers (full scale 2 147 483 648).
    case int32 = "s32"
    /// 32-bit IEEE floats, full scale ±1.0 (values beyond it are kept: floats do not clip).
    case float32 = "float"

    /// Bytes in one sample of one channel.
    public var bytesPerSample: Int {
        switch self {
        case .int16: 2
        case .int24: 3
        case .int32, .float32: 4
        }
    }

    /// The smallest magnitude, as a fraction of full scale, that counts as a clipped sample: the largest
    /// positive integer (32 767 / 32 768 for 16 bits), or 1.0 for floats.
    var clipLevel: Double {
        switch self {
        case .int16: 32_767.0 / 32_768
        case .int24: 8_388_607.0 / 8_388_608
        case .int32: 2_147_483_647.0 / 2_147_483_648
        case .float32: 1
        }
    }

    var pulseFormat: pa_sample_format_t {
        switch self {
        case .int16: PA_SAMPLE_S16BE
        case .int24: PA_SAMPLE_S24BE
        case .int32: PA_SAMPLE_S32BE
        case .float32: PA_SAMPLE_FLOAT32BE
        }
    }

    /// Sample `index` (counted in samples, not bytes) of big-endian `bytes` as a fraction of full scale;
    /// a NaN or infinite float reads 0.
    @inline(__always)
    func value(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> Double {
        switch self {
        case .int16:
            return Double(bytes.baseAddress!.bigEndianInt16(at: index * 2)) / 32_768
        case .int24:
            let offset = index * 3
            let raw = UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            return Double(Int32(bitPattern: raw) >> 8) / 8_388_608
        case .int32:
            let offset = index * 4
            let raw = UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
                | UInt32(bytes[offset + 3])
            return Double(Int32(bitPattern: raw)) / 2_147_483_648
        case .float32:
            let offset = index * 4
            let raw = UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
                | UInt32(bytes[offset + 3])
            let value = Float(bitPattern: raw)
            return value.isFinite ? Double(value) : 0
        }
    }

    /// Converts the whole samples of big-endian `bytes` to floats (fractions of full scale) in `out`;
    /// returns how many were written (at most `out.count`). Allocates nothing.
    func decode(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<Float>) -> Int {
        let count = min(bytes.count / bytesPerSample, out.count)
        for index in 0..<count { out[index] = Float(value(bytes, index)) }
        return count
    }

    /// Writes `values` (fractions of full scale) as big-endian samples at `out`, `bytesPerSample` each:
    /// integers rounded and held at full scale, a NaN as 0. Allocates nothing.
    func encode(_ values: UnsafeBufferPointer<Float>, into out: UnsafeMutableRawPointer) {
        for (index, value) in values.enumerated() {
            let clean = value.isNaN ? 0 : value
            let bytes = out + index * bytesPerSample
            switch self {
            case .int16:
                let sample = Int16(clamping: Int64((Double(clean) * 32_768).rounded()))
                bytes.storeBytes(of: sample.bigEndian, as: Int16.self)
            case .int24:
                let sample = UInt32(bitPattern: Int32(clamping: min(8_388_607, max(-8_388_608, Int64((Double(clean) * 8_388_608).rounded())))))
                bytes.storeBytes(of: UInt8(truncatingIfNeeded: sample >> 16), as: UInt8.self)
                (bytes + 1).storeBytes(of: UInt8(truncatingIfNeeded: sample >> 8), as: UInt8.self)
                (bytes + 2).storeBytes(of: UInt8(truncatingIfNeeded: sample), as: UInt8.self)
            case .int32:
                let sample = Int32(clamping: Int64((Double(clean) * 2_147_483_648).rounded()))
                bytes.storeBytes(of: sample.bigEndian, as: Int32.self)
            case .float32:
                bytes.storeBytes(of: clean.bitPattern.bigEndian, as: UInt32.self)
            }
        }
    }
}

extension UnsafeRawPointer {
    /// The signed 16-bit big-endian sample at byte `offset`: the one decoding of the default format.
    @inline(__always)
    func bigEndianInt16(at offset: Int) -> Int16 {
        Int16(bitPattern: UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
    }
}

extension Int16 {
    /// A fraction of full scale (±1.0) as a signed 16-bit sample: rounded to the nearest, clipped; a NaN
    /// or infinite value is 0. The one encoding of the default format.
    @inline(__always)
    init(fullScale value: Float) {
        let scaled = value * 32_768
        if !scaled.isFinite {
            self = 0
        } else if scaled >= 32_767 {
            self = .max
        } else if scaled <= -32_768 {
            self = .min
        } else {
            self = Int16(scaled.rounded(.toNearestOrEven))
        }
    }
}

/// Float samples (full scale ±1) to signed 16-bit big-endian, as `Int16(fullScale:)` rounds them.
func encodeBigEndianInt16(_ samples: UnsafePointer<Float>, count: Int, into destination: UnsafeMutableRawPointer) {
    let output = destination.assumingMemoryBound(to: UInt16.self)
    for index in 0..<count { output[index] = UInt16(bitPattern: Int16(fullScale: samples[index])).bigEndian }
}
