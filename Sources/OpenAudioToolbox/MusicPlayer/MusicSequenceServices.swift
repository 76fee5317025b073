// Music Sequence, Music Track and Music Event Iterator calls with Apple's signatures, over
// MusicSequenceObject: making sequences and tracks, adding events, reading and writing Standard MIDI
// Files, the tempo map, track properties, and walking a track's events. Any thread.
import Foundation
import RecorderKit

/// Core Foundation's data, as Apple's MIDI file calls take and give it (`data as CFData`).
public typealias CFData = NSData

enum SequenceRegistry {
    static let sequences = HandleRegistry<MusicSequenceObject>()
    static func with(_ handle: MusicSequence, _ body: (MusicSequenceObject) -> OSStatus) -> OSStatus {
        sequences.with(handle) { sequence in sequence.lock.withLock { body(sequence) } }
    }
}

enum TrackRegistry {
    private static let tracks = HandleRegistry<MusicTrackObject>()
    static func add(_ track: MusicTrackObject) -> MusicTrack { tracks.add(track) }
    static func remove(_ handle: MusicTrack) -> MusicTrackObject? { tracks.remove(handle) }
    /// Runs `body` with the track of `handle` and its sequence, under the sequence's lock.
    static func with(_ handle: MusicTrack, _ body: (MusicTrackObject, MusicSequenceObject) -> OSStatus) -> OSStatus {
        guard let track = tracks.find(handle), let sequence = track.sequence else { return kAudio_ParamError }
        return sequence.lock.withLock { tracks.find(handle) == nil ? kAudioToolboxErr_TrackNotFound : body(track, sequence) }
    }
}

// MARK: Sequences

/// A new sequence: a tempo track and no other.
@discardableResult
public func NewMusicSequence(_ outSequence: UnsafeMutablePointer<MusicSequence?>) -> OSStatus {
    outSequence.pointee = SequenceRegistry.sequences.add(MusicSequenceObject())
    return noErr
}

/// Disposes of the sequence and its tracks (their handles turn invalid); a player given it plays on what
/// it had prerolled, until it is given another.
@discardableResult
public func DisposeMusicSequence(_ inSequence: MusicSequence) -> OSStatus {
    guard let sequence = SequenceRegistry.sequences.remove(inSequence) else { return kAudio_ParamError }
    sequence.removeAll()
    return noErr
}

/// Adds an empty track at the end.
@discardableResult
public func MusicSequenceNewTrack(_ inSequence: MusicSequence, _ outTrack: UnsafeMutablePointer<MusicTrack?>) -> OSStatus {
    SequenceRegistry.with(inSequence) { sequence in
        outTrack.pointee = sequence.newTrack().handle
        return noErr
    }
}

/// Removes a track (not the tempo track: `kAudioToolboxErr_IllegalTrackDestination`).
@discardableResult
public func MusicSequenceDisposeTrack(_ inSequence: MusicSequence, _ inTrack: MusicTrack) -> OSStatus {
    SequenceRegistry.with(inSequence) { sequence in
        if sequence.tempoTrack.handle == inTrack { return kAudioToolboxErr_IllegalTrackDestination }
        guard let track = sequence.tracks.first(where: { $0.handle == inTrack }) else { return kAudioToolboxErr_TrackNotFound }
        return sequence.remove(track) ? noErr : kAudioToolboxErr_TrackNotFound
    }
}

/// How many tracks there are, the tempo track not counted.
@discardableResult
public func MusicSequenceGetTrackCount(_ inSequence: MusicSequence, _ outNumberOfTracks: UnsafeMutablePointer<UInt32>) -> OSStatus {
    SequenceRegistry.with(inSequence) { sequence in
        outNumberOfTracks.pointee = UInt32(sequence.tracks.count)
        return noErr
    }
}

/// The track at `inTrackIndex` (`kAudioToolboxErr_TrackIndexError` past the last).
@discardableResult
public func MusicSequenceGetIndTrack(_ inSequence: MusicSequence, _ inTrackIndex: UInt32, _ outTrack: UnsafeMutablePointer<MusicTrack?>) -> OSStatus {
    SequenceRegistry.with(inSequence) { sequence in
        guard Int(inTrackIndex) < sequence.tracks.count else { return kAudioToolboxErr_TrackIndexError }
        outTrack.pointee = sequence.tracks[Int(inTrackIndex)].handle
        return noErr
    }
}

