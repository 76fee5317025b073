// What a take's files say of themselves (issue 28), read back by tools no one here wrote: mediainfo reads
// the bext chunk (BWF), exiftool the iXML take sheet; and the options' hostile values, one line each.
import Foundation
import Testing
import TestSupport

/// mediainfo's JSON for `path`: the general track's fields and the audio track's, `extra` merged in.
func mediainfo(_ path: String) throws -> (general: [String: Any], audio: [String: Any]) {
    let result = try runProcess("mediainfo", ["--Output=JSON", path])
    let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
    let tracks = try #require((object["media"] as? [String: Any])?["track"] as? [[String: Any]])
    func merged(_ kind: String) -> [String: Any] {
        var fields = tracks.first { $0["@type"] as? String == kind } ?? [:]
        for (key, value) in fields["extra"] as? [String: Any] ?? [:] { fields[key] = value }
        return fields
    }
    return (merged("General"), merged("Audio"))
}

/// exiftool's tags for `path` (`-j -a -G1:4`: repeated tags kept, the second as `XML:Copy1:…`).
func exiftool(_ path: String) throws -> [String: Any] {
    let result = try runProcess("exiftool", ["-j", "-a", "-G1:4", path])
    let list = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result.stderr)")
    return try #require(list.first)
}

/// Seconds since local midnight of a wall-clock time.
func secondsSinceMidnight(_ time: Double) -> Double {
    var whole = time_t(time.rounded(.down))
    var local = tm()
    localtime_r(&whole, &local)
    return Double(local.tm_hour * 3_600 + local.tm_min * 60 + local.tm_sec) + time - time.rounded(.down)
}

/// A local clock time a few seconds ahead, whole, for `--start-at` (HH:MM:SS), and its wall-clock time:
/// a take started so begins at a known time, however long the program takes to start.
func clockTimeAhead(_ seconds: Double) async throws -> (text: String, time: Double) {
    var time = (Date().timeIntervalSince1970 + seconds).rounded(.up)
    if secondsSinceMidnight(time) < seconds + 1 {  // not across midnight: wait for the new day
        try await Task.sleep(for: .seconds(seconds + 2))
        time = (Date().timeIntervalSince1970 + seconds).rounded(.up)
    }
    let of = Int(secondsSinceMidnight(time))
    return (String(format: "%02d:%02d:%02d", of / 3_600, of / 60 % 60, of % 60), time)
}

/// `recorder record ARGUMENTS --start-at T` for a T a few seconds ahead, again further ahead if the
/// program started only after T (a loaded machine): the result and T's wall-clock time.
func recordStartingAhead(_ arguments: [String], server: PrivateServer) async throws -> (ProcessResult, Double) {
    for lead in [2.0, 5, 10] {
        let (startAt, started) = try await clockTimeAhead(lead)
        let result = try await recorder(arguments + ["--start-at", startAt], server: server)
        if !result.stderr.contains("has passed today") { return (result, started) }
    }
    throw TestFailure("every --start-at had passed before the program started")
}

func number(_ value: Any?) -> Double? {
    (value as? NSNumber)?.doubleValue ?? (value as? String).flatMap(Double.init)
}

