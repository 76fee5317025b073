// MIDI file playback: RecorderKit's GraphMIDIFilePlayer rendered offline starts each note of a MIDI file
// on the frame its time gives (FluidSynth's sequencer advances by the frames rendered); the example
// (Examples/MIDIPlayback, Swift 5 and 6) plays a file through AVMIDIPlayer on a private server, heard on
// the sink's monitor, its completion called, its duration the file's.
import Foundation
import Locking
import OpenAVFAudio
import RecorderKit
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct MIDIFilePlaybackTests {
    static let soundFont = "/usr/share/sounds/sf2/FluidR3_GM.sf2"

    /// A format-0 file at 120 beats a minute (480 ticks a beat: 960 a second) playing a drawbar organ
    /// (program 16): `notes` (second, key), each held a quarter of a second.
    static func midiFile(_ notes: [(Double, UInt8)]) -> [UInt8] {
        var events: [(tick: Int, bytes: [UInt8])] = [(0, [0xFF, 0x51, 3, 0x07, 0xA1, 0x20]), (0, [0xC0, 16])]
        for (seconds, key) in notes {
            events.append((Int(seconds * 960), [0x90, key, 100]))
            events.append((Int((seconds + 0.25) * 960), [0x80, key, 0]))
        }
        events.sort { $0.tick < $1.tick }
        var track: [UInt8] = []
        var last = 0
        for event in events + [(events.last!.tick, [0xFF, 0x2F, 0])] {
            var delta = event.tick - last, encoded: [UInt8] = [UInt8(delta & 0x7F)]
            last = event.tick
            delta >>= 7
            while delta > 0 {
                encoded.insert(UInt8(delta & 0x7F) | 0x80, at: 0)
                delta >>= 7
            }
            track += encoded + event.bytes
        }
        let length = UInt32(track.count)
        return Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0] + Array("MTrk".utf8)
            + [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + track
    }

    @Test func eachNoteStartsOnTheFrameItsTimeGives() throws {
        let notes: [(Double, UInt8)] = [(0.5, 60), (1.5, 64), (2.5, 67)]
        let graph = PlaybackGraph(sampleRate: 44_100)
        let player = GraphMIDIFilePlayer()
        try graph.attach(player)
        try graph.connect(player, to: graph.mainMixer)
        try player.load(midi: Self.midiFile(notes), soundFont: Self.soundFont)
        #expect(player.file?.notes.map(\.seconds) == notes.map(\.0))
        #expect(abs((player.file?.duration ?? 0) - 2.75) < 1e-9)
        try graph.startManualRendering()
        let ended = Locked(false)
        player.play { ended.withLock { $0 = true } }
        var left: [Float] = []
        for _ in 0..<40 {
            try graph.renderManually(frames: 4_410) { left += $0.channel(0).prefix(4_410) }
        }
        var onsets: [Int] = []
        for (seconds, key) in notes {
            let frame = Int(seconds * 44_100)
            let before = left[(frame - 4_410)..<frame].map(abs).max() ?? 1
            #expect(before < 0.01, "key \(key): sound before its time (\(before))")
            onsets.append((left[frame...].firstIndex { abs($0) > 0.01 } ?? left.count) - frame)
        }
        // Each begins within 15 ms of its time (FluidSynth starts events on its 64-frame blocks, counts its
        // ticks in milliseconds, and an organ's attack takes a few), and all equally late to 64 frames: the
        // spacing of the file.
        #expect(onsets.allSatisfy { (0...661).contains($0) } && (onsets.max()! - onsets.min()!) <= 64, "onsets \(onsets) frames after their times")
        // Rendered to its end: finished, and the handler called (on the player's queue).
        let deadline = Date(timeIntervalSinceNow: 10)
        while !ended.withLock({ $0 }) && Date() < deadline { usleep(10_000) }
        #expect(ended.withLock { $0 } && !player.isPlaying)
        // Moving: within the file, clamped to it.
        player.position = 1.5
        #expect(abs(player.position - 1.5) < 0.01)
        player.position = -3
        #expect(player.position == 0)
        player.position = .nan
        #expect(player.position == 0)
        player.position = 1e300
        #expect(abs(player.position - 2.75) < 1e-9)
    }

    @Test func notAMIDIFileOrNoSoundFontIsSaidInOneLine() throws {
        let player = GraphMIDIFilePlayer()
        #expect(throws: RecorderError.self) { try player.load(midi: Array("not midi".utf8), soundFont: Self.soundFont) }
        #expect(throws: RecorderError.self) { try player.load(midi: Self.midiFile([(0, 60)]), soundFont: "/nonexistent.sf2") }
        #expect(throws: RecorderError.self) { try player.load(midi: Self.midiFile([(0, 60)]), soundFont: "/dev/null") }
        // A file cut short in its track.
        let cut = Array(Self.midiFile([(0, 60), (1, 62)]).dropLast(5))
        #expect(MIDIFile(cut) == nil)
        #expect(throws: (any Error).self) { try AVMIDIPlayer(data: Data(cut), soundBankURL: URL(fileURLWithPath: Self.soundFont)) }
        // A FIFO, a folder, a missing file: refused at once (a FIFO with no writer would block a plain read).
        let directory = try temporaryDirectory()
        let fifo = directory + "/song.mid"
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in [fifo, directory, directory + "/none.mid"] {
            #expect(throws: RecorderError.self) { _ = try MIDIFile.readBytes(path: path) }
            let error = #expect(throws: (any Error).self) {
                try AVMIDIPlayer(contentsOf: URL(fileURLWithPath: path), soundBankURL: URL(fileURLWithPath: Self.soundFont))
            }
            #expect(error?.localizedDescription.contains(path) == true, "\(String(describing: error))")
        }
        let song = directory + "/real.mid"
        try Data(Self.midiFile([(0, 60)])).write(to: URL(fileURLWithPath: song))
        #expect(try MIDIFile.readBytes(path: song) == Self.midiFile([(0, 60)]))
        // Playing, stopping, moving before a load: nothing, no crash.
        player.play()
        player.stop()
        player.position = 3
        #expect(!player.isPlaying && player.position == 0)
    }

    @Test(arguments: ["midi-playback-swift5", "midi-playback-swift6"])
    func aMIDIFileIsHeardAndItsCompletionCalled(_ product: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let song = directory + "/song.mid"
            try Data(Self.midiFile([(0, 60), (0.5, 64), (1, 67)])).write(to: URL(fileURLWithPath: song))
            let monitor = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            defer { monitor.stop() }
            let program = try builtProduct(product)
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(program, [song, Self.soundFont], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 6 && lines[0] == "duration: 1.250 s" && lines[1] == "playing: true" && lines[2] == "completed"
                    && lines[3] == "playing after completion: false" && lines[5] == "moved to: 0.500 s", "\(result.stdout)")
            // Heard: the organ on the monitor.
            let heard = try monitor.samples()
            #expect((heard.map { abs(Int($0)) }.max() ?? 0) > 1_000, "nothing heard")
        }
    }
}