/// A track's index (`kAudioToolboxErr_TrackNotFound` for the tempo track or another sequence's).
@discardableResult
public func MusicSequenceGetTrackIndex(_ inSequence: MusicSequence, _ inTrack: MusicTrack, _ outTrackIndex: UnsafeMutablePointer<UInt32>) -> OSStatus {
    SequenceRegistry.with(inSequence) { sequence in
        guard let index = sequence.tracks.firstIndex(where: { $0.handle == inTrack }) else { return kAudioToolboxErr_TrackNotFound }
        outTrackIndex.pointee = UInt32(index)
        return noErr
    }
}

/// The tempo track: tempo events (and time and key signatures, and other meta events).
@discardableResult
public func MusicSequenceGetTempoTrack(_ inSequence: MusicSequence, _ outTrack: UnsafeMutablePointer<MusicTrack?>) -> OSStatus {
    SequenceRegistry.with(inSequence) { sequence in
        outTrack.pointee = sequence.tempoTrack.handle
        return noErr
    }
}

/// A sequence plays through its player's own General MIDI synthesizer (FluidSynth with Debian's GM
/// SoundFont); a graph here holds no instrument to play it, so a graph is refused
/// (`kAudioToolboxErr_IllegalTrackDestination`, with a line saying so). nil: none, as it is.
@discardableResult
public func MusicSequenceSetAUGraph(_ inSequence: MusicSequence, _ inGraph: AUGraph?) -> OSStatus {
    SequenceRegistry.with(inSequence) { sequence in
        guard inGraph == nil else {
            QueueRegistry.noteFailure("a sequence cannot play through an AUGraph here (a graph holds no instrument unit): leave its graph "
                + "unset and MusicPlayer plays it through its own General MIDI synthesizer, or use AVAudioEngine's sampler")
            return kAudioToolboxErr_IllegalTrackDestination
        }
        sequence.graph = nil
        return noErr
    }
}

/// A sequence here has no graph (Apple's makes a default one of a synthesizer and an output): nil and
/// `kAudio_UnimplementedError`, with a line.
@discardableResult
public func MusicSequenceGetAUGraph(_ inSequence: MusicSequence, _ outGraph: UnsafeMutablePointer<AUGraph?>) -> OSStatus {
    SequenceRegistry.with(inSequence) { _ in
        outGraph.pointee = nil
        QueueRegistry.noteFailure("a sequence here has no AUGraph: MusicPlayer plays it through its own General MIDI synthesizer")
        return kAudio_UnimplementedError
    }
}

/// Beats only (`kAudioToolboxErr_InvalidSequenceType` for seconds or samples, with a line).
@discardableResult
public func MusicSequenceSetSequenceType(_ inSequence: MusicSequence, _ inType: MusicSequenceType) -> OSStatus {
    SequenceRegistry.with(inSequence) { _ in
        guard inType == .beats else {
            QueueRegistry.noteFailure("sequences here count beats (kMusicSequenceType_Beats); convert times with MusicSequenceGetBeatsForSeconds")
            return kAudioToolboxErr_InvalidSequenceType
        }
        return noErr
    }
}

/// The sequence's type: beats.
@discardableResult
public func MusicSequenceGetSequenceType(_ inSequence: MusicSequence, _ outType: UnsafeMutablePointer<MusicSequenceType>) -> OSStatus {
    SequenceRegistry.with(inSequence) { sequence in
        outType.pointee = sequence.type
        return noErr
    }
}

/// Seconds from the start at `inBeats`, through the tempo track (120 beats a minute before any tempo).
@discardableResult
public func MusicSequenceGetSecondsForBeats(_ inSequence: MusicSequence, _ inBeats: MusicTimeStamp, _ outSeconds: UnsafeMutablePointer<Float64>) -> OSStatus {
    SequenceRegistry.with(inSequence) { sequence in
        guard inBeats.isFinite else { return kAudio_ParamError }
        outSeconds.pointee = sequence.seconds(forBeats: inBeats)
        return noErr
    }
}

