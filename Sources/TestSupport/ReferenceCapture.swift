// The oracle for "bit-exact": parecord capturing the same source beside the recorder under test, so a take
// is compared with what the server really delivered, its glitches included, never with a model of them.
import Foundation

/// A raw capture of `source` by `parecord`, started before the recorder under test and stopped after it.
/// Two record streams on one source receive the same data from the server: a sink that played silence
/// because a player was late (pipewire-pulse does), or a block delivered late, is in both. So the take
/// must equal the stretch of this capture it stands in, sample for sample, less only the losses the
/// recorder itself counted and placed.
public final class ReferenceCapture: @unchecked Sendable {
    // @unchecked Sendable: every stored property is set in init and never changed; the process is only
    // signalled and awaited.
    public let path: String
    public let channels: Int
    public let format: RawSampleFormat
    private let process: RunningProcess

    /// The raw sample formats a reference is taken in: the recorder's own, so the server converts the
    /// same way for both streams.
    public enum RawSampleFormat: String, Sendable {
        case s16le, s24le, s32le, float32le

        public var bytes: Int {
            switch self {
            case .s16le: 2
            case .s24le: 3
            case .s32le, .float32le: 4
            }
        }

        /// A little-endian sample as a fraction of full scale (libsndfile's normalised doubles).
        func value(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Double {
            var raw: UInt32 = 0
            for index in (0..<self.bytes).reversed() { raw = raw << 8 | UInt32(bytes[offset + index]) }
            switch self {
            case .s16le: return Double(Int16(bitPattern: UInt16(truncatingIfNeeded: raw))) / 32_768
            case .s24le: return Double(Int32(bitPattern: raw << 8) >> 8) / 8_388_608
            case .s32le: return Double(Int32(bitPattern: raw)) / 2_147_483_648
            case .float32le: return Double(Float(bitPattern: raw))
            }
        }
    }

    /// Starts `parecord` on `source` and returns once the server delivers to it (its file has grown; a
    /// null sink's monitor delivers silence while nothing plays). The ceiling, 60 s, only a hang reaches.
    public init(server: PrivateServer, source: String, rate: Int = 44_100, channels: Int = 1,
                format: RawSampleFormat = .s16le, directory: String) async throws {
        self.channels = channels
        self.format = format
        path = directory + "/reference-\(source)-\(format.rawValue)-\(rate)-\(UUID().uuidString.prefix(8)).raw"
        // 50 ms fragments: what the test waits for arrives soon after the server has it.
        process = try RunningProcess("/usr/bin/parecord", [
            "--raw", "--format=\(format.rawValue)", "--rate=\(rate)", "--channels=\(channels)",
            "--latency-msec=50", "-d", source, path,
        ], environment: server.clientEnvironment)
        try await waitFor("parecord on \(source) to deliver") { [path] in fileSize(path) > 0 }
    }

