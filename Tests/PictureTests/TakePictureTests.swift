// The pictures docs/ shows, made here from a real take: speech (espeak-ng) and music (sox's plucked
// chords, loud enough to go over) played into a private server and recorded from its monitor with a
// marker, then drawn — plot (SVG and PNG), spectrogram, and the SVG in Chromium.
import Foundation
import RecorderKit
import RecorderPictures
import Testing
import TestSupport

@Suite struct TakePictureTests {
    /// docs/pictures in the repository this file is in.
    static let pictures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/pictures").path

    /// About 14 s at 48 kHz stereo: half a second of silence, speech, loud music, then speech over quiet music.
    func programme(_ folder: String) throws -> String {
        func run(_ program: String, _ arguments: [String]) throws {
            let result = try runProcess(program, arguments)
            guard result.status == 0 else { throw TestFailure("\(program) \(arguments): \(result.stderr)") }
        }
        try run("espeak-ng", ["-w", folder + "/speech1.wav", "-s", "150",
                              "Recording a podcast on a box with no screen: the levels, the loudness, and every over, drawn."])
        try run("espeak-ng", ["-w", folder + "/speech2.wav", "-s", "160", "And here the music goes quiet under the voice."])
        for name in ["speech1", "speech2"] {
            try run("sox", [folder + "/\(name).wav", "-r", "48000", "-c", "2", folder + "/\(name)-48.wav", "gain", "-n", "-3"])
        }
        // Plucked chords, normalised to 0 dBFS: their reconstruction goes over −1 dBTP.
        try run("sox", ["-n", "-r", "48000", "-c", "2", folder + "/music.wav", "synth", "1.2", "pluck", "C3", "pluck", "E4",
                        "synth", "1.2", "pluck", "G3", "pluck", "B4", "repeat", "2", "gain", "-n", "0"])
        try run("sox", [folder + "/music.wav", folder + "/bed.wav", "gain", "-24"])
        try run("sox", ["-m", folder + "/speech2-48.wav", folder + "/bed.wav", folder + "/under.wav"])
        try run("sox", ["-n", "-r", "48000", "-c", "2", folder + "/silence.wav", "trim", "0", "0.5"])
        try run("sox", [folder + "/silence.wav", folder + "/speech1-48.wav", folder + "/music.wav", folder + "/under.wav",
                        folder + "/programme.wav"])
        return folder + "/programme.wav"
    }

    @Test func aSpeechAndMusicTakeIsDrawnForTheDocs() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let programme = try programme(folder)
            let length = try readSoundFile(programme).frames
            let take = folder + "/take.wav"
            // Stopped when the programme has played (not after its length in wall-clock time: a busy
            // machine may start the player late), half a second after the player ends.
            let recorder = try RunningProcess(try builtProduct("recorder"),
                                              ["record", take, "--rate", "48000", "--channels", "2",
                                               "--levels-json", "--peaks",
                                               "--source", PrivateServer.stereoSink + ".monitor"],
                                              environment: server.clientEnvironment)
            var player: RunningProcess?
            var stopper: Task<Void, Never>?
            var lines = 0
            for await _ in recorder.lines {
                lines += 1
                // The first buffer in the file: play; when the music begins (its place in the programme), a marker.
                if lines == 1 {
                    let playing = try RunningProcess("/usr/bin/paplay", ["--device", PrivateServer.stereoSink, programme],
                                                     environment: server.clientEnvironment)
                    player = playing
                    stopper = Task {
                        _ = await playing.wait()
                        try? await Task.sleep(for: .milliseconds(500))
                        recorder.send(SIGINT)
                    }
                }
                if lines == 60 { recorder.send(SIGUSR1) }
            }
            let result = await recorder.wait()
            await stopper?.value
            #expect(await player?.wait().status == 0)
            #expect(try readSoundFile(take).frames >= length, "the take holds the whole programme")
            #expect(result.status == 0, "\(result.stderr)")
            try FileManager.default.createDirectory(atPath: Self.pictures, withIntermediateDirectories: true)
            let draw = try runProcess(try builtProduct("recorder"),
                                      ["analyze", take, "--overs", "--target", "-16", "--width", "1400", "--height", "800",
                                       "--plot", Self.pictures + "/take.svg"])
            #expect(draw.status == 0, "\(draw.stderr)")
            for arguments in [["--plot", Self.pictures + "/take.png", "--width", "1400", "--height", "800", "--target", "-16"],
                              ["--spectrogram", Self.pictures + "/take-spectrogram.png", "--log-frequency", "--width", "1400", "--height", "500"]] {
                let made = try runProcess(try builtProduct("recorder"), ["analyze", take] + arguments)
                #expect(made.status == 0, "\(made.stderr)")
            }
            // What the pictures show is what the take holds: its overs (the loud chords) and its marker.
            let analysis = try FileAnalysis.analyze(path: take, request: AnalysisRequest(overs: true))
            #expect(analysis.overs.contains { $0.kind == .truePeak })
            #expect(analysis.markers.count == 1)
            #expect(draw.stdout.contains("true-peak"))
            let svg = try readSVG(Self.pictures + "/take.svg")
            let (r, g, b) = components(Plot.Palette.truePeakOver)
            let lanesTop = PlotLayout(width: 1_400, height: 800, duration: analysis.duration, channels: 2, target: -16).lanes[0].top
            #expect(svg.paths.filter { $0.isFilled(r, g, b) && ($0.points.first?.y ?? 0) >= lanesTop }.count
                    == analysis.overs.filter { $0.kind == .truePeak }.count)
            let spectrum = try DecodedPNG(Self.pictures + "/take-spectrogram.png")
            #expect(spectrum.width == 1_400 && spectrum.height == 500)
            // And a browser draws the SVG: its screenshot beside the others.
            let rendered = try renderInChromium(Self.pictures + "/take.svg", width: 1_400, height: 800,
                                                screenshot: try artifactsFolder() + "/take-in-chromium.png")
            #expect(rendered.status == 0, "\(rendered.stderr)")
            #expect(try DecodedPNG(try artifactsFolder() + "/take-in-chromium.png").width == 1_400)
        }
    }
}