/// Beats from the start at `inSeconds`.
@discardableResult
public func MusicSequenceGetBeatsForSeconds(_ inSequence: MusicSequence, _ inSeconds: Float64, _ outBeats: UnsafeMutablePointer<MusicTimeStamp>) -> OSStatus {
    SequenceRegistry.with(inSequence) { sequence in
        guard inSeconds.isFinite else { return kAudio_ParamError }
        outBeats.pointee = sequence.beats(forSeconds: inSeconds)
        return noErr
    }
}

// MARK: MIDI files

private func loadMIDI(_ sequence: MusicSequenceObject, _ bytes: [UInt8], _ hint: MusicSequenceFileTypeID, _ flags: MusicSequenceLoadFlags,
                      _ name: String) -> OSStatus {
    guard hint == .anyType || hint == .midiType else {
        QueueRegistry.noteFailure("cannot load \(name): only Standard MIDI Files are read here (not iMelody)")
        return kAudioFileUnsupportedFileTypeError
    }
    guard let file = MIDIFile(bytes) else {
        QueueRegistry.noteFailure("cannot load \(name): not a Standard MIDI File (no MThd header, or a track cut short); give a .mid file")
        return kAudioFileInvalidFileError
    }
    sequence.load(file, channelsToTracks: flags.contains(.smf_ChannelsToTracks))
    return noErr
}

/// Replaces the sequence's tracks with a Standard MIDI File's (see the porting page for how tracks are made).
@discardableResult
public func MusicSequenceFileLoad(_ inSequence: MusicSequence, _ inFileRef: CFURL, _ inFileTypeHint: MusicSequenceFileTypeID,
                                  _ inFlags: MusicSequenceLoadFlags) -> OSStatus {
    SequenceRegistry.with(inSequence) { sequence in
        let bytes: [UInt8]
        do throws(RecorderError) {
            bytes = try MIDIFile.readBytes(path: inFileRef.path)
        } catch {
            QueueRegistry.noteFailure(error)
            return error.code == .cannotReadFile ? kAudioFileFileNotFoundError : kAudioFileInvalidFileError
        }
        return loadMIDI(sequence, bytes, inFileTypeHint, inFlags, inFileRef.path)
    }
}

/// As `MusicSequenceFileLoad`, from the file's bytes.
@discardableResult
public func MusicSequenceFileLoadData(_ inSequence: MusicSequence, _ inData: CFData, _ inFileTypeHint: MusicSequenceFileTypeID,
                                      _ inFlags: MusicSequenceLoadFlags) -> OSStatus {
    SequenceRegistry.with(inSequence) { loadMIDI($0, [UInt8](inData as Data), inFileTypeHint, inFlags, "the MIDI data") }
}

private func midiBytes(_ sequence: MusicSequenceObject, _ type: MusicSequenceFileTypeID, _ resolution: Int16) -> [UInt8]? {
    guard type == .midiType || type == .anyType else {
        QueueRegistry.noteFailure("sequences are written as Standard MIDI Files only (kMusicSequenceFile_MIDIType)")
        return nil
    }
    return sequence.midiFile(resolution: resolution > 0 ? Int(resolution) : 480)
}

/// Writes the sequence as a format 1 Standard MIDI File at `inResolution` ticks per beat (0 or less:
/// 480): the tempo track first. An existing file is replaced only with `kMusicSequenceFileFlags_EraseFile`.
@discardableResult
public func MusicSequenceFileCreate(_ inSequence: MusicSequence, _ inFileRef: CFURL, _ inFileType: MusicSequenceFileTypeID,
                                    _ inFlags: MusicSequenceFileFlags, _ inResolution: Int16) -> OSStatus {
    SequenceRegistry.with(inSequence) { sequence in
        guard let bytes = midiBytes(sequence, inFileType, inResolution) else { return kAudioFileUnsupportedFileTypeError }
        let path = inFileRef.path
        if FileManager.default.fileExists(atPath: path), !inFlags.contains(.eraseFile) {
            QueueRegistry.noteFailure("cannot write \(path): it exists; pass kMusicSequenceFileFlags_EraseFile to replace it")
            return kAudioFilePermissionsError
        }
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            QueueRegistry.noteFailure("cannot write \(path): \(error.localizedDescription); check the folder and the disk")
            return kAudioFilePermissionsError
        }
        return noErr
    }
}

