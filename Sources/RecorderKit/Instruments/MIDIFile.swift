// A Standard MIDI File read for its timing: the division, the tempo map and each note's start, so that
// ticks and seconds can be turned into each other (FluidSynth's player counts ticks; people count seconds).
#if canImport(Glibc)
import Glibc
#endif

/// A Standard MIDI File (format 0, 1 or 2): its notes and tempo changes in time order.
public struct MIDIFile: Sendable {
    /// A note's start.
    public struct Note: Sendable, Equatable {
        /// Ticks from the start.
        public let tick: Int
        /// Seconds from the start, through the tempo map.
        public let seconds: Double
        /// Its MIDI channel, 0…15.
        public let channel: Int
        /// Its key, 0…127 (60: middle C).
        public let key: Int
        /// Its velocity, 1…127.
        public let velocity: Int
    }

    /// Ticks per quarter note (or, for SMPTE time, ticks per second as a negative-free count).
    public let division: Int
    /// Whether `division` counts ticks per second (SMPTE) rather than per quarter note.
    public let isSMPTE: Bool
    /// The notes' starts, in time order.
    public let notes: [Note]
    /// The last event's tick.
    public let lastTick: Int
    /// Tempo changes: (tick, microseconds per quarter note), in order, the first at tick 0.
    private let tempos: [(tick: Int, microseconds: Int)]

    /// The file's length in seconds: to its last event.
    public var duration: Double { seconds(atTick: lastTick) }

    /// One event of a track: its tick and its message — a channel message with its status (running
    /// status expanded), a meta event as 0xFF, its type and its data, a system exclusive as 0xF0 (or 0xF7)
    /// and its data.
    public struct Event: Sendable, Equatable {
        /// Ticks from the start.
        public let tick: Int
        /// The message's bytes, as above.
        public let message: [UInt8]

        /// An event at `tick` of `message`.
        public init(tick: Int, message: [UInt8]) {
            self.tick = tick
            self.message = message
        }
    }

    /// The file's format: 0 (one track), 1 (tracks played together) or 2 (independent patterns).
    public let format: Int
    /// Each track's events in the file's order (their ticks rising).
    public let tracks: [[Event]]