@Suite(.timeLimit(.minutes(3)))
struct TakeSheetTests {
    /// A 2 s take of the sine (mono 1 kHz, −6 dBFS peak) into WAV: bext version 2 with the program,
    /// the description, the first frame's date, time and time reference (within 0.5 s of the clock time
    /// the take was started at), and at the end the loudness measured as it was written, as mediainfo
    /// reads them.
    @Test func aWAVTakeHasBroadcastInfoWithItsTimeAndLoudness() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take.wav"
            let (result, started) = try await recordStartingAhead(["record", path, "-d", PrivateServer.sineSource, "--duration", "2",
                                                                   "--description", "Scene 12, take 3"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let (general, audio) = try mediainfo(path)
            #expect(general["bext_Present"] as? String == "Yes" && general["bext_Version"] as? String == "2", "\(general)")
            #expect(general["Description"] as? String == "Scene 12, take 3")
            #expect(general["Producer"] as? String == "recorder")
            #expect((general["Producer_Reference"] as? String)?.hasPrefix("recorder") == true)
            #expect((general["Encoded_Library_Settings"] as? String)?.hasPrefix("A=PCM,F=44100,W=16,M=mono") == true, "\(general)")
            // The time reference (mediainfo's Delay, in seconds since midnight) is the start's clock time.
            let delay = try #require(number(audio["Delay"]), "\(audio)")
            let expected = secondsSinceMidnight(started)
            #expect(abs(delay - expected) < 0.5 || abs(delay - expected) > 86_399, "time reference \(delay) s, started at \(expected) s")
            let date = try #require(general["Encoded_Date"] as? String)
            #expect(date.count == 19 && date.hasPrefix(String(Date(timeIntervalSince1970: started).description.prefix(4))), "\(date)")
            // The loudness of what the file holds, as the analysis measures it.
            let loudness = try #require(number(audio["LoudnessValue"]), "\(audio)")
            #expect(abs(loudness - -9.0) <= 0.1, "LoudnessValue \(loudness)")
            #expect(abs((number(audio["MaxTruePeakLevel"]) ?? 0) - -6.0) <= 0.1, "\(audio)")
            let analysis = try await recorder(["analyze", "--json", path])
            let measured = try #require(try JSONSerialization.jsonObject(with: Data(analysis.stdout.utf8)) as? [String: Any])
            let integrated = try #require(number(measured["integrated_lufs"]), "\(measured)")
            #expect(abs(loudness - integrated) <= 0.1, "bext \(loudness), analysis \(integrated)")
            #expect(number(audio["MaxMomentaryLoudness"]) != nil && number(audio["MaxShortTermLoudness"]) != nil, "\(audio)")
            // Without it: no bext chunk at all.
            let plain = path.replacingOccurrences(of: "take.wav", with: "plain.wav")
            #expect(try await recorder(["record", plain, "-d", PrivateServer.sineSource, "--duration", "0.5", "--no-bext"],
                                       server: server).status == 0)
            #expect(try mediainfo(plain).general["bext_Present"] == nil)
        }
    }

    /// The take sheet as exiftool reads it: the options' fields, the file's format and time stamp (the
    /// bext time reference's), one track per channel with its name; the take counted on from the ones
    /// already in the folder for that scene.
    @Test func iXMLFieldsRoundTripThroughExiftoolAndTakesCountOn() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let arguments = ["-d", PrivateServer.sineSource, "--duration", "1", "-c", "2", "--project", "Night Shoot",
                             "--scene", "12A", "--tape", "R01", "--note", "wind & rain <gusts>\u{7}",
                             "--track-name", "Boom", "--track-name", "Lav"]
            for take in 1...2 {
                let path = directory + "/take\(take).wav"
                let result = try await recorder(["record", path] + arguments, server: server)
                #expect(result.status == 0, "\(result.stderr)")
                let tags = try exiftool(path)
                #expect(tags["XML:BwfxmlProject"] as? String == "Night Shoot", "\(tags)")
                #expect(tags["XML:BwfxmlScene"] as? String == "12A")
                #expect(number(tags["XML:BwfxmlTake"]) == Double(take), "take \(take): \(tags["XML:BwfxmlTake"] ?? "none")")
                #expect(tags["XML:BwfxmlTape"] as? String == "R01")
                // A control character is written as a space; XML's own characters come back as given.
                #expect(tags["XML:BwfxmlNote"] as? String == "wind & rain <gusts> ", "\(tags["XML:BwfxmlNote"] ?? "none")")
                #expect(number(tags["XML:BwfxmlSpeedFileSampleRate"]) == 44_100 && number(tags["XML:BwfxmlSpeedAudioBitDepth"]) == 16)
                #expect(number(tags["XML:BwfxmlTrackListTrackCount"]) == 2)
                #expect(tags["XML:BwfxmlTrackListTrackName"] as? String == "Boom"
                        && tags["XML:Copy1:BwfxmlTrackListTrackName"] as? String == "Lav", "\(tags)")
                #expect(number(tags["XML:BwfxmlFileSetTotalFiles"]) == 1 && tags["XML:BwfxmlFileSetFileSetIndex"] as? String == "A")
                #expect(number(tags["XML:BwfxmlPreRecordSamplecount"]) == 0)
                // The iXML time stamp is the bext time reference.
                let stamp = try #require(number(tags["XML:BwfxmlSpeedTimestampSamplesSinceMidnightLo"]))
                #expect(number(tags["RIFF:TimeReference"]) == stamp && number(tags["XML:BwfxmlSpeedTimestampSamplesSinceMidnightHi"]) == 0)
                #expect((tags["XML:BwfxmlCircled"] as? Bool) == false && (tags["XML:BwfxmlNoGood"] as? Bool) == false, "\(tags)")
            }
            // Characters XML 1.0 does not allow (U+FFFE, U+FFFF) are stored as U+FFFD: a strict parser
            // (expat) reads the whole document.
            let strict = directory + "/strict.wav"
            #expect(try await recorder(["record", strict, "-d", PrivateServer.sineSource, "--duration", "0.2",
                                        "--note", "a\u{FFFE}b\u{FFFF}c"], server: server).status == 0)
            let document = try #require(try ixmlDocument(strict))
            try document.write(toFile: directory + "/strict.xml", atomically: true, encoding: .utf8)
            let parsed = try runProcess("python3", ["-c", "import sys, xml.etree.ElementTree as E; "
                                                   + "print(E.parse(sys.argv[1]).getroot().find('NOTE').text)", directory + "/strict.xml"])
            #expect(parsed.status == 0 && parsed.stdout == "a\u{FFFD}b\u{FFFD}c\n", "\(parsed.stderr)")
            // Without it: no iXML chunk.
            let plain = directory + "/plain.aiff"
            #expect(try await recorder(["record", plain, "-d", PrivateServer.sineSource, "--duration", "0.5", "--no-ixml"],
                                       server: server).status == 0)
            #expect(try ixmlDocument(plain) == nil)
            let aiff = directory + "/sheet.aiff"
            #expect(try await recorder(["record", aiff, "-d", PrivateServer.sineSource, "--duration", "0.5", "--scene", "4"],
                                       server: server).status == 0)
            let sheet = try #require(try ixmlDocument(aiff), "no iXML in the AIFF")
            #expect(ixmlValue("SCENE", in: sheet) == "4" && ixmlValue("TAKE", in: sheet) == "1", "\(sheet)")
        }
    }

    /// A take killed with SIGKILL keeps its bext chunk, with the loudness not set (mediainfo leaves
    /// out fields stored as 0x7FFF), and its iXML as it was made.
    @Test func aKilledTakeKeepsItsChunksWithTheLoudnessNotSet() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/killed.wav"
            let process = try RunningProcess(try builtProduct("recorder"),
                ["record", path, "-d", PrivateServer.sineSource, "--levels-json", "--project", "Killed"],
                environment: server.clientEnvironment)
            for await line in process.lines where line.contains("\"frames\": 4") { break }
            process.send(SIGKILL)
            #expect(await process.wait().status == 9)
            let (general, audio) = try mediainfo(path)
            #expect(general["bext_Version"] as? String == "2", "\(general)")
            #expect(audio["LoudnessValue"] == nil && audio["MaxTruePeakLevel"] == nil, "\(audio)")
            #expect(try exiftool(path)["XML:BwfxmlProject"] as? String == "Killed")
        }
    }

    /// A programme (up to 8 channels) gets its loudness in the bext chunk; a multitrack take (here 10
    /// channels of noise) gets the chunk with the loudness not set, and the summary says why in one line.
    @Test func aMultitrackWAVTakeHasNoLoudnessInItsBextAndSaysSo() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            for channels in [8, 10] {
                let sink = "rk_\(channels)ch"
                let loaded = try server.run("pactl", ["load-module", "module-null-sink", "sink_name=\(sink)", "channels=\(channels)",
                                                      "rate=48000", "format=s16le"])
                #expect(loaded.status == 0, "\(loaded.stderr)")
                let player = try RunningProcess("/usr/bin/paplay", ["--device", sink, "--raw", "--rate", "48000", "--channels", "\(channels)",
                                                                    "--format", "s16le", "/dev/urandom"], environment: server.clientEnvironment)
                defer { player.send(SIGTERM) }
                let path = directory + "/take-\(channels).wav"
                let result = try await recorder(["record", path, "-d", sink + ".monitor", "-r", "48000", "-c", "\(channels)",
                                                 "--duration", "1"], server: server)
                #expect(result.status == 0, "\(result.stderr)")
                let (general, audio) = try mediainfo(path)
                #expect(general["bext_Version"] as? String == "2", "\(general)")
                let note = "loudness: not in the bext chunk: \(channels) channels make a multitrack take, not a programme "
                    + "(up to 8); recorder analyze measures any file"
                if channels <= 8 {
                    #expect(number(audio["LoudnessValue"]) != nil && number(audio["MaxTruePeakLevel"]) != nil, "\(audio)")
                    #expect(!result.stderr.contains("loudness:"), "\(result.stderr)")
                } else {
                    #expect(audio["LoudnessValue"] == nil && audio["MaxTruePeakLevel"] == nil, "\(audio)")
                    #expect(result.stderr.split(separator: "\n").contains { $0 == note }, "\(result.stderr)")
                }
            }
        }
    }

    /// A take split into files shares one family id and counts its files A, B, C; each file's time
    /// reference is the one before's plus that file's frames; every file says how many there are.
    @Test func aSplitTakesFilesShareTheirFamilyAndFollowInTime() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/split.wav"
            let result = try await recorder(["record", path, "-d", PrivateServer.sineSource, "--duration", "2.5",
                                             "--max-file-time", "1"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let paths = [path, path.replacingOccurrences(of: ".wav", with: "-002.wav"), path.replacingOccurrences(of: ".wav", with: "-003.wav")]
            let tags = try paths.map(exiftool)
            #expect(Set(tags.compactMap { $0["XML:BwfxmlFileSetFamilyUid"] as? String }).count == 1, "\(tags)")
            #expect(tags.compactMap { $0["XML:BwfxmlFileSetFileSetIndex"] as? String } == ["A", "B", "C"])
            #expect(tags.compactMap { number($0["XML:BwfxmlFileSetTotalFiles"]) } == [3, 3, 3])
            #expect(Set(tags.compactMap { $0["XML:BwfxmlFileUid"] as? String }).count == 3)
            let references = tags.compactMap { number($0["RIFF:TimeReference"]) }
            #expect(references.count == 3 && references[1] - references[0] == 44_100 && references[2] - references[1] == 44_100,
                    "\(references)")
        }
    }

    /// A take that begins with pre-roll: its time stamp is its first pre-roll frame's, and the take
    /// sheet counts the pre-roll's frames.
    @Test func aPreRolledTakesTimeReferenceIsItsFirstPreRollFrame() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/preroll.wav"
            let (result, started) = try await recordStartingAhead(["record", path, "-d", PrivateServer.sineSource,
                                                                   "--pre-roll", "1", "--duration", "1.5"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let tags = try exiftool(path)
            #expect(number(tags["XML:BwfxmlPreRecordSamplecount"]) == 44_100, "\(tags)")
            let reference = try #require(number(tags["RIFF:TimeReference"]))
            let expected = secondsSinceMidnight(started - 1)
            print("pre-rolled take: time reference \(reference / 44_100) s, a second before the start at \(expected) s")
            #expect(abs(reference / 44_100 - expected) < 0.5 || abs(reference / 44_100 - expected) > 86_399,
                    "time reference \(reference / 44_100) s, the pre-roll's first frame at \(expected) s")
        }
    }

    /// What the take sheet cannot hold is one line before anything starts; nothing is created.
    @Test func hostileTakeSheetValuesAreOneLine() async throws {
        let directory = try temporaryDirectory()
        let path = directory + "/refused.wav"
        let cases: [([String], String)] = [
            (["--take", "-1"], "invalid --take -1: takes count from 1"),
            (["--note", String(repeating: "n", count: 10_000)],
             "--note is 10000 bytes as the iXML chunk stores it (& < > \" ' escaped); an iXML field here holds 4096: shorten it"),
            // Counted as stored: 1 000 ampersands are 5 000 bytes there (they were cut to 819, silently).
            (["--note", String(repeating: "&", count: 1_000)],
             "--note is 5000 bytes as the iXML chunk stores it (& < > \" ' escaped); an iXML field here holds 4096: shorten it"),
            (["--track-name", "a", "--track-name", "b", "--track-name", "c", "-c", "2"],
             "--track-name given 3 times for 2 channels: name each channel recorded once, in order"),
            (["--description", String(repeating: "d", count: 300)], "--description is 300 bytes; a bext Description holds 256: shorten it"),
            (["--scene", "1", "--no-ixml"], "--scene goes into the iXML chunk of a WAV, RF64, AIFF or CAF file: leave out --no-ixml"),
        ]
        for (arguments, message) in cases {
            let result = try await recorder(["record", path] + arguments)
            #expect(result.status == 64 && result.stderr == "recorder: \(message) (see 'recorder --help')\n", "\(result.stderr)")
        }
        // Bytes that are not UTF-8 never reach a field: the argument is refused.
        let bytes = try runProcess("bash", ["-c", "'\(try builtProduct("recorder"))' record '\(path)' --note $'caf\\xe9'"])
        #expect(bytes.status == 64 && bytes.stderr.hasSuffix("is not valid UTF-8; use a UTF-8 file or source name (see 'recorder --help')\n"),
                "\(bytes.stderr)")
        let flac = try await recorder(["record", directory + "/x.flac", "--project", "P"])
        #expect(flac.status == 64 && flac.stderr.contains("--project goes into the iXML chunk of a WAV, RF64, AIFF or CAF file"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}