    /// The capture so far, as fractions of full scale, interleaved.
    public func values() throws -> [Double] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let width = format.bytes, format = self.format
        // A plain loop into uninitialized storage: in a debug (and a ThreadSanitizer) build `map` with a
        // closure costs many times as much, over captures of millions of samples.
        return data.withUnsafeBytes { bytes in
            [Double](unsafeUninitializedCapacity: bytes.count / width) { buffer, initialized in
                switch format {
                case .s16le:
                    for index in 0..<buffer.count {
                        buffer[index] = Double(Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 2, as: Int16.self))) / 32_768
                    }
                default:
                    for index in 0..<buffer.count { buffer[index] = format.value(bytes, at: index * width) }
                }
                initialized = buffer.count
            }
        }
    }

    /// The capture so far as 16-bit samples (for an `.s16le` reference).
    public func samples() throws -> [Int16] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.withUnsafeBytes { bytes in
            (0..<(bytes.count / 2)).map { Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        }
    }

    /// Waits until the capture holds `take` wholly (found where it stands, and that far delivered) and
    /// returns the comparison; the capture goes on. The ceiling, 60 s, only a hang reaches.
    ///
    /// `played`: the 16-bit signal played into the sink, if known. pipewire-pulse does not always give two
    /// record streams the same data: under load one of them (seen: the reference) gets a stretch of
    /// silence the other does not. Where the take differs from the capture, it must then hold exactly
    /// what was played there (found by the take's own samples around the stretch): what some stream
    /// of the server delivered, never anything else.
    public func compare(_ take: [Int16], played: [Int16]? = nil) async throws -> TakeComparison {
        try await compare(take.map { Double($0) / 32_768 }, played: played)
    }

    /// As `compare(_:)` for a take read as fractions of full scale (any sample format).
    public func compare(_ take: [Double], played: [Int16]? = nil) async throws -> TakeComparison {
        try await compare(take, at: nil, played: played)
    }

    /// As `compare(_:)` for a take whose first sample must stand at `offset` in the capture (a second
    /// file of the same recording, placed by its start frame).
    public func compare(_ take: [Int16], at offset: Int, played: [Int16]? = nil) async throws -> TakeComparison {
        try await compare(take.map { Double($0) / 32_768 }, at: offset, played: played)
    }

    /// As `compare(_:)` for a take with gaps the recorder counted and placed (`inGap(frame)`): there the
    /// take must be silence, and the capture, which lost nothing then, is not compared.
    public func compare(_ take: [Int16], gaps inGap: @escaping @Sendable (Int) -> Bool,
                        played: [Int16]? = nil) async throws -> TakeComparison {
        try await compare(take.map { Double($0) / 32_768 }, at: nil, gaps: inGap, played: played)
    }

    /// The file is read (on a thread of its own: a debug build takes a while over a long capture, which
    /// would hold one of the test runner's two cooperative threads) only when it has grown: once to place
    /// the take, once to compare it when the capture has reached its end.
    private func compare(_ take: [Double], at knownOffset: Int?, gaps: (@Sendable (Int) -> Bool)? = nil,
                         played: [Int16]?) async throws -> TakeComparison {
        let channels = self.channels
        var offset = knownOffset
        guard offset != nil || take.contains(where: { $0 != 0 }) else {  // silence: nothing to place
            return TakeComparison(take: take, reference: [], channels: channels)
        }
        if offset == nil {
            do {
                offset = try await whenGrown("the reference capture to hold the take's start") { [self] in
                    TakeComparison.place(take, in: try values(), channels: channels)
                }
            } catch let failure as TestFailure {
                // Say whether the take's start is there only approximately (a conversion that differs)
                // or not at all (audio the capture never had).
                let near = try await offThread { [self] in
                    TakeComparison.place(take, in: try values(), channels: channels, tolerance: 3.0 / 32_768)
                }
                throw TestFailure("\(failure.description) (\(path), \(fileSize(path)) bytes, \(format.rawValue); the take: "
                                  + "\(take.count) samples; within 3 16-bit steps: \(near.map { "at \($0)" } ?? "nowhere either"))")
            }
        }
        let needed = ((offset ?? 0) + take.count) * format.bytes
        try await waitFor("the reference capture to reach the take's end") { [path] in fileSize(path) >= needed }
        let placed = offset
        return try await offThread { [self] in
            TakeComparison(take: take, reference: try values(), channels: channels, offset: placed, gaps: gaps, played: played)
        }
    }

    /// The capture as 16-bit samples once it holds `frames` more than it does now (what was played before
    /// the call has then been heard, however late the monitor delivers it).
    public func samples(afterFrames frames: Int) async throws -> [Int16] {
        let needed = fileSize(path) + frames * channels * format.bytes
        try await waitFor("the reference capture to grow by \(frames) frames") { [path] in fileSize(path) >= needed }
        return try await offThread { [self] in try samples() }
    }

    /// Runs `look` on a thread of its own each time the capture has grown, until it finds something.
    private func whenGrown<T: Sendable>(_ what: String, _ look: @escaping @Sendable () throws -> T?) async throws -> T {
        let deadline = monotonicSeconds() + 60
        var looked = -1
        while true {
            let size = fileSize(path)
            if size > looked {
                looked = size
                if let found = try await offThread(look) { return found }
            }
            guard monotonicSeconds() < deadline else { throw TestFailure("waited 60 s for \(what): hung") }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    /// Stops parecord (idempotent). SIGKILL: a test's thread blocks SIGTERM and the child inherits the
    /// mask; a raw capture has no header to finish, and what was compared is on disk already.
    public func stop() {
        process.send(SIGKILL)
    }

    deinit { stop() }
}

/// A take set against a reference capture of the same source.
public struct TakeComparison: Sendable {
    /// Where the take's first sample stands in the reference (in samples), or nil if its signal is not there.
    public let offset: Int?
    /// Whether the reference reaches the take's last sample.
    public let covered: Bool
    /// Samples of the take that differ from the reference where it stands (or lie outside it).
    public let differing: Int
    /// The first differing sample's index in the take, or nil.
    public let firstDifference: Int?

    /// Places `take` in `reference` by its first stretch of signal (64 frames from the first non-zero
    /// sample: noise does not repeat), then compares every sample.
    /// `offset`: where the take must stand, if known; else it is found. `gaps`: frames of the take that
    /// must be silence instead.
    init(take: [Double], reference: [Double], channels: Int, offset knownOffset: Int? = nil, gaps: ((Int) -> Bool)? = nil,
         played: [Int16]? = nil) {
        guard let offset = knownOffset ?? Self.place(take, in: reference, channels: channels), offset >= 0 else {
            (offset, covered, differing, firstDifference) = (nil, false, take.count, nil)
            return
        }
        self.offset = offset
        covered = offset + take.count <= reference.count
        var count = 0
        var firstIndex: Int?
        var index = 0
        while index < take.count {
            let position = offset + index
            let wrong = gaps?(index / channels) == true ? take[index] != 0
                : position >= reference.count || take[index] != reference[position]
            guard wrong else { index += 1; continue }
            // A stretch that differs from the capture: the played signal there, or wrong.
            var end = index + 1
            while end < take.count, offset + end < reference.count, take[end] != reference[offset + end] { end += 1 }
            if let played, gaps?(index / channels) != true, Self.holds(take, index..<end, of: played) {
                index = end
                continue
            }
            count += end - index
            if firstIndex == nil { firstIndex = index }
            index = end
        }
        differing = count
        firstDifference = firstIndex
    }

    /// Whether `take[range]` is exactly `played` where the take's own samples next to it (which match the
    /// capture) place it: the 32 before it, or if those are silence the 32 after it; past the played
    /// signal's end, silence (the sink plays nothing once the player is done). Anchored so, a take that
    /// lost or repeated frames there does not pass for the played signal shifted.
    private static func holds(_ take: [Double], _ range: Range<Int>, of played: [Int16]) -> Bool {
        func samples(_ part: Range<Int>) -> [Int16]? {
            let values = take[part].map { $0 * 32_768 }
            guard values.allSatisfy({ $0.rounded() == $0 && abs($0) <= 32_768 }) else { return nil }
            return values.map { Int16(clamping: Int($0)) }
        }
        guard let stretch = samples(range) else { return false }
        if range.lowerBound >= 32, let before = samples((range.lowerBound - 32)..<range.lowerBound),
           before.contains(where: { $0 != 0 }), let found = firstIndex(of: before, in: played) {
            let start = found + 32
            let playedPart = min(stretch.count, max(0, played.count - start))
            return played[start..<(start + playedPart)].elementsEqual(stretch.prefix(playedPart))
                && stretch.dropFirst(playedPart).allSatisfy { $0 == 0 }
        }
        if range.upperBound + 32 <= take.count, let after = samples(range.upperBound..<(range.upperBound + 32)),
           after.contains(where: { $0 != 0 }), let found = firstIndex(of: after, in: played) {
            let start = found - stretch.count
            return start >= 0 && played[start..<found].elementsEqual(stretch)
        }
        return false
    }

    /// Where the take's first sample stands in the reference, found by the take's first stretch of signal.
    static func place(_ take: [Double], in reference: [Double], channels: Int, tolerance: Double = 0) -> Int? {
        let window = 64 * channels
        guard let first = take.firstIndex(where: { $0 != 0 }).map({ $0 - $0 % channels }),
              first + window <= take.count, reference.count >= window else { return nil }
        let needle = take[first..<(first + window)]
        let found = stride(from: 0, through: reference.count - window, by: channels).first { start in
            abs(reference[start] - needle.first!) <= tolerance
                && zip(reference[start..<(start + window)], needle).allSatisfy { abs($0 - $1) <= tolerance }
        }
        return found.map { $0 - first }
    }
}

/// The size of a file in bytes, 0 if it is not there.
public func fileSize(_ path: String) -> Int {
    var status = stat()
    return stat(path, &status) == 0 ? Int(status.st_size) : 0
}

/// Polls `condition` every 20 ms until it holds, off the cooperative threads' time; throws after
/// `ceiling` seconds, a bound only a hang reaches (never a bound on how long a state may take under load).
/// Time the waiter itself was not run does not count: when the cooperative threads are all held (other
/// tests' synchronous work, on a loaded machine), a 20 ms sleep that returns a second or more late adds
/// its lateness to the ceiling, so the task that would change the state, starved as long, gets its turn
/// before the wait is called a hang. (A CPU-stage failure looked so: a hub's watchdog, due every 250 ms,
/// had not dropped a stalled client after 60 s, in a test that took 249 s beside the other serverless work.)
public func waitFor(_ what: String, ceiling: Double = 60, _ condition: () throws -> Bool) async throws {
    var deadline = monotonicSeconds() + ceiling
    while try !condition() {
        guard monotonicSeconds() < deadline else { throw TestFailure("waited \(Int(ceiling)) s for \(what): hung") }
        let asleep = monotonicSeconds()
        try await Task.sleep(nanoseconds: 20_000_000)
        let late = monotonicSeconds() - asleep - 0.02
        if late >= 1 { deadline += late }
    }
}
