// What a run maps: a take, a meter and an analysis load no library that only a picture, the page, tags,
// stretching, the sampler or drift correction need; a picture loads cairo (and a spectrogram KissFFT) when it
// draws, a two-source take libsoxr when it starts; the page is recorder-serve's, which the same process becomes. Seen by the dynamic linker itself
// (LD_DEBUG=files lists every library loaded, at start or by dlopen) and in /proc/PID/maps.
import Foundation
import Testing
import TestSupport

/// Libraries a take, a meter or a plain analysis must not load: the pictures' (cairo and what it brings,
/// KissFFT), the page's (Foundation with its ICU and networking, curl, TLS, Kerberos, LDAP), TagLib's,
/// SoundTouch's and FluidSynth's, and libsoxr with its libgomp (only a several-source take's drift
/// correction resamples). (X11 and xcb are libpulse's own: parecord maps them too.)
let lateLibraries = ["libcairo", "libpixman", "libfontconfig", "libfreetype", "libpng16", "libkissfft", "libsoxr", "libgomp",
                     "libFoundation.so", "libFoundationNetworking", "libFoundationInternationalization", "lib_FoundationICU",
                     "libcurl", "libssl", "libcrypto.so", "libgnutls", "libkrb5", "libgssapi", "libldap", "libnghttp2",
                     "libssh2", "librecorder-tags", "libtag", "libSoundTouch", "libfluidsynth"]

/// The late libraries among `loaded` (file names or paths).
func lateAmong(_ loaded: [String]) -> [String] {
    loaded.filter { name in lateLibraries.contains { name.split(separator: "/").last?.hasPrefix($0) == true } }
}

/// Runs `recorder ARGUMENTS` to the end with the dynamic linker listing what it loads; returns the result
/// and the file names loaded (at start and by dlopen), as the linker names them.
func recorderLoading(_ arguments: [String], server: PrivateServer, directory: String) async throws -> (result: ProcessResult, loaded: [String]) {
    let log = directory + "/ld-\(arguments.first ?? "run")"
    let result = try await recorder(arguments, server: server, extraEnvironment: ["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": log])
    var loaded: [String] = []
    for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file.hasPrefix("ld-\(arguments.first ?? "run").") {
        let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
        // "     12345:\tfile=libpulse.so.0 [0];  needed by ./recorder [0]" / "...;  dynamically loaded by ..."
        for line in text.split(separator: "\n") {
            guard let start = line.range(of: "file=") else { continue }
            loaded.append(String(line[start.upperBound...].prefix { $0 != " " }))
        }
        try FileManager.default.removeItem(atPath: directory + "/" + file)
    }
    return (result, loaded)
}

@Suite(.timeLimit(.minutes(3)))
struct MappedLibraryTests {
    /// A take and its analysis load the sound libraries and nothing of the pictures or the page; the
    /// analysis with a plot and a spectrogram loads cairo and KissFFT, when it draws.
    @Test func aTakeLoadsOnlyWhatItUses() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let take = directory + "/take.wav"
            let (recorded, takeLoads) = try await recorderLoading(["record", take, "--duration", "0.5", "--source", PrivateServer.sineSource],
                                                                  server: server, directory: directory)
            #expect(recorded.status == 0, "\(recorded.stderr)")
            // The listing is read right: the libraries a take needs are in it.
            #expect(takeLoads.contains("libpulse.so.0") && takeLoads.contains("libsndfile.so.1"), "\(takeLoads)")
            #expect(lateAmong(takeLoads).isEmpty, "a take loaded \(lateAmong(takeLoads))")

            // Two sources: drift correction's resampler is loaded as the take starts.
            let (joined, joinedLoads) = try await recorderLoading(["record", directory + "/two.wav", "--duration", "0.5",
                                                                   "--source", PrivateServer.sineSource,
                                                                   "--source", PrivateServer.monoSink + ".monitor"],
                                                                  server: server, directory: directory)
            #expect(joined.status == 0, "\(joined.stderr)")
            #expect(joinedLoads.contains("libsoxr.so.0"), "a two-source take loaded \(joinedLoads)")

            let (metered, meterLoads) = try await recorderLoading(["meter", "--duration", "0.3", "--source", PrivateServer.sineSource],
                                                                  server: server, directory: directory)
            #expect(metered.status == 0, "\(metered.stderr)")
            #expect(meterLoads.contains("libpulse.so.0") && lateAmong(meterLoads).isEmpty, "\(meterLoads)")

            let (analyzed, analysisLoads) = try await recorderLoading(["analyze", take], server: server, directory: directory)
            #expect(analyzed.status == 0, "\(analyzed.stderr)")
            #expect(analysisLoads.contains("libebur128.so.1") && lateAmong(analysisLoads).isEmpty, "\(analysisLoads)")

            let (drawn, drawingLoads) = try await recorderLoading(["analyze", take, "--plot", directory + "/plot.svg",
                                                                   "--spectrogram", directory + "/spectrum.png"],
                                                                  server: server, directory: directory)
            #expect(drawn.status == 0, "\(drawn.stderr)")
            #expect(drawingLoads.contains("libcairo.so.2") && drawingLoads.contains { $0.hasPrefix("libkissfft-float.so") },
                    "a drawing analysis loaded \(drawingLoads)")
            let plot = try String(contentsOfFile: directory + "/plot.svg", encoding: .utf8)
            #expect(plot.contains("<svg"), "\(plot.prefix(200))")
            let png = try Data(contentsOf: URL(fileURLWithPath: directory + "/spectrum.png"))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "the spectrogram is not a PNG")
        }
    }

    /// `recorder serve` becomes recorder-serve in the same process (its PID, its arguments), which maps
    /// what the page needs: the late libraries a take never loads are there.
    @Test func thePageIsRecorderServeInTheSameProcess() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let process = try RunningProcess(try builtProduct("recorder"),
                                             ["serve", "--listen", "127.0.0.1:0", "--folder", directory, "--source", PrivateServer.sineSource],
                                             environment: server.clientEnvironment)
            var lines = process.lines.makeAsyncIterator()
            let first = await lines.next()
            let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.pid)/exe")) ?? ""
            // Read to its end (a /proc file says it is empty; a sized read would stop at the first page).
            let maps = String(decoding: FileHandle(forReadingAtPath: "/proc/\(process.pid)/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
            process.send(SIGINT)
            let (status, stderr) = await process.wait()
            #expect(first?.hasPrefix("serving http://127.0.0.1:") == true, "\(first ?? "no line"): \(stderr)")
            #expect(status == 0, "\(stderr)")
            #expect(executable.hasSuffix("/recorder-serve"), "the page ran in \(executable)")
            let mapped = maps.split(separator: "\n").compactMap { $0.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init) }
            #expect(lateAmong(mapped).contains { $0.contains("FoundationNetworking") || $0.contains("libcurl") },
                    "the page mapped none of the networking libraries: \(Set(mapped).sorted())")
        }
    }
}