/// As `MusicSequenceFileCreate`, into data the caller owns (`takeRetainedValue()`).
@discardableResult
public func MusicSequenceFileCreateData(_ inSequence: MusicSequence, _ inFileType: MusicSequenceFileTypeID, _ inFlags: MusicSequenceFileFlags,
                                        _ inResolution: Int16, _ outData: UnsafeMutablePointer<Unmanaged<CFData>?>) -> OSStatus {
    SequenceRegistry.with(inSequence) { sequence in
        guard let bytes = midiBytes(sequence, inFileType, inResolution) else { return kAudioFileUnsupportedFileTypeError }
        outData.pointee = Unmanaged.passRetained(NSData(bytes: bytes, length: bytes.count))
        return noErr
    }
}

// MARK: Tracks

/// The sequence a track belongs to.
@discardableResult
public func MusicTrackGetSequence(_ inTrack: MusicTrack, _ outSequence: UnsafeMutablePointer<MusicSequence?>) -> OSStatus {
    TrackRegistry.with(inTrack) { _, sequence in
        outSequence.pointee = OpaquePointer(Unmanaged.passUnretained(sequence).toOpaque())
        return noErr
    }
}

/// Tracks play through the player's synthesizer; a graph's nodes are no destination here
/// (`kAudioToolboxErr_IllegalTrackDestination`).
@discardableResult
public func MusicTrackSetDestNode(_ inTrack: MusicTrack, _ inNode: AUNode) -> OSStatus {
    TrackRegistry.with(inTrack) { _, _ in
        QueueRegistry.noteFailure("a track cannot play through a graph's node here: MusicPlayer plays every track through its own "
            + "General MIDI synthesizer (the tracks' program changes choose the instruments)")
        return kAudioToolboxErr_IllegalTrackDestination
    }
}

/// No destination node is set here (`kAudioToolboxError_NoTrackDestination`).
@discardableResult
public func MusicTrackGetDestNode(_ inTrack: MusicTrack, _ outNode: UnsafeMutablePointer<AUNode>) -> OSStatus {
    TrackRegistry.with(inTrack) { _, _ in kAudioToolboxError_NoTrackDestination }
}

private func propertySize(_ id: UInt32) -> Int? {
    switch id {
    case kSequenceTrackProperty_LoopInfo: MemoryLayout<MusicTrackLoopInfo>.size
    case kSequenceTrackProperty_OffsetTime, kSequenceTrackProperty_TrackLength: 8
    case kSequenceTrackProperty_MuteStatus, kSequenceTrackProperty_SoloStatus: 1
    case kSequenceTrackProperty_TimeResolution: 2
    default: nil
    }
}

/// A track's property: its length (its last event's time plus a note's duration, or the length set),
/// mute and solo (Booleans), offset, loop info, and the tempo track's time resolution (480).
@discardableResult
public func MusicTrackGetProperty(_ inTrack: MusicTrack, _ inPropertyID: UInt32, _ outData: UnsafeMutableRawPointer,
                                  _ ioLength: UnsafeMutablePointer<UInt32>) -> OSStatus {
    TrackRegistry.with(inTrack) { track, _ in
        guard let size = propertySize(inPropertyID), inPropertyID != kSequenceTrackProperty_TimeResolution || track.isTempoTrack else {
            return kAudio_ParamError
        }
        guard Int(ioLength.pointee) >= size else { return kAudio_ParamError }
        switch inPropertyID {
        case kSequenceTrackProperty_LoopInfo: outData.storeBytes(of: track.loopInfo, as: MusicTrackLoopInfo.self)
        case kSequenceTrackProperty_OffsetTime: outData.storeBytes(of: track.offset, as: Double.self)
        case kSequenceTrackProperty_TrackLength: outData.storeBytes(of: track.length, as: Double.self)
        case kSequenceTrackProperty_MuteStatus: outData.storeBytes(of: track.muted ? 1 : 0, as: UInt8.self)
        case kSequenceTrackProperty_SoloStatus: outData.storeBytes(of: track.solo ? 1 : 0, as: UInt8.self)
        default: outData.storeBytes(of: Int16(480), as: Int16.self)
        }
        ioLength.pointee = UInt32(size)
        return noErr
    }
}

