// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "recorder",
    products: [
        .library(name: "RecorderKit", targets: ["RecorderKit"]),
        // Apple's Audio Queue and Audio File Services over RecorderKit: AudioToolbox code with its import changed.
        .library(name: "OpenAudioToolbox", targets: ["OpenAudioToolbox"]),
        // AVFAudio's players, recorder, formats, buffers, files and session over RecorderKit: import changed.
        .library(name: "OpenAVFAudio", targets: ["OpenAVFAudio"]),
        // Accelerate's vDSP (its C interface and the Swift overlay's `vDSP`), the FFTs on KissFFT: import changed.
        .library(name: "OpenAccelerate", targets: ["OpenAccelerate"]),
        // TagLib behind a C interface, as a shared library RecorderKit loads when it first tags a file
        // (a plain take never maps TagLib); built with the package, installed beside the command.
        .library(name: "recorder-tags", type: .dynamic, targets: ["CTagLib"]),
        // A file's pictures (waveform and loudness plot, spectrogram) through cairo and KissFFT, and peak
        // data in audiowaveform's formats: a library of its own, so a plain take loads neither.
        .library(name: "RecorderPictures", targets: ["RecorderPictures"]),
        // The page `recorder serve` and `record --serve` show in a browser (levels pushed as Server-Sent
        // Events, control, the take folder) on FlyingFox: a library of its own, so RecorderKit needs none of it.
        .library(name: "RecorderServer", targets: ["RecorderServer"]),
        .executable(name: "recorder", targets: ["recorder"]),
        // The page's companion: what `recorder serve` and `record --serve` run (Sources/recorder-serve).
        .executable(name: "recorder-serve", targets: ["recorder-serve"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `swift package generate-documentation --target RecorderKit`: the DocC catalog and every doc comment.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // HTTP/1.1 on sockets and Swift concurrency (MIT): 8 s to build here against Hummingbird's 65 s.
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
    ],
    targets: [
        // No pkgConfig for libpulse: its .pc file adds -D_REENTRANT and -pthread, which SwiftPM drops with a
        // "prohibited flag(s)" warning in every build, here and in every package that depends on this one.
        // Its headers and library are in the system paths (the module map links -lpulse), which is all
        // that file says besides.
        .systemLibrary(
            name: "CPulse",
            providers: [.apt(["libpulse-dev"])]
        ),
        .systemLibrary(
            name: "CSndFile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),
        .systemLibrary(
            name: "CEbur128",
            pkgConfig: "libebur128",
            providers: [.apt(["libebur128-dev"])]
        ),
        // TagLib (C++) behind a C interface: ReplayGain and R128 tags in FLAC, Ogg Vorbis, Opus and MP3. Not a
        // dependency of RecorderKit: the `recorder-tags` product, which RecorderKit loads when it tags.
        // (SoundTouch, LGPL-2.1, is loaded the same way, through its own C interface, libSoundTouchDll.)
        .target(
            name: "CTagLib",
            linkerSettings: [.linkedLibrary("tag")]
        ),
        // libsoxr (LGPL-2.1, dynamically linked): the converters' sample-rate conversion (OpenAudioToolbox links it)
        // and a several-source take's drift correction (its variable-rate mode, looked up by RecorderKit when such a
        // take starts, so a one-source take maps neither libsoxr nor the libgomp it brings), as sox and ffmpeg use it.
        .systemLibrary(
            name: "CSoxr",
            providers: [.apt(["libsoxr-dev"])]
        ),
        // cairo (LGPL-2.1 or MPL-1.1, loaded at run time): the plots and the spectrogram, SVG and PNG from one
        // drawing code, text in the system's fonts. Its header only: RecorderPictures looks the functions up
        // when it first draws (no pkgConfig, whose -lcairo would map cairo and X11 in every run).
        .systemLibrary(
            name: "CCairo",
            providers: [.apt(["libcairo2-dev"])]
        ),
        // KissFFT (BSD-3-Clause, loaded at run time like cairo): the spectrogram's real FFT. No pkgConfig: its
        // .pc file adds -D flags that only say what the float build's header says by default.
        .systemLibrary(
            name: "CKissFFT",
            providers: [.apt(["libkissfft-dev"])]
        ),
        .target(
            name: "RecorderPictures",
            dependencies: ["RecorderKit", "CCairo", "CKissFFT"]
        ),
        .target(
            name: "RecorderServer",
            dependencies: ["RecorderKit", "Locking", .product(name: "FlyingFox", package: "FlyingFox"),
                           .product(name: "FlyingSocks", package: "FlyingFox")]
        ),
        // The true-peak interpolator's inner loop, in C vector types (fast in a debug build too).
        .target(name: "CTruePeak"),
        // record --webhook's POST: libcurl's variadic calls, made in C through the functions found when the first
        // event is sent (curl's header only: no -lcurl, so a take without --webhook never maps libcurl).
        .target(name: "CWebhook"),
        // sem_clockwait (waits on CLOCK_MONOTONIC) and fallocate: glibc has them, Swift's Glibc module does not show them.
        .systemLibrary(name: "CSemaphore"),
        // The locks the library and the command share (pthread-based, so ThreadSanitizer sees them).
        .target(name: "Locking"),
        .target(
            name: "RecorderKit",
            dependencies: ["CPulse", "CSndFile", "CEbur128", "CSemaphore", "CTruePeak", "CSoxr", "Locking"]
        ),
        // Core Audio's C types, callbacks and constants, laid out as Apple's headers lay them out.
        .systemLibrary(name: "COpenAudioToolbox"),
        .target(
            name: "OpenAudioToolbox",
            dependencies: ["COpenAudioToolbox", "RecorderKit", "CSndFile", "CSoxr", "Locking"],
            linkerSettings: [.linkedLibrary("soxr")]
        ),
        // vDSP's C functions with Apple's declarations (include/vDSP.h); KissFFT (BSD-3-Clause, Debian's
        // libkissfft-float131) under the FFTs and DFTs, linked: a program that imports vDSP asked for it.
        .target(
            name: "COpenAccelerate",
            linkerSettings: [.linkedLibrary("kissfft-float"), .linkedLibrary("m")]
        ),
        .target(
            name: "OpenAccelerate",
            dependencies: ["COpenAccelerate"]
        ),
        .target(
            name: "OpenAVFAudio",
            dependencies: ["OpenAudioToolbox", "RecorderKit", "CSndFile", "Locking"]
        ),
        // The command's subcommands, options, output and signals, shared by `recorder` and `recorder-serve`.
        // No page in it: what the page adds comes through `Companion` (PageServing), registered by
        // recorder-serve, which `recorder` becomes (execv) when a command asks for the page.
        .target(
            name: "RecorderCommandLine",
            dependencies: ["RecorderKit", "RecorderPictures", "Locking", "CWebhook",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The command. Maps no HTTP server, no Foundation networking, curl (but for --webhook's posts) or TLS; cairo and KissFFT only
        // when it draws.
        .executableTarget(
            name: "recorder",
            dependencies: ["RecorderCommandLine"]
        ),
        // The same command with the page (RecorderServer, FlyingFox, Foundation): `serve`, `record --serve`.
        // Found beside `recorder` (a build) or in its ../lib/recorder (an install).
        .executableTarget(
            name: "recorder-serve",
            dependencies: ["RecorderCommandLine", "RecorderServer", "RecorderKit", "RecorderPictures", "Locking",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "record-seconds",
            dependencies: ["RecorderKit"],
            path: "Examples/RecordSeconds"
        ),
        // The AVMeter example ported: two bars per channel (average, peak) while a file plays.
        .executableTarget(
            name: "vu-meter",
            dependencies: ["RecorderKit"],
            path: "Examples/VUMeter"
        ),
        // The classic AudioQueue/AVAudioRecorder "AudioRecorder" tutorial class, ported with the same names.
        .executableTarget(
            name: "audio-recorder",
            dependencies: ["RecorderKit"],
            path: "Examples/AudioRecorder"
        ),
        // A level gauge with quiet / normal / loud / too loud zones on the live recorder.
        .executableTarget(
            name: "gauge",
            dependencies: ["RecorderKit"],
            path: "Examples/Gauge"
        ),
        // The seeds' own code (../shared/seeds), compiled against the Open modules with only the import changed.
        .executableTarget(
            name: "seed-audioqueue-recorder",
            dependencies: ["OpenAudioToolbox"],
            path: "Examples/Seeds/AudioQueueRecorder"
        ),
        .executableTarget(
            name: "seed-avaudioplayer-reference",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/Seeds/AVAudioPlayerReference"
        ),
        .executableTarget(
            name: "seed-avmeter",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/Seeds/AVMeter"
        ),
        .executableTarget(
            name: "seed-engine-tutorial",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/Seeds/EngineTutorial"
        ),
        .executableTarget(
            name: "seed-soundmeter",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/Seeds/SoundMeter"
        ),
        // The plain delegate patterns (a delegate class made and used from top-level code and from a
        // non-isolated method), one file compiled in both language modes: a build that fails is the test.
        .executableTarget(
            name: "delegate-patterns-swift5",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/DelegatePatterns/Swift5",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "delegate-patterns-swift6",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/DelegatePatterns/Swift6",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Shapes of real Apple audio programs written by others (buffer lists, a player subclass, byte-order
        // helpers, the run loop, the session's microphone), one file compiled in both language modes.
        .executableTarget(
            name: "ported-programs-swift5",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/PortedPrograms/Swift5",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "ported-programs-swift6",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/PortedPrograms/Swift6",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Real programs' shapes with the effect units and the sampler (Apple's offline reverb sample, a
        // graphic equaliser, a voice changer, a piano app), one file compiled in both language modes.
        .executableTarget(
            name: "effect-programs-swift5",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/EffectPrograms/Swift5",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "effect-programs-swift6",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/EffectPrograms/Swift6",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Real programs' shapes with vDSP (a meter, a tuner's FFT, a fade, a waveform's peaks, DFTs, the
        // overlay), one file compiled in both language modes; the tests check their numbers against numpy.
        .executableTarget(
            name: "accelerate-programs-swift5",
            dependencies: ["OpenAccelerate", "OpenAVFAudio"],
            path: "Examples/AcceleratePrograms/Swift5",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "accelerate-programs-swift6",
            dependencies: ["OpenAccelerate", "OpenAVFAudio"],
            path: "Examples/AcceleratePrograms/Swift6",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // A sound-effect player's system sound (made from a file, played with a completion block and a
        // routine, disposed), one file compiled in both language modes; the tests hear it on a private server.
        .executableTarget(
            name: "system-sounds-swift5",
            dependencies: ["OpenAudioToolbox"],
            path: "Examples/SystemSounds/Swift5",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "system-sounds-swift6",
            dependencies: ["OpenAudioToolbox"],
            path: "Examples/SystemSounds/Swift6",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // A format utility's queries (Audio Format Services, AVAudioChannelLayout, connection points, the
        // session's categories), one file compiled in both language modes; the tests check its answers
        // against Apple's documented values.
        .executableTarget(
            name: "format-queries-swift5",
            dependencies: ["OpenAudioToolbox", "OpenAVFAudio"],
            path: "Examples/FormatQueries/Swift5",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "format-queries-swift6",
            dependencies: ["OpenAudioToolbox", "OpenAVFAudio"],
            path: "Examples/FormatQueries/Swift6",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // A game's 3D sound (AVAudioEnvironmentNode, a player placed around the listener), rendered offline,
        // one file compiled in both language modes; the tests check each scene against Apple's documented models.
        .executableTarget(
            name: "spatial-audio-swift5",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/SpatialAudio/Swift5",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "spatial-audio-swift6",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/SpatialAudio/Swift6",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // A player app's AUGraph (a file player into a multichannel mixer, a render callback beside it), played
        // or rendered offline, one file compiled in both language modes; the tests check every rendered sample.
        .executableTarget(
            name: "graph-file-player-swift5",
            dependencies: ["OpenAudioToolbox"],
            path: "Examples/GraphFilePlayer/Swift5",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "graph-file-player-swift6",
            dependencies: ["OpenAudioToolbox"],
            path: "Examples/GraphFilePlayer/Swift6",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // A music app's sequencer (MusicSequence written to and read from a MIDI file, played by MusicPlayer),
        // one file compiled in both language modes; the tests read its file with mido and hear it played.
        .executableTarget(
            name: "music-sequence-swift5",
            dependencies: ["OpenAudioToolbox"],
            path: "Examples/MusicSequence/Swift5",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "music-sequence-swift6",
            dependencies: ["OpenAudioToolbox"],
            path: "Examples/MusicSequence/Swift6",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // A reading app's speech (AVSpeechSynthesizer over espeak-ng: written into buffers, then spoken with
        // its delegate), one file compiled in both language modes; the tests check it against espeak-ng's own.
        .executableTarget(
            name: "speech-swift5",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/Speech/Swift5",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "speech-swift6",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/Speech/Swift6",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // A streaming player's parser (Audio File Stream Services: a file fed in uneven pieces, its
        // properties and packets), one file compiled in both language modes; the tests decode its packets.
        .executableTarget(
            name: "streaming-parser-swift5",
            dependencies: ["OpenAudioToolbox"],
            path: "Examples/StreamingParser/Swift5",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "streaming-parser-swift6",
            dependencies: ["OpenAudioToolbox"],
            path: "Examples/StreamingParser/Swift6",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // A music app's MIDI playback (AVMIDIPlayer: a MIDI file through a SoundFont), one file compiled in
        // both language modes; the tests hear it on a private server.
        .executableTarget(
            name: "midi-playback-swift5",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/MIDIPlayback/Swift5",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "midi-playback-swift6",
            dependencies: ["OpenAVFAudio"],
            path: "Examples/MIDIPlayback/Swift6",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The RemoteIO recorder and player as iOS programs write them (Audio Unit Services' C calls), one
        // file compiled in both language modes; the tests run both against a private server.
        .executableTarget(
            name: "remoteio-swift5",
            dependencies: ["OpenAudioToolbox"],
            path: "Examples/RemoteIO/Swift5",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "remoteio-swift6",
            dependencies: ["OpenAudioToolbox"],
            path: "Examples/RemoteIO/Swift6",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // A command-line client of OpenAudioToolbox that the tests run against a private server.
        .executableTarget(
            name: "audioqueue-probe",
            dependencies: ["OpenAudioToolbox"],
            path: "Tests/AudioQueueProbe"
        ),
        // A client of OpenAVFAudio (AVAudioRecorder) that the tests run against a private server.
        .executableTarget(
            name: "avfaudio-probe",
            dependencies: ["OpenAVFAudio"],
            path: "Tests/AVFAudioProbe"
        ),
        // What Benchmarks/run times of Apple's API (AVAudioConverter, manual rendering), built in release there.
        .executableTarget(
            name: "avfaudio-bench",
            dependencies: ["OpenAVFAudio"],
            path: "Benchmarks/AppleAPI"
        ),
        // What Benchmarks/run times of OpenAccelerate (vDSP_rmsqv, vDSP_fft_zrip) beside numpy, built in release there.
        .executableTarget(
            name: "vdsp-bench",
            dependencies: ["OpenAccelerate"],
            path: "Benchmarks/Accelerate"
        ),
        // Issue 12's day of audio through every meter, built in release by the test command.
        .executableTarget(
            name: "recorder-longrun",
            dependencies: ["RecorderKit"],
            path: "Tests/LongRun"
        ),
        // Shared by the test targets: a private PulseAudio server, signal generators, file readers.
        .target(
            name: "TestSupport",
            dependencies: ["RecorderKit", "CSndFile"]
        ),
        .testTarget(
            name: "RecorderKitTests",
            dependencies: ["RecorderKit", "CEbur128", "CSndFile", "TestSupport"]
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["RecorderKit", "Locking", "TestSupport", "CSndFile"]
        ),
        .testTarget(
            name: "AppleAPITests",
            dependencies: ["OpenAudioToolbox", "OpenAVFAudio", "OpenAccelerate", "TestSupport", "CSndFile", "Locking"],
            // Apple's constants and their values, read by AppleConstantsTests from its source folder.
            exclude: ["Data"]
        ),
        .testTarget(
            name: "PictureTests",
            dependencies: ["recorder", "RecorderPictures", "RecorderKit", "TestSupport", "CCairo", "CSndFile"],
            // The tests decode PNGs with cairo itself (the library loads it at run time; the tests link it).
            linkerSettings: [.linkedLibrary("cairo")]
        ),
        .testTarget(
            name: "ServerTests",
            dependencies: ["recorder", "recorder-serve", "RecorderServer", "RecorderKit", "TestSupport", "CSndFile", "Locking"]
        ),
        .testTarget(
            name: "CLITests",
            dependencies: ["recorder", "recorder-serve", "RecorderCommandLine", "RecorderKit", "TestSupport", "CSndFile"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