/// `--split-sources`: a file per source, each with the take's first frame and length, one file set.
@Suite(.timeLimit(.minutes(2)))
struct SplitSourcesTests {
    /// Two sources (the sine source's one channel, the stereo sink's monitor's two) into `take_1.wav`
    /// and `take_2.wav`: the same length and TimeReference, one FAMILY_UID, FILE_SET_INDEX A and B of 2,
    /// tracks named after their sources by default; the take's own file is gone; the sine is in the first.
    @Test func eachSourceGetsAFileOfOneSet() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let path = directory + "/take.wav"
            let monitor = PrivateServer.stereoSink + ".monitor"
            let result = try await recorder(["record", path, "-d", PrivateServer.sineSource, "-d", monitor, "--duration", "1.5",
                                             "--split-sources"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let paths = [directory + "/take_1.wav", directory + "/take_2.wav"]
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect((result.stdout + result.stderr).contains("files by source: " + paths.joined(separator: ", ")), "\(result.stderr)")
            let files = try paths.map(readSoundFile)
            #expect(files.map(\.channels) == [1, 2])
            #expect(files.map(\.frames) == [66_150, 66_150])
            #expect(levels(of: files[0].samples.suffix(22_050)).peak > -7)
            let tags = try paths.map(exiftool)
            #expect(Set(tags.compactMap { $0["XML:BwfxmlFileSetFamilyUid"] as? String }).count == 1, "\(tags)")
            #expect(tags.compactMap { $0["XML:BwfxmlFileSetFileSetIndex"] as? String } == ["A", "B"])
            #expect(tags.compactMap { number($0["XML:BwfxmlFileSetTotalFiles"]) } == [2, 2])
            #expect(Set(tags.compactMap { $0["XML:BwfxmlFileUid"] as? String }).count == 2)
            let references = tags.compactMap { number($0["RIFF:TimeReference"]) }
            #expect(references.count == 2 && references[0] == references[1], "\(references)")
            #expect(tags[0]["XML:BwfxmlTrackListTrackName"] as? String == PrivateServer.sineSource)
            #expect(tags[1]["XML:BwfxmlTrackListTrackName"] as? String == monitor + " L")
            #expect(tags[1]["XML:Copy1:BwfxmlTrackListTrackName"] as? String == monitor + " R")
            #expect(number(tags[1]["XML:BwfxmlTrackListTrackCount"]) == 2)
            #expect((tags[0]["XML:BwfxmlNote"] as? String)?.contains("sources: \(PrivateServer.sineSource): began") == true)
        }
    }

    /// One source, or standard output: refused before anything records.
    @Test func splittingOneSourceOrAPipeIsRefused() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let one = try await recorder(["record", directory + "/one.wav", "-d", PrivateServer.sineSource, "--duration", "1",
                                          "--split-sources"], server: server)
            #expect(one.status != 0 && one.stderr.contains("--split-sources needs several sources"), "\(one.stderr)")
            let pipe = try await recorder(["record", "-", "-d", PrivateServer.sineSource, "-d", PrivateServer.monoSink + ".monitor",
                                           "--split-sources"], server: server)
            #expect(pipe.status != 0 && pipe.stderr.contains("give a file name"), "\(pipe.stderr)")
        }
    }
}