/// Sets a track's length, mute, solo or offset (heard from the next MusicPlayerPreroll or start). Loops
/// other than one play (`numberOfLoops` 1) are not played here: `kAudio_UnimplementedError`, with a line.
@discardableResult
public func MusicTrackSetProperty(_ inTrack: MusicTrack, _ inPropertyID: UInt32, _ inData: UnsafeMutableRawPointer, _ inLength: UInt32) -> OSStatus {
    TrackRegistry.with(inTrack) { track, _ in
        guard let size = propertySize(inPropertyID), Int(inLength) >= size else { return kAudio_ParamError }
        switch inPropertyID {
        case kSequenceTrackProperty_LoopInfo:
            let info = inData.load(as: MusicTrackLoopInfo.self)
            guard info.numberOfLoops == 1 || info.loopDuration == 0 else {
                QueueRegistry.noteFailure("track loops are not played here; copy the events for each repeat instead")
                return kAudio_UnimplementedError
            }
            track.loopInfo = info
        case kSequenceTrackProperty_OffsetTime:
            let offset = inData.load(as: Double.self)
            guard offset.isFinite else { return kAudio_ParamError }
            track.offset = offset
        case kSequenceTrackProperty_TrackLength:
            let length = inData.load(as: Double.self)
            guard length.isFinite, length >= 0 else { return kAudio_ParamError }
            track.setLength = length
        case kSequenceTrackProperty_MuteStatus: track.muted = inData.load(as: UInt8.self) != 0
        case kSequenceTrackProperty_SoloStatus: track.solo = inData.load(as: UInt8.self) != 0
        default: return kAudio_ParamError  // the resolution is read only
        }
        return noErr
    }
}

private func addEvent(_ track: MusicTrack, _ time: MusicTimeStamp, _ type: MusicEventType, _ payload: @autoclosure () -> MusicEventPayload) -> OSStatus {
    TrackRegistry.with(track) { track, _ in
        guard time.isFinite, time >= 0 else { return kAudio_ParamError }
        // Tempo events belong to the tempo track only, and the tempo track takes only tempo and meta events.
        guard (type == kMusicEventType_ExtendedTempo) == track.isTempoTrack || (track.isTempoTrack && type == kMusicEventType_Meta) else {
            return kAudioToolboxErr_InvalidEventType
        }
        track.insert(MusicEvent(time: time, type: type, payload: payload()))
        return noErr
    }
}

/// Adds a note: its channel, key, velocity, release velocity and duration in beats.
@discardableResult
public func MusicTrackNewMIDINoteEvent(_ inTrack: MusicTrack, _ inTimeStamp: MusicTimeStamp, _ inMessage: UnsafePointer<MIDINoteMessage>) -> OSStatus {
    guard inMessage.pointee.duration.isFinite, inMessage.pointee.duration >= 0 else { return kAudio_ParamError }
    return addEvent(inTrack, inTimeStamp, kMusicEventType_MIDINoteMessage, MusicEventPayload(inMessage.pointee))
}

/// Adds a channel message (program change, controller, pitch bend, aftertouch).
@discardableResult
public func MusicTrackNewMIDIChannelEvent(_ inTrack: MusicTrack, _ inTimeStamp: MusicTimeStamp,
                                          _ inMessage: UnsafePointer<MIDIChannelMessage>) -> OSStatus {
    guard (0x80...0xEF).contains(inMessage.pointee.status) else { return kAudio_ParamError }
    return addEvent(inTrack, inTimeStamp, kMusicEventType_MIDIChannelMessage, MusicEventPayload(inMessage.pointee))
}

/// Whether `bytes` are one MIDI message a file can hold: a system exclusive (F0 or F7, then data bytes,
/// an F7 last allowed) or one whole channel message.
func isOneMIDIMessage(_ bytes: [UInt8]) -> Bool {
    guard let status = bytes.first else { return false }
    switch status {
    case 0xF0, 0xF7: return bytes.dropFirst().dropLast().allSatisfy { $0 < 0x80 } && (bytes.count == 1 || bytes.last! < 0x80 || bytes.last! == 0xF7)
    case 0x80...0xEF: return bytes.count == ((0xC0...0xDF).contains(status) ? 2 : 3) && bytes.dropFirst().allSatisfy { $0 < 0x80 }
    default: return false
    }
}

