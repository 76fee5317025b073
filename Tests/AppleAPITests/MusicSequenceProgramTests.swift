// Music Sequence and Music Player: the example (Examples/MusicSequence, Swift 5 and 6) builds a song, writes
// it as a Standard MIDI File, reads it back event by event and plays it. The file is read by mido (an
// independent reader): every note at its tick with its velocity and length, the tempos in microseconds a
// beat. The tempo map's seconds are Apple's formula; the song is heard on the private server's monitor and
// the player's time runs past its end. Then the calls one by one: iterators, properties, refusals.
import Foundation
import OpenAudioToolbox
import RecorderKit
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct MusicSequenceProgramTests {
    @Test(arguments: ["music-sequence-swift5", "music-sequence-swift6"])
    func aSongWrittenIsReadByAnotherReaderAndBackEventForEvent(_ product: String) async throws {
        let directory = try temporaryDirectory()
        let song = directory + "/song.mid"
        let program = try builtProduct(product)
        let written = try await offThread { try runProcess(program, ["write", song], environment: [:]) }
        #expect(written.status == 0, "\(written.stdout) \(written.stderr)")
        // 120 beats a minute for four beats (2 s), then 60: beat 5 is 3 s in; 2.5 s is beat 4.5.
        #expect(written.stdout.split(separator: "\n").map(String.init)
                == ["beat 1 at 0.500 s", "beat 4 at 2.000 s", "beat 5 at 3.000 s", "2.5 s at beat 4.500", "length: 5.00 beats", "written", "done"],
                "\(written.stdout)")
        // mido's reading: format 1, 480 ticks a beat, the tempo track first.
        let script = """
            import mido, sys
            f = mido.MidiFile(sys.argv[1])
            print(f.type, f.ticks_per_beat, len(f.tracks))
            for i, track in enumerate(f.tracks):
                tick = 0
                for m in track:
                    tick += m.time
                    if m.type == 'set_tempo': print(i, tick, 'tempo', m.tempo)
                    elif m.type in ('note_on', 'note_off'): print(i, tick, m.type, m.channel, m.note, m.velocity)
                    elif m.type == 'program_change': print(i, tick, 'program', m.channel, m.program)
            """
        let environment = ProcessInfo.processInfo.environment
        let read = try await offThread { try runProcess("/usr/bin/env", ["python3", "-c", script, song], environment: environment) }
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.split(separator: "\n").map(String.init) == [
            "1 480 3",
            "0 0 tempo 500000", "0 1920 tempo 1000000",
            "1 0 program 0 19",
            "1 0 note_on 0 60 100", "1 240 note_off 0 60 0", "1 480 note_on 0 64 100", "1 720 note_off 0 64 0",
            "1 960 note_on 0 67 100", "1 1200 note_off 0 67 0", "1 1920 note_on 0 72 90", "1 2400 note_off 0 72 0",
            "2 0 note_on 9 36 120", "2 120 note_off 9 36 0", "2 960 note_on 9 36 120", "2 1080 note_off 9 36 0",
        ], "\(read.stdout)")
        // Read back: each note once, with its duration; the tempos in the tempo track; nothing else.
        let back = try await offThread { try runProcess(program, ["read", song], environment: [:]) }
        #expect(back.status == 0, "\(back.stdout) \(back.stderr)")
        #expect(back.stdout.split(separator: "\n").map(String.init) == [
            "tracks: 2", "0 0.000 tempo 120.0", "0 4.000 tempo 60.0",
            "1 0.000 channel C0 19", "1 0.000 note 0 60 100 0.500", "1 1.000 note 0 64 100 0.500", "1 2.000 note 0 67 100 0.500",
            "1 4.000 note 0 72 90 1.000",
            "2 0.000 note 9 36 120 0.250", "2 2.000 note 9 36 120 0.250", "done",
        ], "\(back.stdout)")
    }

    @Test(arguments: ["music-sequence-swift5", "music-sequence-swift6"])
    func aSongPlayedIsHeardAndItsTimeRunsPastTheEnd(_ product: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let song = directory + "/song.mid"
            let program = try builtProduct(product)
            let written = try await offThread { try runProcess(program, ["write", song], environment: [:]) }
            #expect(written.status == 0, "\(written.stderr)")
            let monitor = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            defer { monitor.stop() }
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(program, ["play", song], environment: environment) }
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            #expect(result.stdout.split(separator: "\n").map(String.init) == [
                "playing: true", "time passed the end: true, never went back: true", "played again from the start: true",
                "playing after stop: false", "moved to beat 2.000", "done",
            ], "\(result.stdout)")
            let heard = try monitor.samples()
            #expect((heard.map { abs(Int($0)) }.max() ?? 0) > 1_000, "nothing heard")
        }
    }

    // MARK: The calls

    /// A sequence with one track of `notes` (beat, key, duration).
    static func sequence(_ notes: [(Double, UInt8, Float)]) -> (MusicSequence, MusicTrack) {
        var sequence: MusicSequence?
        NewMusicSequence(&sequence)
        var track: MusicTrack?
        MusicSequenceNewTrack(sequence!, &track)
        for (beat, key, duration) in notes {
            var note = MIDINoteMessage(channel: 0, note: key, velocity: 64, releaseVelocity: 0, duration: duration)
            MusicTrackNewMIDINoteEvent(track!, beat, &note)
        }
        return (sequence!, track!)
    }

    /// Every event of `track` as the iterator gives it: time, type, data and its size (the data valid
    /// while the track's events are unchanged).
    static func events(_ track: MusicTrack) -> [(time: Double, type: MusicEventType, data: UnsafeRawPointer, size: Int)] {
        var iterator: MusicEventIterator?
        NewMusicEventIterator(track, &iterator)
        defer { DisposeMusicEventIterator(iterator!) }
        var events: [(time: Double, type: MusicEventType, data: UnsafeRawPointer, size: Int)] = []
        var has: DarwinBoolean = false
        MusicEventIteratorHasCurrentEvent(iterator!, &has)
        while has.boolValue {
            var time: MusicTimeStamp = 0
            var type: MusicEventType = 0
            var data: UnsafeRawPointer?
            var size: UInt32 = 0
            MusicEventIteratorGetEventInfo(iterator!, &time, &type, &data, &size)
            events.append((time, type, data!, Int(size)))
            MusicEventIteratorNextEvent(iterator!)
            MusicEventIteratorHasCurrentEvent(iterator!, &has)
        }
        return events
    }

    static func times(_ track: MusicTrack) -> [Double] { events(track).map(\.time) }

    @Test func eventsKeepTimeOrderAndTheIteratorMovesChangesAndDeletesThem() throws {
        let (sequence, track) = Self.sequence([(2, 62, 1), (0, 60, 0.5), (1, 61, 0.5), (1, 65, 3)])
        defer { DisposeMusicSequence(sequence) }
        // In time order; equal times in the order added.
        #expect(Self.times(track) == [0, 1, 1, 2])
        var length: MusicTimeStamp = 0
        var size = UInt32(MemoryLayout<MusicTimeStamp>.size)
        #expect(MusicTrackGetProperty(track, kSequenceTrackProperty_TrackLength, &length, &size) == noErr && length == 4)  // 1 + 3
        var iterator: MusicEventIterator?
        #expect(NewMusicEventIterator(track, &iterator) == noErr)
        defer { DisposeMusicEventIterator(iterator!) }
        #expect(MusicEventIteratorPreviousEvent(iterator!) == kAudioToolboxErr_StartOfTrack)
        #expect(MusicEventIteratorSeek(iterator!, 1.5) == noErr)
        var time: MusicTimeStamp = 0
        var type: MusicEventType = 0
        var data: UnsafeRawPointer?
        var dataSize: UInt32 = 0
        #expect(MusicEventIteratorGetEventInfo(iterator!, &time, &type, &data, &dataSize) == noErr)
        #expect(time == 2 && type == kMusicEventType_MIDINoteMessage && data!.load(as: MIDINoteMessage.self).note == 62
                && dataSize == UInt32(MemoryLayout<MIDINoteMessage>.size))
        // Moved to 0.5: the iterator stays on it, now second.
        #expect(MusicEventIteratorSetEventTime(iterator!, 0.5) == noErr)
        #expect(MusicEventIteratorGetEventInfo(iterator!, &time, &type, &data, &dataSize) == noErr && time == 0.5)
        var has: DarwinBoolean = false
        #expect(MusicEventIteratorHasPreviousEvent(iterator!, &has) == noErr && has.boolValue)
        #expect(MusicEventIteratorDeleteEvent(iterator!) == noErr)
        #expect(Self.times(track) == [0, 1, 1])
        // Past the end.
        #expect(MusicEventIteratorSeek(iterator!, 100) == noErr)
        #expect(MusicEventIteratorHasCurrentEvent(iterator!, &has) == noErr && !has.boolValue)
        #expect(MusicEventIteratorNextEvent(iterator!) == kAudioToolboxErr_EndOfTrack)
        #expect(MusicEventIteratorGetEventInfo(iterator!, &time, &type, &data, &dataSize) == kAudioToolboxErr_EndOfTrack)
        // Clearing and moving ranges.
        #expect(MusicTrackMoveEvents(track, 0.5, 2, 10) == noErr)
        #expect(Self.times(track) == [0, 11, 11])
        #expect(MusicTrackClear(track, 10, 12) == noErr)
        #expect(Self.times(track) == [0])
    }

    @Test func theTempoMapIsApplesFormulaAndTheFileKeepsEveryKindOfEvent() throws {
        let (sequence, track) = Self.sequence([(0, 60, 1)])
        defer { DisposeMusicSequence(sequence) }
        var tempo: MusicTrack?
        MusicSequenceGetTempoTrack(sequence, &tempo)
        // 90 bpm from beat 0, 180 from beat 3: beat 3 at 2 s, beat 6 at 3 s.
        #expect(MusicTrackNewExtendedTempoEvent(tempo!, 0, 90) == noErr && MusicTrackNewExtendedTempoEvent(tempo!, 3, 180) == noErr)
        var seconds: Float64 = 0, beats: MusicTimeStamp = 0
        #expect(MusicSequenceGetSecondsForBeats(sequence, 6, &seconds) == noErr && abs(seconds - 3) < 1e-12)
        #expect(MusicSequenceGetBeatsForSeconds(sequence, 2.5, &beats) == noErr && abs(beats - 4.5) < 1e-12)
        #expect(MusicSequenceGetSecondsForBeats(sequence, .nan, &seconds) == kAudio_ParamError)
        // Tempo events only in the tempo track; notes never there.
        #expect(MusicTrackNewExtendedTempoEvent(track, 1, 100) == kAudioToolboxErr_InvalidEventType)
        var note = MIDINoteMessage(channel: 0, note: 60, velocity: 1, releaseVelocity: 0, duration: 1)
        #expect(MusicTrackNewMIDINoteEvent(tempo!, 1, &note) == kAudioToolboxErr_InvalidEventType)
        #expect(MusicTrackNewExtendedTempoEvent(tempo!, 1, 0) == kAudio_ParamError)
        #expect(MusicTrackNewMIDINoteEvent(track, -1, &note) == kAudio_ParamError)
        // A track name (meta), a system exclusive (raw), a pitch bend: written and read back.
        let name = Array("lead".utf8)
        let meta = UnsafeMutableRawPointer.allocate(byteCount: 8 + name.count, alignment: 8)
        defer { meta.deallocate() }
        meta.initializeMemory(as: UInt8.self, repeating: 0, count: 8)
        meta.storeBytes(of: 0x03, as: UInt8.self)
        meta.storeBytes(of: UInt32(name.count), toByteOffset: 4, as: UInt32.self)
        (meta + 8).copyMemory(from: name, byteCount: name.count)
        #expect(MusicTrackNewMetaEvent(track, 0, meta.assumingMemoryBound(to: MIDIMetaEvent.self)) == noErr)
        let sysex: [UInt8] = [0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]
        let raw = UnsafeMutableRawPointer.allocate(byteCount: 4 + sysex.count, alignment: 8)
        defer { raw.deallocate() }
        raw.storeBytes(of: UInt32(sysex.count), as: UInt32.self)
        (raw + 4).copyMemory(from: sysex, byteCount: sysex.count)
        #expect(MusicTrackNewMIDIRawDataEvent(track, 0.5, raw.assumingMemoryBound(to: MIDIRawData.self)) == noErr)
        var bend = MIDIChannelMessage(status: 0xE0, data1: 0, data2: 0x60, reserved: 0)
        #expect(MusicTrackNewMIDIChannelEvent(track, 0.75, &bend) == noErr)
        var data: Unmanaged<CFData>?
        #expect(MusicSequenceFileCreateData(sequence, .midiType, [], 96, &data) == noErr)
        let bytes = data!.takeRetainedValue() as Data
        var copy: MusicSequence?
        NewMusicSequence(&copy)
        defer { DisposeMusicSequence(copy!) }
        #expect(MusicSequenceFileLoadData(copy!, bytes as CFData, .anyType, MusicSequenceLoadFlags()) == noErr)
        var copied: MusicTrack?
        #expect(MusicSequenceGetIndTrack(copy!, 0, &copied) == noErr)
        let kinds = Self.events(copied!).map { event -> String in
            let (time, payload, size) = (event.time, event.data, event.size)
            switch event.type {
            case kMusicEventType_Meta:
                return "\(time) meta \(payload.load(as: UInt8.self)) \(String(decoding: UnsafeRawBufferPointer(start: payload + 8, count: size - 8), as: UTF8.self))"
            case kMusicEventType_MIDIRawData: return "\(time) raw \(Array(UnsafeRawBufferPointer(start: payload + 4, count: size - 4)))"
            case kMusicEventType_MIDIChannelMessage:
                let message = payload.load(as: MIDIChannelMessage.self)
                return "\(time) channel \(message.status) \(message.data2)"
            case kMusicEventType_MIDINoteMessage: return "\(time) note \(payload.load(as: MIDINoteMessage.self).duration)"
            default: return "\(time) \(event.type)"
            }
        }
        #expect(kinds == ["0.0 note 1.0", "0.0 meta 3 lead", "0.5 raw \(sysex)", "0.75 channel 224 96"], "\(kinds)")
        // The copy's tempo map is the original's.
        #expect(MusicSequenceGetSecondsForBeats(copy!, 6, &seconds) == noErr && abs(seconds - 3) < 1e-6)
    }

    /// A format 1 file whose first track has notes as well as the tempo: the tempo goes to the tempo
    /// track, the notes make a track of their own (none is lost).
    @Test func aFormatOneFileWithNotesInItsFirstTrackKeepsThem() throws {
        let file = MIDIFile.bytes(tracks: [
            [MIDIFile.Event(tick: 0, message: [0xFF, 0x51, 0x07, 0xA1, 0x20]), MIDIFile.Event(tick: 0, message: [0x90, 60, 100]),
             MIDIFile.Event(tick: 96, message: [0x80, 60, 0])],
            [MIDIFile.Event(tick: 96, message: [0x91, 64, 90]), MIDIFile.Event(tick: 192, message: [0x81, 64, 0])],
        ], division: 96)
        var sequence: MusicSequence?
        NewMusicSequence(&sequence)
        defer { DisposeMusicSequence(sequence!) }
        #expect(MusicSequenceFileLoadData(sequence!, Data(file) as CFData, .midiType, MusicSequenceLoadFlags()) == noErr)
        var count: UInt32 = 0
        #expect(MusicSequenceGetTrackCount(sequence!, &count) == noErr && count == 2)
        var first: MusicTrack?, second: MusicTrack?, tempo: MusicTrack?
        MusicSequenceGetIndTrack(sequence!, 0, &first)
        MusicSequenceGetIndTrack(sequence!, 1, &second)
        MusicSequenceGetTempoTrack(sequence!, &tempo)
        let notes = [first!, second!].map { Self.events($0).map { "\($0.time) \($0.data.load(as: MIDINoteMessage.self).note)" } }
        #expect(notes == [["0.0 60"], ["1.0 64"]])
        // 500 000 µs a beat: 120 beats a minute.
        #expect(Self.events(tempo!).map { $0.data.load(as: ExtendedTempoEvent.self).bpm } == [120])
    }

    @Test func whatASequenceCannotDoHereIsAStatusAndALine() throws {
        let (sequence, track) = Self.sequence([(0, 60, 1)])
        var graph: AUGraph?
        NewAUGraph(&graph)
        defer { DisposeAUGraph(graph!) }
        #expect(MusicSequenceSetAUGraph(sequence, graph) == kAudioToolboxErr_IllegalTrackDestination)
        #expect(OpenAudioToolboxLastErrorMessage()?.contains("General MIDI") == true)
        #expect(MusicTrackSetDestNode(track, 1) == kAudioToolboxErr_IllegalTrackDestination)
        #expect(MusicSequenceSetSequenceType(sequence, .seconds) == kAudioToolboxErr_InvalidSequenceType)
        var loop = MusicTrackLoopInfo(loopDuration: 4, numberOfLoops: 0)
        #expect(MusicTrackSetProperty(track, kSequenceTrackProperty_LoopInfo, &loop, UInt32(MemoryLayout<MusicTrackLoopInfo>.size))
                == kAudio_UnimplementedError)
        loop = MusicTrackLoopInfo(loopDuration: 0, numberOfLoops: 0)  // no loop at all
        #expect(MusicTrackSetProperty(track, kSequenceTrackProperty_LoopInfo, &loop, UInt32(MemoryLayout<MusicTrackLoopInfo>.size)) == noErr)
        var noGraph: AUGraph?
        #expect(MusicSequenceGetAUGraph(sequence, &noGraph) == kAudio_UnimplementedError && noGraph == nil)
        // Raw bytes a file cannot hold: half a note on, two messages in one, a data byte of 0x90.
        for bytes: [UInt8] in [[0x90, 60], [0x90, 60, 100, 0x80, 60, 0], [0xB0, 0x90, 1], [0x42]] {
            let raw = UnsafeMutableRawPointer.allocate(byteCount: 4 + bytes.count, alignment: 8)
            defer { raw.deallocate() }
            raw.storeBytes(of: UInt32(bytes.count), as: UInt32.self)
            (raw + 4).copyMemory(from: bytes, byteCount: bytes.count)
            #expect(MusicTrackNewMIDIRawDataEvent(track, 0, raw.assumingMemoryBound(to: MIDIRawData.self)) == kAudio_ParamError, "\(bytes)")
        }
        var tempo: MusicTrack?
        MusicSequenceGetTempoTrack(sequence, &tempo)
        #expect(MusicSequenceDisposeTrack(sequence, tempo!) == kAudioToolboxErr_IllegalTrackDestination)
        var none: MusicTrack?
        #expect(MusicSequenceGetIndTrack(sequence, 5, &none) == kAudioToolboxErr_TrackIndexError)
        // A file that is not MIDI; a FIFO where a file should be.
        let directory = try temporaryDirectory()
        try Data("not midi".utf8).write(to: URL(fileURLWithPath: directory + "/bad.mid"))
        #expect(MusicSequenceFileLoad(sequence, URL(fileURLWithPath: directory + "/bad.mid") as CFURL, .anyType, MusicSequenceLoadFlags())
                == kAudioFileInvalidFileError)
        #expect(mkfifo(directory + "/fifo.mid", 0o600) == 0)
        #expect(MusicSequenceFileLoad(sequence, URL(fileURLWithPath: directory + "/fifo.mid") as CFURL, .anyType, MusicSequenceLoadFlags())
                == kAudioFileInvalidFileError)
        // An existing file is kept unless EraseFile is given.
        #expect(MusicSequenceFileCreate(sequence, URL(fileURLWithPath: directory + "/bad.mid") as CFURL, .midiType, [], 480)
                == kAudioFilePermissionsError)
        // A player: no sequence, rates out of range; then the sequence disposed, every handle refused.
        var player: MusicPlayer?
        NewMusicPlayer(&player)
        defer { DisposeMusicPlayer(player!) }
        #expect(MusicPlayerStart(player!) == kAudioToolboxErr_NoSequence)
        #expect(MusicPlayerSetSequence(player!, sequence) == noErr)
        #expect(MusicPlayerSetPlayRateScalar(player!, 0) == kAudio_ParamError && MusicPlayerSetPlayRateScalar(player!, .infinity) == kAudio_ParamError)
        #expect(MusicPlayerSetPlayRateScalar(player!, 2) == noErr)
        #expect(MusicPlayerSetTime(player!, .nan) == kAudio_ParamError)
        #expect(MusicPlayerSetTime(player!, 3) == noErr)
        var now: MusicTimeStamp = 0
        #expect(MusicPlayerGetTime(player!, &now) == noErr && now == 3)
        #expect(DisposeMusicSequence(sequence) == noErr)
        var count: UInt32 = 0
        #expect(MusicSequenceGetTrackCount(sequence, &count) == kAudio_ParamError)
        var note = MIDINoteMessage(channel: 0, note: 60, velocity: 1, releaseVelocity: 0, duration: 1)
        #expect(MusicTrackNewMIDINoteEvent(track, 0, &note) == kAudio_ParamError)
    }
}
