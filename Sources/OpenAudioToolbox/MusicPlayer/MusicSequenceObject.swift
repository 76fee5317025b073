// A Music Sequence: its tempo track and tracks of timed events (notes with durations, channel messages,
// raw MIDI, meta events, tempos, user data), the tempo map between beats and seconds, and its Standard
// MIDI File form both ways (through RecorderKit's MIDIFile).
import Foundation
import Locking
import RecorderKit

/// One event's payload as Apple's structs lay it out (MIDINoteMessage, MIDIMetaEvent with its data, …),
/// at a fixed address the event iterator hands out.
final class MusicEventPayload: @unchecked Sendable {
    // @unchecked Sendable: the bytes are written once, at init, and only read after.
    let bytes: UnsafeMutableRawPointer
    let size: Int

    init(copying source: UnsafeRawPointer, size: Int) {
        self.size = size
        bytes = .allocate(byteCount: max(1, size), alignment: 16)
        bytes.copyMemory(from: source, byteCount: size)
    }

    convenience init<T: BitwiseCopyable>(_ value: T) {
        var value = value
        self.init(copying: &value, size: MemoryLayout<T>.size)
    }

    /// A variable-length event: a header of `header` bytes (its length field at `lengthOffset`) then `data`.
    convenience init(header: [UInt8], lengthOffset: Int, data: [UInt8]) {
        var all = header + data
        withUnsafeBytes(of: UInt32(data.count)) { for (index, byte) in $0.enumerated() { all[lengthOffset + index] = byte } }
        self.init(copying: all, size: all.count)
    }

    deinit { bytes.deallocate() }

    func load<T>(as type: T.Type) -> T { bytes.loadUnaligned(as: T.self) }
}

struct MusicEvent {
    var time: MusicTimeStamp
    let type: MusicEventType
    let payload: MusicEventPayload
}

/// A track: its events in time order (equal times in the order added) and its properties.
final class MusicTrackObject: @unchecked Sendable {
    // @unchecked Sendable: every field is under the sequence's lock.
    weak var sequence: MusicSequenceObject?
    var handle: MusicTrack?
    var events: [MusicEvent] = []
    var loopInfo = MusicTrackLoopInfo(loopDuration: 0, numberOfLoops: 1)
    var offset: MusicTimeStamp = 0
    var muted = false
    var solo = false
    /// The length the program set, if it did.
    var setLength: MusicTimeStamp?
    var destination: AUNode = 0
    let isTempoTrack: Bool

    init(sequence: MusicSequenceObject, isTempoTrack: Bool) {
        self.sequence = sequence
        self.isTempoTrack = isTempoTrack
    }

    /// Inserts after the events at the same time (at the end at once when it comes last, as events
    /// added in order do).
    func insert(_ event: MusicEvent) {
        if events.last.map({ $0.time <= event.time }) ?? true {
            events.append(event)
            return
        }
        let index = events.firstIndex { $0.time > event.time } ?? events.endIndex
        events.insert(event, at: index)
    }

    /// The time of the last event plus what it lasts (a note's duration).
    var computedLength: MusicTimeStamp {
        events.map { event in
            event.time + (event.type == kMusicEventType_MIDINoteMessage ? Double(event.payload.load(as: MIDINoteMessage.self).duration) : 0)
        }.max() ?? 0
    }

    var length: MusicTimeStamp { setLength ?? computedLength }
}

/// A sequence: the tempo track (tempo and other meta events), the tracks, the tempo map.
final class MusicSequenceObject: @unchecked Sendable {
    // @unchecked Sendable: every field, the tracks' too, is under `lock` (recursive: a call made while
    // another holds it from the same thread, such as a track's sequence, takes it again).
    let lock = PosixMutex(recursive: true)
    private(set) var tempoTrack: MusicTrackObject!
    private(set) var tracks: [MusicTrackObject] = []
    var graph: AUGraph?
    var type: MusicSequenceType = .beats

