// What the Apple-API tests share: raw PCM of a probe's format read as fractions of full scale, and the
// environment that points a libpulse program at a private server's source or sink.
import Foundation
import TestSupport

/// A probe format ("s24be:2"): its sample type, byte order and channels, as `audioqueue-probe` takes it.
struct ProbeFormat: Sendable {
    let name: String
    var kind: Substring { name.prefix(3) }
    var bigEndian: Bool { name.split(separator: ":")[0].hasSuffix("be") }
    var channels: Int { name.split(separator: ":").count > 1 ? Int(name.split(separator: ":")[1])! : 1 }
    var bytesPerSample: Int { kind == "s16" ? 2 : kind == "s24" ? 3 : 4 }

    init(_ name: String) { self.name = name }

    /// The reference capture's format of the same sample type (little-endian).
    var reference: ReferenceCapture.RawSampleFormat {
        switch kind {
        case "s16": .s16le
        case "s24": .s24le
        case "s32": .s32le
        default: .float32le
        }
    }

    /// `bytes` as samples, each a fraction of full scale (an integer over 2^(bits−1), a float as it is).
    func values(_ bytes: [UInt8]) -> [Double] {
        let width = bytesPerSample
        return stride(from: 0, to: bytes.count - width + 1, by: width).map { start in
            var raw: UInt32 = 0
            for byte in 0..<width { raw = raw << 8 | UInt32(bytes[start + (bigEndian ? byte : width - 1 - byte)]) }
            switch kind {
            case "s16": return Double(Int16(bitPattern: UInt16(raw))) / 32_768
            case "s24": return Double(Int32(bitPattern: raw << 8) >> 8) / 8_388_608
            case "s32": return Double(Int32(bitPattern: raw)) / 2_147_483_648
            default: return Double(Float(bitPattern: raw))
            }
        }
    }

    /// `samples` (fractions of full scale, exact in this format) as this format's bytes.
    func bytes(_ samples: [Double]) -> [UInt8] {
        samples.flatMap { value -> [UInt8] in
            let bits: UInt32 = switch kind {
            case "s16": UInt32(UInt16(bitPattern: Int16(value * 32_768)))
            case "s24": UInt32(bitPattern: Int32(value * 8_388_608)) & 0xFF_FFFF
            case "s32": UInt32(bitPattern: Int32(value * 2_147_483_648))
            default: Float(value).bitPattern
            }
            let bigEndianBytes = (0..<bytesPerSample).map { UInt8(truncatingIfNeeded: bits >> UInt32(8 * (bytesPerSample - 1 - $0))) }
            return bigEndian ? bigEndianBytes : bigEndianBytes.reversed()
        }
    }
}

extension PrivateServer {
    /// The environment of a libpulse program whose default source (or sink) is `device` on this server.
    func environment(source: String? = nil, sink: String? = nil) -> [String: String] {
        var environment = clientEnvironment
        if let source { environment["PULSE_SOURCE"] = source }
        if let sink { environment["PULSE_SINK"] = sink }
        return environment
    }
}

/// Five minutes of noise playing into the mono sink, and a reference capture of its monitor (in `channels` and
/// `format`) that already holds it: the take of a recorder started now lies inside the noise.
func noiseOnTheMonoMonitor(_ server: PrivateServer, directory: String, seed: UInt64, channels: Int = 1,
                           format: ReferenceCapture.RawSampleFormat = .s16le) async throws -> (ReferenceCapture, Task<Void, Error>) {
    // Five minutes of it, the suites' own ceiling: a case under ThreadSanitizer beside scripts/busy took about
    // 100 s before its take began, and once a float32 stereo take came after 30 s of noise had ended (all zero).
    try writeWAV(directory + "/noise.wav", samples: noiseSamples(count: 44_100 * 300, seed: seed), channels: 1)
    let reference = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor",
                                               channels: channels, format: format, directory: directory)
    let player = Task { try await server.play(directory + "/noise.wav") }
    do {
        try await waitFor("the played noise to reach the monitor") {
            try reference.values().suffix(44_100).filter { $0 != 0 }.count > 4_410
        }
    } catch {
        player.cancel()
        reference.stop()
        throw error
    }
    return (reference, player)
}

/// The level (`levels(of:)`) of every 4 410-frame buffer of the mono reference capture on the grid of a take
/// that stands at `offset`: what a recorder's meter can have read of a buffer the server delivered, before,
/// in or after the take.
func bufferLevels(_ reference: ReferenceCapture, gridAt offset: Int) throws -> [(average: Double, peak: Double)] {
    let captured = try reference.samples()
    return stride(from: offset % 4_410, through: captured.count - 4_410, by: 4_410).map {
        levels(of: captured[$0..<($0 + 4_410)])
    }
}
