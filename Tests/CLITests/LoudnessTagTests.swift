// Loudness tags (issue 28, point 4): `analyze --tag [--album]` writes ReplayGain 2.0 into FLAC, Ogg Vorbis and
// MP3 and R128 gains into Opus as loudgain and rsgain do, read back by metaflac, vorbiscomment, opusinfo
// and ffprobe; `play --replaygain` plays a tagged file at its gain, heard on the sink's monitor.
import Foundation
import Testing
import TestSupport

/// The tags a reader prints as NAME=value lines, by name (upper-cased).
func tagLines(_ text: String) -> [String: String] {
    var tags: [String: String] = [:]
    for line in text.split(separator: "\n") {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard let equals = trimmed.firstIndex(of: "=") else { continue }
        tags[trimmed[..<equals].uppercased()] = String(trimmed[trimmed.index(after: equals)...])
    }
    return tags
}

/// `recorder analyze --json`'s integrated loudness of `path`, and its highest sample peak (dBFS).
func measured(_ path: String) async throws -> (loudness: Double, samplePeak: Double) {
    let analysis = try await recorder(["analyze", "--json", path])
    let object = try #require(try JSONSerialization.jsonObject(with: Data(analysis.stdout.utf8)) as? [String: Any], "\(analysis.stderr)")
    return (try #require((object["integrated_lufs"] as? NSNumber)?.doubleValue),
            try #require((object["sample_peak_dbfs"] as? [NSNumber])?.map(\.doubleValue).max()))
}

@Suite(.timeLimit(.minutes(1)))
struct LoudnessTagTests {
    /// Two tones (-12 and -20 dBFS peak) encoded by ffmpeg into the four tagged types.
    private func encodedTones(_ directory: String) throws -> [String: [String]] {
        var made: [String: [String]] = [:]
        for (name, volume) in [("loud", "0.25"), ("soft", "0.1")] {
            let wav = directory + "/\(name).wav"
            _ = try runProcess("sox", ["-R", "-n", "-r", "48000", "-c", "1", "-b", "16", wav, "synth", "3", "sine", "997", "vol", volume])
            for type in ["flac", "ogg", "opus", "mp3"] {
                let path = directory + "/\(name).\(type)"
                let encoded = try runProcess("ffmpeg", ["-v", "error", "-y", "-i", wav, path])
                #expect(encoded.status == 0, "\(encoded.stderr)")
                made[type, default: []].append(path)
            }
        }
        return made
    }

    @Test func analyzeTagWritesTrackAndAlbumGainsAsTheReadersSeeThem() async throws {
        let directory = try temporaryDirectory()
        let files = try encodedTones(directory)
        for (type, paths) in files.sorted(by: { $0.key < $1.key }) {
            // The album on FLAC and Opus (the two ways of storing it); the track alone on the others.
            let album = type == "flac" || type == "opus"
            let tagged = try await recorder(["analyze", "--tag"] + (album ? ["--album"] : []) + paths)
            #expect(tagged.status == 0 && tagged.stdout.contains("  tagged: "), "\(type): \(tagged.stderr)")
            // The album: both files as one programme (ffmpeg joins what it decodes; analyze measures the join).
            var albumLoudness: Double?
            if album {
                let joined = directory + "/joined-\(type).wav"
                let join = try runProcess("ffmpeg", ["-v", "error", "-y"] + paths.flatMap { ["-i", $0] }
                                          + ["-filter_complex", "concat=n=\(paths.count):v=0:a=1", "-c:a", "pcm_f32le", joined])
                #expect(join.status == 0, "\(join.stderr)")
                albumLoudness = try await measured(joined).loudness
            }
            for path in paths {
                let (track, samplePeak) = try await measured(path)
                let read: [String: String]
                switch type {
                case "flac": read = tagLines(try runProcess("metaflac", ["--export-tags-to=-", path]).stdout)
                case "ogg": read = tagLines(try runProcess("vorbiscomment", ["-l", path]).stdout)
                case "opus": read = tagLines(try runProcess("opusinfo", [path]).stdout)
                default:
                    let probe = try runProcess("ffprobe", ["-v", "quiet", "-show_entries", "format_tags", "-of", "default=nw=1", path])
                    read = Dictionary(tagLines(probe.stdout).map { ($0.key.replacingOccurrences(of: "TAG:", with: ""), $0.value) }) { $1 }
                }
                if type == "opus" {
                    // R128 gains: Q7.8 dB to -23 LUFS, and no ReplayGain tags. (analyze prints the loudness
                    // to 0.01 LU: within that of the tag's 1/256 dB steps.)
                    let trackGain = try #require(read["R128_TRACK_GAIN"].flatMap { Double($0) }, "\(path): \(read)")
                    #expect(abs(trackGain / 256 - (-23 - track)) <= 0.006, "\(path): \(trackGain / 256) dB, measured \(track) LUFS")
                    let albumGain = try #require(read["R128_ALBUM_GAIN"].flatMap { Double($0) }, "\(read)")
                    #expect(abs(albumGain / 256 - (-23 - (albumLoudness ?? 0))) <= 0.06, "album \(albumGain / 256) dB, measured \(albumLoudness ?? 0) LUFS")
                    #expect(!read.keys.contains { $0.hasPrefix("REPLAYGAIN") }, "\(read)")
                } else {
                    let gain = try #require(read["REPLAYGAIN_TRACK_GAIN"], "\(path): \(read)")
                    #expect(gain.hasSuffix(" dB") && Double(gain.dropLast(3)).map { abs($0 - (-18 - track)) <= 0.0101 } == true,
                            "\(path): \(gain), measured \(track) LUFS")
                    // The decoded file's sample peak, as analyze measures it (to its two decimals of dB).
                    let peak = try #require(read["REPLAYGAIN_TRACK_PEAK"].flatMap { Double($0) })
                    #expect(abs(20 * log10(peak) - samplePeak) <= 0.006, "\(path): peak \(peak), analyze \(samplePeak) dBFS")
                    if let albumLoudness {
                        let albumGain = try #require(read["REPLAYGAIN_ALBUM_GAIN"]?.split(separator: " ").first.flatMap { Double($0) })
                        #expect(abs(albumGain - (-18 - albumLoudness)) <= 0.06, "album \(albumGain) dB, measured \(albumLoudness) LUFS")
                    } else {
                        #expect(read["REPLAYGAIN_ALBUM_GAIN"] == nil, "\(read)")
                    }
                }
            }
        }
        // What cannot hold them is one line.
        let refused = try await recorder(["analyze", "--tag", directory + "/loud.aiff"])
        #expect(refused.status == 64 && refused.stderr.contains("loudness tags go into .flac, .ogg, .opus, .mp3, .wav and .rf64 files"),
                "\(refused.stderr)")
        let plainWAV = try await recorder(["analyze", "--tag", directory + "/loud.wav"])
        #expect(plainWAV.status == 65 && plainWAV.stderr.contains("it has no bext chunk to hold it"), "\(plainWAV.stderr)")
    }

    /// Each way `analyze --tag` can fail has its own line and status: a silent file and a WAV without
    /// bext 65 (and advice that works: the FLAC the line names takes the tag), a read-only filesystem 73,
    /// a full disk 74 with the file unchanged, a missing file 66; the first failure's status is the exit's.
    @Test func eachTagFailureHasItsOwnStatusAndLine() async throws {
        let directory = try temporaryDirectory()
        _ = try runProcess("sox", ["-n", "-r", "44100", "-c", "1", "-b", "16", directory + "/silent.flac", "trim", "0", "1"])
        let silent = try await recorder(["analyze", "--tag", directory + "/silent.flac"])
        #expect(silent.status == 65 && silent.stderr.hasPrefix("recorder: cannot tag '\(directory)/silent.flac' with its loudness: ")
                && silent.stderr.split(separator: "\n").count == 1, "\(silent.stderr)")
        _ = try runProcess("sox", ["-n", "-r", "44100", "-c", "1", "-b", "16", directory + "/plain.wav", "synth", "1", "sine", "997"])
        let plain = try await recorder(["analyze", "--tag", directory + "/plain.wav"])
        #expect(plain.status == 65 && plain.stderr.hasSuffix("convert it to FLAC (sox IN.wav OUT.flac) and tag that\n"), "\(plain.stderr)")
        #expect(try runProcess("sox", [directory + "/plain.wav", directory + "/plain.flac"]).status == 0)
        #expect(try await recorder(["analyze", "--tag", directory + "/plain.flac"]).status == 0, "the advice works")
        let missing = try await recorder(["analyze", "--tag", directory + "/missing.flac", directory + "/silent.flac"])
        #expect(missing.status == 66 && missing.stderr.split(separator: "\n").count == 2, "\(missing.stderr)")
        try await withTinyDisk(size: "1m") { disk in
            #expect(try runProcess("cp", [directory + "/plain.flac", disk + "/tone.flac"]).status == 0)
            #expect(try runProcess("mount", ["-o", "remount,ro", disk]).status == 0)
            let readOnly = try await recorder(["analyze", "--tag", disk + "/tone.flac"])
            #expect(readOnly.status == 73 && readOnly.stderr.contains("Read-only file system")
                    && readOnly.stderr.hasSuffix("the file is unchanged\n"), "\(readOnly.stderr)")
            #expect(try runProcess("mount", ["-o", "remount,rw", disk]).status == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: disk + "/tone.flac"))
            _ = try runProcess("dd", ["if=/dev/zero", "of=" + disk + "/filler", "bs=4096"])  // to the brim
            let full = try await recorder(["analyze", "--tag", disk + "/tone.flac"])
            #expect(full.status == 74 && full.stderr.contains("the disk is full") && full.stderr.hasSuffix("the file is unchanged\n"),
                    "\(full.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: disk + "/tone.flac")) == before)
            #expect(try runProcess("flac", ["-t", "-s", disk + "/tone.flac"]).status == 0)
        }
    }

    /// `record --tag` tags the take when it ends, as `analyze --tag` would.
    @Test func recordTagTagsTheTakeWhenItEnds() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take.flac"
            let result = try await recorder(["record", path, "-d", PrivateServer.sineSource, "--duration", "2", "--tag"], server: server)
            #expect(result.status == 0 && result.stderr.contains("tagged \(path): REPLAYGAIN_TRACK_GAIN="), "\(result.stderr)")
            let read = tagLines(try runProcess("metaflac", ["--export-tags-to=-", path]).stdout)
            let track = try await measured(path).loudness
            let gain = read["REPLAYGAIN_TRACK_GAIN"]?.split(separator: " ").first.flatMap { Double($0) }
            #expect(gain.map { abs($0 - (-18 - track)) <= 0.0101 } == true, "\(read), measured \(track) LUFS")
            let refused = try await recorder(["record", path.replacingOccurrences(of: ".flac", with: ".caf"), "--tag"], server: server)
            #expect(refused.status == 64 && refused.stderr.contains("--tag writes loudness into FLAC, Ogg Vorbis, Opus, MP3, WAV or RF64 files"),
                    "\(refused.stderr)")
        }
    }

    /// `play --replaygain track`: a tone tagged 6 dB too loud is heard 6 dB down on the monitor.
    @Test func playReplayGainPlaysAtTheTaggedGain() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let path = directory + "/tone.flac"
            _ = try runProcess("sox", ["-R", "-n", "-r", "44100", "-c", "1", "-b", "16", path, "synth", "2", "sine", "997", "vol", "0.5"])
            #expect(try await recorder(["analyze", "--tag", path]).status == 0)
            let expectedGain = -18 - (try await measured(path).loudness)
            let ear = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            let played = try await recorder(["play", path, "-d", PrivateServer.monoSink, "--replaygain", "track", "-q"], server: server)
            #expect(played.status == 0, "\(played.stderr)")
            let heard = try await ear.samples(afterFrames: 22_050)
            let peak = Double(heard.map { abs(Int($0)) }.max() ?? 0) / 32_768
            let heardGain = 20 * log10(peak / 0.5)
            print("play --replaygain track: tagged \(expectedGain) dB, heard \(heardGain) dB")
            #expect(abs(heardGain - expectedGain) < 0.1, "heard \(heardGain) dB, the tag says \(expectedGain) dB")
        }
    }
}
