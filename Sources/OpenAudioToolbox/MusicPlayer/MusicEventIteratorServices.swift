// Music Event Iterator calls with Apple's signatures: walking a track's events in time order, reading
// each (its time, type and Apple's struct for it), moving, changing and deleting it. Any thread.

/// An iterator: its track and the index of its current event (the track's count: past the last).
final class EventIterator: @unchecked Sendable {
    // @unchecked Sendable: `index` is read and written under the track's sequence's lock.
    let track: MusicTrackObject
    var index = 0

    init(track: MusicTrackObject) { self.track = track }
}

enum IteratorRegistry {
    static let iterators = HandleRegistry<EventIterator>()
    /// Runs `body` with the iterator of `handle`, under its sequence's lock (the index kept within the track).
    static func with(_ handle: MusicEventIterator, _ body: (EventIterator) -> OSStatus) -> OSStatus {
        guard let iterator = iterators.find(handle), let sequence = iterator.track.sequence else { return kAudio_ParamError }
        return sequence.lock.withLock {
            iterator.index = min(iterator.index, iterator.track.events.count)
            return body(iterator)
        }
    }
}

/// An iterator at the track's first event.
@discardableResult
public func NewMusicEventIterator(_ inTrack: MusicTrack, _ outIterator: UnsafeMutablePointer<MusicEventIterator?>) -> OSStatus {
    TrackRegistry.with(inTrack) { track, _ in
        outIterator.pointee = IteratorRegistry.iterators.add(EventIterator(track: track))
        return noErr
    }
}

/// Disposes of the iterator.
@discardableResult
public func DisposeMusicEventIterator(_ inIterator: MusicEventIterator) -> OSStatus {
    IteratorRegistry.iterators.remove(inIterator) == nil ? kAudio_ParamError : noErr
}

/// Moves to the first event at or after `inTimeStamp` (past the last if none).
@discardableResult
public func MusicEventIteratorSeek(_ inIterator: MusicEventIterator, _ inTimeStamp: MusicTimeStamp) -> OSStatus {
    IteratorRegistry.with(inIterator) { iterator in
        guard !inTimeStamp.isNaN else { return kAudio_ParamError }
        iterator.index = iterator.track.events.firstIndex { $0.time >= inTimeStamp } ?? iterator.track.events.count
        return noErr
    }
}

/// Moves to the next event (past the last: `HasCurrentEvent` turns false); `kAudioToolboxErr_EndOfTrack`
/// when already past it.
@discardableResult
public func MusicEventIteratorNextEvent(_ inIterator: MusicEventIterator) -> OSStatus {
    IteratorRegistry.with(inIterator) { iterator in
        guard iterator.index < iterator.track.events.count else { return kAudioToolboxErr_EndOfTrack }
        iterator.index += 1
        return noErr
    }
}

/// Moves to the previous event; `kAudioToolboxErr_StartOfTrack` at the first.
@discardableResult
public func MusicEventIteratorPreviousEvent(_ inIterator: MusicEventIterator) -> OSStatus {
    IteratorRegistry.with(inIterator) { iterator in
        guard iterator.index > 0 else { return kAudioToolboxErr_StartOfTrack }
        iterator.index -= 1
        return noErr
    }
}

/// The current event: its time, type, its data (Apple's struct for the type, valid until the event is
/// changed or deleted) and the data's size; `kAudioToolboxErr_EndOfTrack` past the last.
@discardableResult
public func MusicEventIteratorGetEventInfo(_ inIterator: MusicEventIterator, _ outTimeStamp: UnsafeMutablePointer<MusicTimeStamp>,
                                           _ outEventType: UnsafeMutablePointer<MusicEventType>, _ outEventData: UnsafeMutablePointer<UnsafeRawPointer?>,
                                           _ outEventDataSize: UnsafeMutablePointer<UInt32>) -> OSStatus {
    IteratorRegistry.with(inIterator) { iterator in
        guard iterator.index < iterator.track.events.count else { return kAudioToolboxErr_EndOfTrack }
        let event = iterator.track.events[iterator.index]
        outTimeStamp.pointee = event.time
        outEventType.pointee = event.type
        outEventData.pointee = UnsafeRawPointer(event.payload.bytes)
        outEventDataSize.pointee = UInt32(event.payload.size)
        return noErr
    }
}