    init() {
        tempoTrack = MusicTrackObject(sequence: self, isTempoTrack: true)
        tempoTrack.handle = TrackRegistry.add(tempoTrack)
    }

    func newTrack() -> MusicTrackObject {
        lock.withLock {
            let track = MusicTrackObject(sequence: self, isTempoTrack: false)
            track.handle = TrackRegistry.add(track)
            tracks.append(track)
            return track
        }
    }

    func remove(_ track: MusicTrackObject) -> Bool {
        lock.withLock {
            guard let index = tracks.firstIndex(where: { $0 === track }) else { return false }
            tracks.remove(at: index)
            if let handle = track.handle { _ = TrackRegistry.remove(handle) }
            return true
        }
    }

    /// Forgets every track (the tempo track's events too): the handles turn invalid.
    func removeAll() {
        lock.withLock {
            for track in tracks { if let handle = track.handle { _ = TrackRegistry.remove(handle) } }
            tracks.removeAll()
            tempoTrack.events.removeAll()
        }
    }

    deinit {
        for track in tracks + [tempoTrack] { if let handle = track?.handle { _ = TrackRegistry.remove(handle) } }
    }

    // MARK: The tempo map

    /// (beat, beats per minute) from the tempo track's tempo events, the first at beat 0 (120 before any).
    private var tempoMap: [(beat: Double, bpm: Double)] {
        let changes = tempoTrack.events.filter { $0.type == kMusicEventType_ExtendedTempo }
            .map { ($0.time, $0.payload.load(as: ExtendedTempoEvent.self).bpm) }
        return (changes.first?.0 == 0 ? [] : [(0, 120)]) + changes
    }

    /// Seconds from the start at `beats` (negative beats: before the start, at the first tempo).
    func seconds(forBeats beats: Double) -> Double {
        lock.withLock {
            let map = tempoMap
            var elapsed = 0.0
            for (index, change) in map.enumerated() {
                let next = index + 1 < map.count ? map[index + 1].beat : .infinity
                if beats <= next || index == map.count - 1 { return elapsed + (beats - change.beat) * 60 / change.bpm }
                elapsed += (next - change.beat) * 60 / change.bpm
            }
            return elapsed
        }
    }

    /// Beats from the start at `seconds`.
    func beats(forSeconds seconds: Double) -> Double {
        lock.withLock {
            let map = tempoMap
            var elapsed = 0.0
            for (index, change) in map.enumerated() {
                let next = index + 1 < map.count ? map[index + 1].beat : .infinity
                let span = next.isInfinite ? .infinity : (next - change.beat) * 60 / change.bpm
                if seconds < elapsed + span || index == map.count - 1 { return change.beat + (seconds - elapsed) * change.bpm / 60 }
                elapsed += span
            }
            return 0
        }
    }

    // MARK: Standard MIDI Files

    /// The sequence as a format 1 Standard MIDI File at `resolution` ticks per beat: the tempo track
    /// first, then each track (for playing: only those heard, muted and unsoloed ones left out, each
    /// moved by its offset).
    func midiFile(resolution: Int, forPlaying: Bool = false) -> [UInt8] {
        lock.withLock {
            let soloed = tracks.contains { $0.solo }
            let heard = forPlaying ? tracks.filter { !$0.muted && (!soloed || $0.solo) } : tracks
            let all = [tempoTrack!] + heard
            let converted = all.map { track in
                track.events.flatMap { Self.midiEvents($0, offset: forPlaying ? track.offset : 0, resolution: resolution) }
            }
            return MIDIFile.bytes(tracks: converted, division: resolution)
        }
    }