/// Adds raw MIDI bytes: a system exclusive message with its F0, or one whole channel message (anything
/// else is `kAudio_ParamError`: a file could not hold it).
@discardableResult
public func MusicTrackNewMIDIRawDataEvent(_ inTrack: MusicTrack, _ inTimeStamp: MusicTimeStamp, _ inRawData: UnsafePointer<MIDIRawData>) -> OSStatus {
    let length = Int(min(inRawData.pointee.length, 1 << 20))
    let data = Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(inRawData) + 4, count: length))
    guard isOneMIDIMessage(data) else { return kAudio_ParamError }
    return addEvent(inTrack, inTimeStamp, kMusicEventType_MIDIRawData, MusicEventPayload(header: [0, 0, 0, 0], lengthOffset: 0, data: data))
}

/// Adds a tempo change (beats per minute, above 0) to the tempo track.
@discardableResult
public func MusicTrackNewExtendedTempoEvent(_ inTrack: MusicTrack, _ inTimeStamp: MusicTimeStamp, _ inBPM: Float64) -> OSStatus {
    guard inBPM.isFinite, inBPM > 0 else { return kAudio_ParamError }
    return addEvent(inTrack, inTimeStamp, kMusicEventType_ExtendedTempo, MusicEventPayload(ExtendedTempoEvent(bpm: inBPM)))
}

/// Adds a meta event (a track name, a time signature, …) with its data.
@discardableResult
public func MusicTrackNewMetaEvent(_ inTrack: MusicTrack, _ inTimeStamp: MusicTimeStamp, _ inMetaEvent: UnsafePointer<MIDIMetaEvent>) -> OSStatus {
    let length = Int(min(inMetaEvent.pointee.dataLength, 1 << 20))
    let data = Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(inMetaEvent) + 8, count: length))
    return addEvent(inTrack, inTimeStamp, kMusicEventType_Meta,
                    MusicEventPayload(header: [inMetaEvent.pointee.metaEventType, 0, 0, 0, 0, 0, 0, 0], lengthOffset: 4, data: data))
}

/// Adds the program's own data (kept and iterated, never played or written to a file).
@discardableResult
public func MusicTrackNewUserEvent(_ inTrack: MusicTrack, _ inTimeStamp: MusicTimeStamp, _ inUserData: UnsafePointer<MusicEventUserData>) -> OSStatus {
    let length = Int(min(inUserData.pointee.length, 1 << 20))
    let data = Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(inUserData) + 4, count: length))
    return addEvent(inTrack, inTimeStamp, kMusicEventType_User, MusicEventPayload(header: [0, 0, 0, 0], lengthOffset: 0, data: data))
}

/// Removes the events from `inStartTime` up to (not including) `inEndTime`.
@discardableResult
public func MusicTrackClear(_ inTrack: MusicTrack, _ inStartTime: MusicTimeStamp, _ inEndTime: MusicTimeStamp) -> OSStatus {
    TrackRegistry.with(inTrack) { track, _ in
        guard !inStartTime.isNaN, !inEndTime.isNaN, inStartTime <= inEndTime else { return kAudio_ParamError }
        track.events.removeAll { $0.time >= inStartTime && $0.time < inEndTime }
        return noErr
    }
}

/// Moves the events from `inStartTime` up to `inEndTime` by `inMoveTime` beats (none before 0).
@discardableResult
public func MusicTrackMoveEvents(_ inTrack: MusicTrack, _ inStartTime: MusicTimeStamp, _ inEndTime: MusicTimeStamp,
                                 _ inMoveTime: MusicTimeStamp) -> OSStatus {
    TrackRegistry.with(inTrack) { track, _ in
        guard !inStartTime.isNaN, !inEndTime.isNaN, inStartTime <= inEndTime, inMoveTime.isFinite else { return kAudio_ParamError }
        let moved = track.events.filter { $0.time >= inStartTime && $0.time < inEndTime }
        track.events.removeAll { $0.time >= inStartTime && $0.time < inEndTime }
        for var event in moved {
            event.time = max(0, event.time + inMoveTime)
            track.insert(event)
        }
        return noErr
    }
}