/// Replaces the current event's data (its type must stay: `kAudioToolboxErr_InvalidEventType` otherwise).
@discardableResult
public func MusicEventIteratorSetEventInfo(_ inIterator: MusicEventIterator, _ inEventType: MusicEventType, _ inEventData: UnsafeRawPointer) -> OSStatus {
    IteratorRegistry.with(inIterator) { iterator in
        guard iterator.index < iterator.track.events.count else { return kAudioToolboxErr_EndOfTrack }
        let event = iterator.track.events[iterator.index]
        guard event.type == inEventType else { return kAudioToolboxErr_InvalidEventType }
        // A variable-length event keeps its length field's size of data from the new header.
        let size: Int = switch inEventType {
        case kMusicEventType_Meta: 8 + Int(min(inEventData.loadUnaligned(fromByteOffset: 4, as: UInt32.self), 1 << 20))
        case kMusicEventType_MIDIRawData, kMusicEventType_User: 4 + Int(min(inEventData.loadUnaligned(as: UInt32.self), 1 << 20))
        default: event.payload.size
        }
        let payload = MusicEventPayload(copying: inEventData, size: size)
        // What the adding calls refuse is refused here too (a tempo of 0 or NaN, a note of NaN beats, bytes
        // that are not one MIDI message).
        switch inEventType {
        case kMusicEventType_ExtendedTempo:
            let bpm = payload.load(as: ExtendedTempoEvent.self).bpm
            guard bpm.isFinite, bpm > 0 else { return kAudio_ParamError }
        case kMusicEventType_MIDINoteMessage:
            let duration = payload.load(as: MIDINoteMessage.self).duration
            guard duration.isFinite, duration >= 0 else { return kAudio_ParamError }
        case kMusicEventType_MIDIRawData:
            guard isOneMIDIMessage(Array(UnsafeRawBufferPointer(start: payload.bytes + 4, count: size - 4))) else { return kAudio_ParamError }
        default: break
        }
        iterator.track.events[iterator.index] = MusicEvent(time: event.time, type: event.type, payload: payload)
        return noErr
    }
}

/// Moves the current event to `inTimeStamp`; the iterator stays on it.
@discardableResult
public func MusicEventIteratorSetEventTime(_ inIterator: MusicEventIterator, _ inTimeStamp: MusicTimeStamp) -> OSStatus {
    IteratorRegistry.with(inIterator) { iterator in
        guard iterator.index < iterator.track.events.count else { return kAudioToolboxErr_EndOfTrack }
        guard inTimeStamp.isFinite, inTimeStamp >= 0 else { return kAudio_ParamError }
        var event = iterator.track.events.remove(at: iterator.index)
        event.time = inTimeStamp
        iterator.track.insert(event)
        iterator.index = iterator.track.events.firstIndex { $0.payload === event.payload } ?? 0
        return noErr
    }
}

/// Deletes the current event; the iterator is then on the one after it.
@discardableResult
public func MusicEventIteratorDeleteEvent(_ inIterator: MusicEventIterator) -> OSStatus {
    IteratorRegistry.with(inIterator) { iterator in
        guard iterator.index < iterator.track.events.count else { return kAudioToolboxErr_EndOfTrack }
        iterator.track.events.remove(at: iterator.index)
        return noErr
    }
}

/// Whether the iterator is on an event.
@discardableResult
public func MusicEventIteratorHasCurrentEvent(_ inIterator: MusicEventIterator, _ outHasCurEvent: UnsafeMutablePointer<DarwinBoolean>) -> OSStatus {
    IteratorRegistry.with(inIterator) { iterator in
        outHasCurEvent.pointee = DarwinBoolean(iterator.index < iterator.track.events.count)
        return noErr
    }
}

/// Whether an event follows the current one.
@discardableResult
public func MusicEventIteratorHasNextEvent(_ inIterator: MusicEventIterator, _ outHasNextEvent: UnsafeMutablePointer<DarwinBoolean>) -> OSStatus {
    IteratorRegistry.with(inIterator) { iterator in
        outHasNextEvent.pointee = DarwinBoolean(iterator.index + 1 < iterator.track.events.count)
        return noErr
    }
}

/// Whether an event comes before the current one.
@discardableResult
public func MusicEventIteratorHasPreviousEvent(_ inIterator: MusicEventIterator, _ outHasPrevEvent: UnsafeMutablePointer<DarwinBoolean>) -> OSStatus {
    IteratorRegistry.with(inIterator) { iterator in
        outHasPrevEvent.pointee = DarwinBoolean(iterator.index > 0)
        return noErr
    }
}