    /// An event's MIDI messages at ticks (a note: its on and its off).
    private static func midiEvents(_ event: MusicEvent, offset: MusicTimeStamp, resolution: Int) -> [MIDIFile.Event] {
        func tick(_ beats: Double) -> Int { Int(min(2e9, max(0, ((beats + offset) * Double(resolution)).rounded()))) }
        let payload = event.payload
        switch event.type {
        case kMusicEventType_MIDINoteMessage:
            let note = payload.load(as: MIDINoteMessage.self)
            let channel = note.channel & 0x0F, key = note.note & 0x7F
            let end = event.time + Double(max(0, note.duration.isFinite ? note.duration : 0))
            return [MIDIFile.Event(tick: tick(event.time), message: [0x90 | channel, key, max(1, note.velocity & 0x7F)]),
                    MIDIFile.Event(tick: tick(end), message: [0x80 | channel, key, note.releaseVelocity & 0x7F])]
        case kMusicEventType_MIDIChannelMessage:
            let message = payload.load(as: MIDIChannelMessage.self)
            guard (0x80...0xEF).contains(message.status) else { return [] }
            let short = (0xC0...0xDF).contains(message.status)
            return [MIDIFile.Event(tick: tick(event.time), message: short ? [message.status, message.data1 & 0x7F]
                                                                        : [message.status, message.data1 & 0x7F, message.data2 & 0x7F])]
        case kMusicEventType_ExtendedTempo:
            let bpm = payload.load(as: ExtendedTempoEvent.self).bpm
            let microseconds = Int(min(16_777_215, max(1, (60_000_000 / bpm).rounded())))
            return [MIDIFile.Event(tick: tick(event.time), message: [0xFF, 0x51, UInt8(microseconds >> 16), UInt8(microseconds >> 8 & 0xFF),
                                                                      UInt8(microseconds & 0xFF)])]
        case kMusicEventType_Meta:
            let type = payload.bytes.load(as: UInt8.self)
            let data = Array(UnsafeRawBufferPointer(start: payload.bytes + 8, count: payload.size - 8))
            return [MIDIFile.Event(tick: tick(event.time), message: [0xFF, type] + data)]
        case kMusicEventType_MIDIRawData:
            let data = Array(UnsafeRawBufferPointer(start: payload.bytes + 4, count: payload.size - 4))
            guard let first = data.first, first == 0xF0 || first == 0xF7 || (0x80...0xEF).contains(first) else { return [] }
            return [MIDIFile.Event(tick: tick(event.time), message: data)]
        default:
            return []  // user data, parameters and presets have no MIDI form
        }
    }

    /// Replaces the sequence's tracks with a Standard MIDI File's: a format 1 file's first track is the
    /// tempo track, a format 0 file's tempo, time and key signatures go there; each note on and its off
    /// make one note event with its duration; with `channelsToTracks`, one track per channel found, then
    /// one for the rest.
    func load(_ file: MIDIFile, channelsToTracks: Bool) {
        lock.withLock {
            removeAll()
            let resolution = Double(file.isSMPTE ? 480 : file.division)
            var tempoEvents: [MIDIFile.Event] = []
            var trackEvents: [[MIDIFile.Event]] = []
            for (index, track) in file.tracks.enumerated() {
                // A format 1 file's first track is its tempo track: its meta events go there (its notes and
                // other messages, if it has any, make a track of their own); elsewhere the tempo, time and
                // key signatures do.
                let isTempoTrack = file.format == 1 && index == 0
                func conductor(_ event: MIDIFile.Event) -> Bool {
                    guard event.message[0] == 0xFF else { return false }
                    if isTempoTrack { return true }
                    let type: UInt8 = event.message.count > 1 ? event.message[1] : 0
                    return type == 0x51 || type == 0x58 || type == 0x59
                }
                tempoEvents += track.filter(conductor)
                let rest = track.filter { !conductor($0) }
                if !(isTempoTrack && rest.isEmpty) { trackEvents.append(rest) }
            }
            if channelsToTracks {
                let all = trackEvents.flatMap { $0 }.sorted { $0.tick < $1.tick }
                let channels = Set(all.filter { (0x80...0xEF).contains($0.message[0]) }.map { $0.message[0] & 0x0F }).sorted()
                trackEvents = channels.map { channel in all.filter { (0x80...0xEF).contains($0.message[0]) && $0.message[0] & 0x0F == channel } }
                    + [all.filter { !(0x80...0xEF).contains($0.message[0]) }]
            }
            tempoTrack.events = events(tempoEvents, resolution: resolution, notes: false)
            for list in trackEvents { newTrack().events = events(list, resolution: resolution, notes: true) }
        }
    }