    /// Reads `bytes` as a Standard MIDI File; nil when they are not one (no MThd, a track cut short).
    public init?(_ bytes: [UInt8]) {
        func word(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        guard bytes.count >= 14, bytes[0..<4].elementsEqual("MThd".utf8), word(4) >= 6 else { return nil }
        format = Int(bytes[8]) << 8 | Int(bytes[9])
        let trackCount = Int(bytes[10]) << 8 | Int(bytes[11])
        let rawDivision = Int(bytes[12]) << 8 | Int(bytes[13])
        if rawDivision & 0x8000 != 0 {
            // SMPTE: frames per second (negated) × ticks per frame.
            let fps = 256 - (rawDivision >> 8)
            division = max(1, (fps == 29 ? 30 : fps) * (rawDivision & 0xFF))
            isSMPTE = true
        } else {
            division = max(1, rawDivision)
            isSMPTE = false
        }
        var at = 8 + word(4)
        var tracks: [[Event]] = []
        for _ in 0..<trackCount {
            guard at + 8 <= bytes.count, bytes[at..<(at + 4)].elementsEqual("MTrk".utf8) else { return nil }
            let end = at + 8 + word(at + 4)
            guard end <= bytes.count else { return nil }
            at += 8
            var tick = 0, running: UInt8 = 0
            var events: [Event] = []
            func variable() -> Int? {
                var value = 0
                for _ in 0..<4 {
                    guard at < end else { return nil }
                    let byte = bytes[at]
                    at += 1
                    value = value << 7 | Int(byte & 0x7F)
                    if byte & 0x80 == 0 { return value }
                }
                return nil
            }
            while at < end {
                guard let delta = variable() else { return nil }
                tick += delta
                guard at < end else { return nil }
                var status = bytes[at]
                if status & 0x80 != 0 { at += 1 } else { status = running }
                switch status {
                case 0xFF:
                    guard at < end else { return nil }
                    let type = bytes[at]
                    at += 1
                    guard let length = variable(), at + length <= end else { return nil }
                    events.append(Event(tick: tick, message: [0xFF, type] + bytes[at..<(at + length)]))
                    at += length
                case 0xF0, 0xF7:
                    guard let length = variable(), at + length <= end else { return nil }
                    events.append(Event(tick: tick, message: [status] + bytes[at..<(at + length)]))
                    at += length
                case 0x80...0xEF:
                    running = status
                    let size = (0xC0...0xDF).contains(status) ? 1 : 2
                    guard at + size <= end else { return nil }
                    events.append(Event(tick: tick, message: [status] + bytes[at..<(at + size)]))
                    at += size
                default:
                    return nil
                }
            }
            tracks.append(events)
            at = end
        }
        self.tracks = tracks
        let all = tracks.joined()
        lastTick = all.map(\.tick).max() ?? 0
        let changes = all.filter { $0.message.count == 5 && $0.message[0] == 0xFF && $0.message[1] == 0x51 }.sorted { $0.tick < $1.tick }
            .map { ($0.tick, Int($0.message[2]) << 16 | Int($0.message[3]) << 8 | Int($0.message[4])) }
        tempos = (changes.first?.0 == 0 ? [] : [(0, 500_000)]) + changes
        let ordered = all.filter { $0.message[0] & 0xF0 == 0x90 && $0.message[2] > 0 }.sorted { $0.tick < $1.tick }
        let (division, isSMPTE, tempos) = (self.division, self.isSMPTE, self.tempos)
        notes = ordered.map { event in
            Note(tick: event.tick, seconds: Self.seconds(atTick: event.tick, tempos, division, isSMPTE), channel: Int(event.message[0] & 0x0F),
                 key: Int(event.message[1]), velocity: Int(event.message[2]))
        }
    }

    /// A format 1 Standard MIDI File of `tracks` (each ordered by tick; an end-of-track event is added to
    /// each) at `division` ticks per quarter note (clamped to 1…32 767).
    public static func bytes(tracks: [[Event]], division: Int) -> [UInt8] {
        func word(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func variable(_ value: Int) -> [UInt8] {
            var value = min(max(0, value), 0x0FFF_FFFF)
            var out = [UInt8(value & 0x7F)]
            value >>= 7
            while value > 0 {
                out.insert(UInt8(value & 0x7F) | 0x80, at: 0)
                value >>= 7
            }
            return out
        }
        var file = Array("MThd".utf8) + word(6, 4) + word(1, 2) + word(tracks.count, 2) + word(min(32_767, max(1, division)), 2)
        for track in tracks {
            var body: [UInt8] = []
            var tick = 0
            // The end of track is written once, at the end; a meta event without its type is no event.
            for event in track.sorted(by: { $0.tick < $1.tick }) where !event.message.isEmpty
                && !(event.message[0] == 0xFF && (event.message.count < 2 || event.message[1] == 0x2F)) {
                body += variable(event.tick - tick)
                tick = max(tick, event.tick)
                switch event.message[0] {
                case 0xFF: body += event.message[0..<2] + variable(event.message.count - 2) + event.message[2...]
                case 0xF0, 0xF7: body += [event.message[0]] + variable(event.message.count - 1) + event.message[1...]
                default: body += event.message
                }
            }
            body += [0x00, 0xFF, 0x2F, 0x00]
            file += Array("MTrk".utf8) + word(body.count, 4) + body
        }
        return file
    }

    /// Seconds from the start at `tick`, through the tempo map.
    public func seconds(atTick tick: Int) -> Double { Self.seconds(atTick: tick, tempos, division, isSMPTE) }

    private static func seconds(atTick tick: Int, _ tempos: [(tick: Int, microseconds: Int)], _ division: Int, _ isSMPTE: Bool) -> Double {
        if isSMPTE { return Double(tick) / Double(division) }
        var elapsed = 0.0
        for (index, change) in tempos.enumerated() {
            let next = index + 1 < tempos.count ? tempos[index + 1].tick : Int.max
            let perTick = Double(change.microseconds) / 1e6 / Double(division)
            if tick <= next { return elapsed + Double(tick - change.tick) * perTick }
            elapsed += Double(next - change.tick) * perTick
        }
        return elapsed
    }

    /// The tick at `seconds` from the start (0 for a negative or NaN time; the last tick past the end).
    public func tick(atSeconds seconds: Double) -> Int {
        guard !seconds.isNaN, seconds > 0 else { return 0 }
        if isSMPTE { return seconds >= Double(lastTick) / Double(division) ? lastTick : Int(seconds * Double(division)) }
        var elapsed = 0.0
        for (index, change) in tempos.enumerated() {
            let next = index + 1 < tempos.count ? tempos[index + 1].tick : Int.max
            let perTick = Double(change.microseconds) / 1e6 / Double(division)
            let span = next == Int.max ? Double.infinity : Double(next - change.tick) * perTick
            if seconds < elapsed + span { return min(lastTick, change.tick + Int(min(1e15, (seconds - elapsed) / perTick))) }
            elapsed += span
        }
        return lastTick
    }
}

extension MIDIFile {
    /// The most bytes a MIDI file is read to (a Standard MIDI File of a whole opera is a few hundred KiB).
    public static let maxFileBytes = 64 << 20

    /// The bytes of the file at `path`, read only if it is a regular file (a FIFO or a device would block
    /// or never end) of at most `maxFileBytes`. Any thread.
    /// - Throws: `.cannotReadFile` when it cannot be read, `.invalidFormat` when it is not a regular file
    ///   or is larger; the message names the path and what to do.
    public static func readBytes(path: String) throws(RecorderError) -> [UInt8] {
        guard let descriptor = openRegularFile(path) else {
            let reason = access(path, R_OK) == 0 ? "not a regular file (a folder, FIFO, socket or device)" : String(cString: strerror(errno))
            throw RecorderError(access(path, R_OK) == 0 ? .invalidFormat : .cannotReadFile,
                                "cannot read the MIDI file '\(path)': \(reason); give the path of a readable .mid file")
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw RecorderError(.cannotReadFile, "cannot read the MIDI file '\(path)': \(String(cString: strerror(errno))); check the file")
            }
            if count == 0 { return bytes }
            guard bytes.count + count <= maxFileBytes else {
                throw RecorderError(.invalidFormat, "cannot read the MIDI file '\(path)': over \(maxFileBytes >> 20) MiB, which no Standard "
                                    + "MIDI File is; give a .mid file")
            }
            bytes += chunk[0..<count]
        }
    }
}
