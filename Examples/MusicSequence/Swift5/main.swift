// A music app's sequencer as Apple code writes it (import AudioToolbox changed): a song built in a
// MusicSequence (a tempo change, an organ melody, a drum track), written as a Standard MIDI File, read
// back and walked event by event, then played by a MusicPlayer until its time passes the song's end.
//
//   music-sequence write OUT.mid
//   music-sequence read IN.mid
//   music-sequence play IN.mid
import Foundation
import OpenAudioToolbox

func check(_ status: OSStatus, _ what: String) {
    guard status == noErr else {
        print("\(what) failed: \(status) \(OpenAudioToolboxLastErrorMessage() ?? "")")
        exit(1)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, ["write", "read", "play"].contains(arguments[1]) else {
    FileHandle.standardError.write("usage: music-sequence write OUT.mid | read IN.mid | play IN.mid\n".data(using: .utf8)!)
    exit(2)
}
let url = URL(fileURLWithPath: arguments[2])
var sequence: MusicSequence?
check(NewMusicSequence(&sequence), "NewMusicSequence")

/// The length of the longest track, in beats.
func songLength(_ sequence: MusicSequence) -> MusicTimeStamp {
    var count: UInt32 = 0
    MusicSequenceGetTrackCount(sequence, &count)
    var longest: MusicTimeStamp = 0
    for index in 0..<count {
        var track: MusicTrack?
        MusicSequenceGetIndTrack(sequence, index, &track)
        var length: MusicTimeStamp = 0
        var size = UInt32(MemoryLayout<MusicTimeStamp>.size)
        MusicTrackGetProperty(track!, kSequenceTrackProperty_TrackLength, &length, &size)
        longest = max(longest, length)
    }
    return longest
}

switch arguments[1] {
case "write":
    var tempo: MusicTrack?
    check(MusicSequenceGetTempoTrack(sequence!, &tempo), "the tempo track")
    check(MusicTrackNewExtendedTempoEvent(tempo!, 0, 120), "the first tempo")
    check(MusicTrackNewExtendedTempoEvent(tempo!, 4, 60), "the tempo change")
    var melody: MusicTrack?, drums: MusicTrack?
    check(MusicSequenceNewTrack(sequence!, &melody), "the melody track")
    check(MusicSequenceNewTrack(sequence!, &drums), "the drum track")
    var organ = MIDIChannelMessage(status: 0xC0, data1: 19, data2: 0, reserved: 0)
    check(MusicTrackNewMIDIChannelEvent(melody!, 0, &organ), "the program change")
    for (beat, key) in [(0.0, 60), (1.0, 64), (2.0, 67)] {
        var note = MIDINoteMessage(channel: 0, note: UInt8(key), velocity: 100, releaseVelocity: 0, duration: 0.5)
        check(MusicTrackNewMIDINoteEvent(melody!, beat, &note), "a note")
    }
    var last = MIDINoteMessage(channel: 0, note: 72, velocity: 90, releaseVelocity: 0, duration: 1)
    check(MusicTrackNewMIDINoteEvent(melody!, 4, &last), "the last note")
    for beat in [0.0, 2.0] {
        var kick = MIDINoteMessage(channel: 9, note: 36, velocity: 120, releaseVelocity: 0, duration: 0.25)
        check(MusicTrackNewMIDINoteEvent(drums!, beat, &kick), "a kick")
    }
    for beat in [1.0, 4.0, 5.0] {
        var seconds: Float64 = 0
        check(MusicSequenceGetSecondsForBeats(sequence!, beat, &seconds), "seconds for beats")
        print(String(format: "beat %.0f at %.3f s", beat, seconds))
    }
    var beats: MusicTimeStamp = 0
    check(MusicSequenceGetBeatsForSeconds(sequence!, 2.5, &beats), "beats for seconds")
    print(String(format: "2.5 s at beat %.3f", beats))
    print(String(format: "length: %.2f beats", songLength(sequence!)))
    check(MusicSequenceFileCreate(sequence!, url as CFURL, .midiType, .eraseFile, 480), "MusicSequenceFileCreate")
    print("written")

case "read":
    check(MusicSequenceFileLoad(sequence!, url as CFURL, .midiType, MusicSequenceLoadFlags()), "MusicSequenceFileLoad")
    var count: UInt32 = 0
    check(MusicSequenceGetTrackCount(sequence!, &count), "the track count")
    print("tracks: \(count)")
    var tempo: MusicTrack?
    MusicSequenceGetTempoTrack(sequence!, &tempo)
    let tracks: [MusicTrack] = [tempo!] + (0..<count).map { index in
        var track: MusicTrack?
        MusicSequenceGetIndTrack(sequence!, index, &track)
        return track!
    }
    for (number, track) in tracks.enumerated() {
        var iterator: MusicEventIterator?
        check(NewMusicEventIterator(track, &iterator), "NewMusicEventIterator")
        var hasEvent: DarwinBoolean = false
        MusicEventIteratorHasCurrentEvent(iterator!, &hasEvent)
        while hasEvent.boolValue {
            var time: MusicTimeStamp = 0
            var type: MusicEventType = 0
            var data: UnsafeRawPointer?
            var size: UInt32 = 0
            check(MusicEventIteratorGetEventInfo(iterator!, &time, &type, &data, &size), "an event")
            switch type {
            case kMusicEventType_ExtendedTempo:
                print(String(format: "%d %.3f tempo %.1f", number, time, data!.load(as: ExtendedTempoEvent.self).bpm))
            case kMusicEventType_MIDINoteMessage:
                let note = data!.load(as: MIDINoteMessage.self)
                print(String(format: "%d %.3f note %d %d %d %.3f", number, time, note.channel, note.note, note.velocity, note.duration))
            case kMusicEventType_MIDIChannelMessage:
                let message = data!.load(as: MIDIChannelMessage.self)
                print(String(format: "%d %.3f channel %02X %d", number, time, message.status, message.data1))
            default:
                print(String(format: "%d %.3f type %d", number, time, type))
            }
            MusicEventIteratorNextEvent(iterator!)
            MusicEventIteratorHasCurrentEvent(iterator!, &hasEvent)
        }
        DisposeMusicEventIterator(iterator!)
    }

default:
    check(MusicSequenceFileLoad(sequence!, url as CFURL, .anyType, MusicSequenceLoadFlags()), "MusicSequenceFileLoad")
    let length = songLength(sequence!)
    var player: MusicPlayer?
    check(NewMusicPlayer(&player), "NewMusicPlayer")
    check(MusicPlayerSetSequence(player!, sequence), "MusicPlayerSetSequence")
    check(MusicPlayerPreroll(player!), "MusicPlayerPreroll")
    check(MusicPlayerStart(player!), "MusicPlayerStart")
    var playing: DarwinBoolean = false
    MusicPlayerIsPlaying(player!, &playing)
    print("playing: \(playing.boolValue)")
    // Poll the time, as a transport display does, until the song's end has passed (or 30 s).
    var now: MusicTimeStamp = 0
    var earlier: MusicTimeStamp = -1
    var rising = true
    let deadline = Date().addingTimeInterval(30)
    while now < length + 0.5 && Date() < deadline {
        Thread.sleep(forTimeInterval: 0.05)
        check(MusicPlayerGetTime(player!, &now), "MusicPlayerGetTime")
        if now < earlier { rising = false }
        earlier = now
    }
    print("time passed the end: \(now >= length + 0.5), never went back: \(rising)")
    // Back to the start while it plays: it plays the song again.
    check(MusicPlayerSetTime(player!, 0), "MusicPlayerSetTime")
    let again = Date().addingTimeInterval(30)
    repeat {
        Thread.sleep(forTimeInterval: 0.05)
        check(MusicPlayerGetTime(player!, &now), "MusicPlayerGetTime")
    } while now < 1 && Date() < again
    print("played again from the start: \(now >= 1 && now < length)")
    check(MusicPlayerStop(player!), "MusicPlayerStop")
    MusicPlayerIsPlaying(player!, &playing)
    print("playing after stop: \(playing.boolValue)")
    check(MusicPlayerSetTime(player!, 2), "MusicPlayerSetTime")
    MusicPlayerGetTime(player!, &now)
    print(String(format: "moved to beat %.3f", now))
    check(DisposeMusicPlayer(player!), "DisposeMusicPlayer")
}
check(DisposeMusicSequence(sequence!), "DisposeMusicSequence")
print("done")