    /// A track's events from MIDI events: each note on and its off one note event, at the note on's place
    /// among the events of its time; notes never let go last to the track's end. The tempo track takes
    /// no notes.
    private func events(_ list: [MIDIFile.Event], resolution: Double, notes: Bool) -> [MusicEvent] {
        var made: [(order: Int, event: MusicEvent)] = []
        var pending: [UInt16: [(tick: Int, velocity: UInt8, order: Int)]] = [:]
        func note(_ key: UInt16, _ start: (tick: Int, velocity: UInt8, order: Int), end: Int, release: UInt8) {
            let message = MIDINoteMessage(channel: UInt8(key >> 8), note: UInt8(key & 0x7F), velocity: start.velocity, releaseVelocity: release,
                                          duration: Float(Double(end - start.tick) / resolution))
            made.append((start.order, MusicEvent(time: Double(start.tick) / resolution, type: kMusicEventType_MIDINoteMessage,
                                                 payload: MusicEventPayload(message))))
        }
        for (order, event) in list.enumerated() {
            let message = event.message
            if (0x80...0x9F).contains(message[0]), message.count == 3 {
                guard notes else { continue }
                let key = UInt16(message[0] & 0x0F) << 8 | UInt16(message[1])
                if message[0] & 0xF0 == 0x90 && message[2] > 0 {
                    pending[key, default: []].append((event.tick, message[2], order))
                } else if var starts = pending[key], !starts.isEmpty {
                    let start = starts.removeFirst()
                    pending[key] = starts
                    note(key, start, end: event.tick, release: message[0] & 0xF0 == 0x80 ? message[2] : 0)
                }
            } else if let converted = Self.event(event, resolution: resolution) {
                made.append((order, converted))
            }
        }
        let end = list.map(\.tick).max() ?? 0
        for (key, starts) in pending { for start in starts { note(key, start, end: end, release: 0) } }
        return made.sorted { ($0.event.time, $0.order) < ($1.event.time, $1.order) }.map(\.event)
    }

    /// Any MIDI event but a note's on or off as a sequence event (nil for a track's end).
    private static func event(_ event: MIDIFile.Event, resolution: Double) -> MusicEvent? {
        let time = Double(event.tick) / resolution
        let message = event.message
        switch message[0] {
        case 0x80...0xEF:
            let channelMessage = MIDIChannelMessage(status: message[0], data1: message.count > 1 ? message[1] : 0,
                                                    data2: message.count > 2 ? message[2] : 0, reserved: 0)
            return MusicEvent(time: time, type: kMusicEventType_MIDIChannelMessage, payload: MusicEventPayload(channelMessage))
        case 0xFF where message.count == 5 && message[1] == 0x51:
            let microseconds = Int(message[2]) << 16 | Int(message[3]) << 8 | Int(message[4])
            return MusicEvent(time: time, type: kMusicEventType_ExtendedTempo,
                              payload: MusicEventPayload(ExtendedTempoEvent(bpm: 60_000_000 / Double(max(1, microseconds)))))
        case 0xFF where message.count >= 2 && message[1] == 0x2F:
            return nil  // the end of a track: a file's framing, not an event
        case 0xFF where message.count >= 2:
            return MusicEvent(time: time, type: kMusicEventType_Meta,
                              payload: MusicEventPayload(header: [message[1], 0, 0, 0, 0, 0, 0, 0], lengthOffset: 4, data: Array(message[2...])))
        default:
            return MusicEvent(time: time, type: kMusicEventType_MIDIRawData,
                              payload: MusicEventPayload(header: [0, 0, 0, 0], lengthOffset: 0, data: message))
        }
    }
}
