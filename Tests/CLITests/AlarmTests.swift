// `record --alarm-…`: dead air, clipping, a source lost and the disk nearly full, each alarm's start and end
// (Alarms, fed by hand), and end to end: clicks that leave dead air between them, a server that dies and comes
// back, a tmpfs that fills and is freed (a line, an event and a marker each, a run of the --on-alarm program,
// and a post to the --webhook).
import Foundation
import RecorderCommandLine
import RecorderKit
import Synchronization
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(5)))
struct AlarmTests {
    /// 100 ms buffers at 8 kHz: dead air after 0.5 s below -50 dBFS, over when sound comes back, with how
    /// long it lasted; clipping from the first full-scale sample until 2 s without one.
    @Test func deadAirAndClippingStartAndEnd() {
        var settings = Alarms.Settings()
        settings.silence = (0.5, -50)
        settings.clipping = true
        let alarms = Alarms(settings, sampleRate: 8_000)
        var changes: [Alarms.Change] = []
        var end: Int64 = 0
        func buffers(_ count: Int, peak: Float) {
            for _ in 0..<count {
                end += 800
                changes += alarms.reading(endFrame: end, frameCount: 800, peak: peak)
            }
        }
        buffers(3, peak: -12)
        buffers(4, peak: -60)  // 0.4 s: not yet
        #expect(changes.isEmpty)
        buffers(1, peak: -70)  // 0.5 s
        #expect(changes == [Alarms.Change(kind: "silence", on: true, frame: 6_400, message: "dead air: below -50.0 dBFS for 0.5 s")])
        buffers(7, peak: -160)
        buffers(1, peak: 0)  // sound back after 1.2 s, and a full-scale sample
        #expect(changes.dropFirst() == [Alarms.Change(kind: "silence", on: false, frame: 12_800, message: "sound back after 1.2 s of dead air"),
                                        Alarms.Change(kind: "clipping", on: true, frame: 12_800, message: "clipping: a full-scale sample")])
        buffers(19, peak: -3)  // 1.9 s without clipping: still on
        #expect(changes.count == 3)
        buffers(1, peak: -3)
        #expect(changes.last == Alarms.Change(kind: "clipping", on: false, frame: 28_800, message: "clipping over: 1 buffer clipped in 0.1 s"))
    }

    /// A source lost and back (one source: the events of a reconnection; of several: one loss, reported
    /// once it ended); the disk below its margin, and above it again with 1 % to spare.
    @Test func aSourceLostAndTheDiskNearlyFull() throws {
        let free = Mutex<Int64>(500)
        var settings = Alarms.Settings()
        settings.diskFree = .fraction(0.1)
        settings.folder = "/srv/log"
        let alarms = Alarms(settings, sampleRate: 8_000) { _ in (free.withLock { $0 }, 10_000) }
        let error = RecorderError(.streamFailed, "the server went away")
        #expect(alarms.event(.captureInterrupted(error, atFrame: 8_000)).map(\.message) == ["source lost: the server went away"])
        #expect(alarms.event(.captureResumed(gapFrames: 20_000, atFrame: 28_000, recordingFrame: nil)).map(\.message)
                == ["source back after 2.5 s"])
        let several = alarms.event(.sourceLost(source: "mic", frames: 4_000, atFrame: 80_000, reason: .serverLost))
        #expect(several.map(\.on) == [true, false] && several.map(\.frame) == [80_000, 84_000])
        #expect(alarms.event(.sourceLost(source: "mic", frames: 80, atFrame: 90_000, reason: .dropped)).isEmpty,
                "frames dropped are a loss, reported as such, not a source lost")
        let low = alarms.reading(endFrame: 8_000, frameCount: 800, peak: -20)
        #expect(low.map(\.message) == ["the disk is nearly full: 500 bytes free in /srv/log"])
        free.withLock { $0 = 1_050 }  // above the margin, not by 1 %
        #expect(alarms.reading(endFrame: 16_000, frameCount: 800, peak: -20).isEmpty)
        free.withLock { $0 = 1_100 }
        #expect(alarms.reading(endFrame: 24_000, frameCount: 800, peak: -20).map(\.on) == [false])
    }

    /// Full-scale clicks once a second at 8 kHz, `--alarm-silence 0.5s@-50 --alarm-clip`: between clicks,
    /// dead air after half a second and sound back at the next click, each a line, an alarm event and a
    /// marker in the file; clipping once, at the first click.
    @Test func aTakeOfClicksRaisesDeadAirBetweenThem() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let clicks = try PacedClicks.pipeSource("rk_alarm_clicks", server: server, directory: directory, amplitude: .max)
            defer { clicks.stop() }
            let path = directory + "/take.wav"
            let result = try await recorder(["record", path, "--duration", "4.5", "-d", "rk_alarm_clicks", "--rate", "8000",
                                             "--alarm-silence", "0.5s@-50", "--alarm-clip", "--levels-json"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let alarms = try eventLines(result.stdout).filter { $0.event == "alarm" }
            let take = try readSoundFile(path)
            let clickFrames = clickPositions(take.channel(0))
            #expect(clickFrames.count >= 4, "\(clickFrames)")
            // Each stretch between two clicks: dead air on, then sound back at the next click.
            // (The alarms' own lines: the summary lists the markers too.)
            let stderrLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("recorder: alarm") }
            let on = stderrLines.filter { $0.contains("alarm: dead air: below -50.0 dBFS for 0.5 s") }
            let off = stderrLines.filter { $0.contains("alarm over: sound back after") }
            #expect(on.count >= clickFrames.count - 1 && off.count >= clickFrames.count - 1, "\(result.stderr)")
            #expect(stderrLines.filter { $0.contains("alarm: clipping: a full-scale sample") }.count == 1, "\(result.stderr)")
            #expect(alarms.count == on.count + off.count + 1, "\(alarms.map(\.t)) \(result.stderr)")
            // The markers in the file say the same, in order: every alarm's, but one the take's last buffer raised
            // (t 4.4 s or later), whose level line may be read after the file is closed (beside scripts/busy, once).
            let markers = try FileAnalysis.analyze(path: path).markers.map(\.label).filter { $0.hasPrefix("alarm") }
            let marked = markers.count == alarms.count ? alarms : alarms.filter { $0.t < 4.4 }
            #expect(markers.count == marked.count && markers.first(where: { $0.contains("dead air") }) != nil, "\(markers) \(alarms)")
        }
    }

    /// The same clicks with `--on-alarm` naming a program that writes down what it was given and then sleeps
    /// for ever (`--hook-timeout 0.5`): it is run once for each alarm event, in order, with the alarm, its state
    /// and its time as arguments and in its environment; each run is stopped at the time limit and reported;
    /// and the take is not delayed by a frame: exactly its 4.5 s, nothing dropped.
    @Test func onAlarmRunsForEachAlarmAndAHookThatHangsDelaysNothing() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let clicks = try PacedClicks.pipeSource("rk_alarm_hook", server: server, directory: directory)
            defer { clicks.stop() }
            let log = directory + "/alarms.log"
            let program = directory + "/on-alarm"
            try "#!/bin/sh\necho \"$1 $2 $RECORDER_ALARM $RECORDER_ALARM_STATE $RECORDER_T $RECORDER_ALARM_MESSAGE\" >> '\(log)'\nexec sleep 1000\n"
                .write(toFile: program, atomically: true, encoding: .utf8)
            chmod(program, 0o755)
            let path = directory + "/take.wav"
            let result = try await recorder(["record", path, "--duration", "4.5", "-d", "rk_alarm_hook", "--rate", "8000",
                                             "--alarm-silence", "0.5s@-50", "--on-alarm", program, "--hook-timeout", "0.5",
                                             "--levels-json"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let events = try eventLines(result.stdout)
            let alarms = events.filter { $0.event == "alarm" }
            #expect(alarms.count >= 6, "\(alarms)")
            // One run per alarm event, in order, each given what the event says; but those still waiting half
            // a second (the time limit) after the take ended, which are left out, each said.
            let runs = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ", maxSplits: 5) }
            try #require(runs.allSatisfy { $0.count == 6 }, "\(runs)")
            #expect(runs.count >= 6 && runs.map { "\($0[0]) \($0[1])" } == alarms.prefix(runs.count).map { "\($0.alarm ?? "") \($0.state ?? "")" },
                    "\(runs) \(alarms)")
            #expect(runs.allSatisfy { $0[2] == $0[0] && $0[3] == $0[1] }, "\(runs)")
            #expect(zip(runs, alarms).allSatisfy { Double($0.0[4]) == $0.1.t }, "\(runs) \(alarms)")
            #expect(runs.first.map { $0[5].hasPrefix("dead air: below -50.0 dBFS for 0.5 s") } == true, "\(runs)")
            // Each stopped at the time limit, reported, and counted in the summary.
            let failed = events.filter { $0.event == "hook-failed" && $0.reason?.contains("time limit") == true }
            let leftOut = events.filter { $0.event == "hook-failed" && $0.reason == "was left out: the take had ended and the hooks' 0.5 s to finish were up" }
            #expect(failed.count == runs.count && leftOut.count == alarms.count - runs.count && (failed + leftOut).allSatisfy { $0.hook == "on-alarm" },
                    "\(events)")
            #expect(result.stderr.contains("on-alarm: \(runs.count) runs, \(runs.count) failed (\(runs.count) at the time limit)"
                                           + (leftOut.isEmpty ? "\n" : ", \(leftOut.count) left out\n")), "\(result.stderr)")
            // The take: exactly 4.5 s at 8 kHz, nothing dropped.
            #expect(try readSoundFile(path).frames == 36_000)
            #expect(!events.contains { $0.event == "dropped" }, "\(events)")
        }
    }

    /// A hook program that cannot run, or `--on-alarm` with no alarm to run for: refused in one line that
    /// names the option and says what to do, before anything is recorded (exit 64, no file).
    @Test func hookProgramsThatCannotRunAreRefusedInOneLine() async throws {
        let directory = try temporaryDirectory()
        let plain = directory + "/not-executable"
        try "#!/bin/sh\n".write(toFile: plain, atomically: true, encoding: .utf8)
        let path = directory + "/take.wav"
        let cases: [([String], String)] = [
            (["--on-alarm", directory + "/missing", "--alarm-clip"],
             "invalid --on-alarm '\(directory)/missing': it is not an executable file; give the path of a program to run for each alarm"),
            (["--on-alarm", plain, "--alarm-clip"],
             "invalid --on-alarm '\(plain)': it is not an executable file; give the path of a program to run for each alarm"),
            (["--on-alarm", "rk-no-such-program-anywhere", "--alarm-clip"],
             "invalid --on-alarm 'rk-no-such-program-anywhere': it is not a program found in PATH; give the path of a program to run for each alarm"),
            (["--on-alarm", "/bin/true"], "--on-alarm needs an alarm to run for: add --alarm-silence, --alarm-clip or --alarm-disk"),
            (["--on-file", plain], "invalid --on-file '\(plain)': it is not an executable file; give the path of a program to run for each file"),
        ]
        for (options, message) in cases {
            let result = try await recorder(["record", path] + options)
            #expect(result.status == 64, "\(options): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("recorder: ") && lines[0].contains(message), "\(options): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path), "\(options)")
        }
    }

    /// A source lost and back, end to end: the server dies under a take with `--reconnect` and an alarm asked
    /// (`--alarm-clip`: any alarm brings the source's), and comes back two seconds later. The alarm `source`
    /// goes on when the capture is interrupted and off when it resumes, each a line, an event, a marker, a
    /// run of the `--on-alarm` program with `source on` and `source off`, and a post to the `--webhook`.
    @Test func aLostSourceRaisesAndClearsItsAlarmAndRunsTheHook() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let (program, log) = try alarmLogger(in: directory)
            let path = directory + "/take.wav"
            let listener = try LoopbackListener(status: 200)
            defer { listener.stop() }
            let process = try RunningProcess(try builtProduct("recorder"),
                ["record", path, "--source", PrivateServer.monoSink + ".monitor", "--levels-json", "--reconnect", "--reconnect-timeout", "30",
                 "--alarm-clip", "--on-alarm", program, "--webhook", "http://127.0.0.1:\(listener.port)/"], environment: server.clientEnvironment)
            var output: [String] = []
            var crashed = false
            for await line in process.lines {
                output.append(line)
                if !crashed {
                    crashed = true
                    await server.crash()
                    try await Task.sleep(for: .seconds(2))
                    try await server.restart()
                }
                if line.contains("\"event\": \"alarm\"") && line.contains("\"state\": \"off\"") { break }
            }
            process.send(SIGINT)
            for await line in process.lines { output.append(line) }
            let (status, stderr) = await process.wait()
            #expect(status == 0, "\(stderr)")
            let alarms = try eventLines(output.joined(separator: "\n")).filter { $0.event == "alarm" }
            #expect(alarms.map { "\($0.alarm ?? "") \($0.state ?? "")" } == ["source on", "source off"], "\(alarms)")
            #expect(stderr.contains("recorder: alarm: source lost: ") && stderr.contains("recorder: alarm over: source back after "), "\(stderr)")
            let runs = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            #expect(runs.count == 2 && runs[0].hasPrefix("source on source lost: ") && runs[1].hasPrefix("source off source back after "),
                    "\(runs)")
            #expect(stderr.contains("on-alarm: 2 runs, 0 failed"), "\(stderr)")
            // The webhook: both alarm events, as printed (with the other events: the gap, the markers).
            let printed = output.filter { $0.hasPrefix("{\"event\": \"alarm\"") }
            #expect(listener.requests.map(\.body).filter { $0.hasPrefix("{\"event\": \"alarm\"") } == printed && printed.count == 2,
                    "\(listener.requests.map(\.body)) \(printed)")
            let markers = try FileAnalysis.analyze(path: path).markers.map(\.label).filter { $0.hasPrefix("alarm") }
            #expect(markers.count == 2 && markers[0].hasPrefix("alarm: source lost: ") && markers[1].hasPrefix("alarm over: source back after "),
                    "\(markers)")
        }
    }

    /// The disk nearly full, end to end: a 4 MiB tmpfs two-thirds filled by a file of someone else's, a take
    /// on it with `--alarm-disk 25%`. As the take grows past the margin the alarm `disk` goes on; the other file
    /// removed, it goes off ("has room again"); each a line, an event, a marker, a run of the `--on-alarm`
    /// program and a post to the `--webhook`.
    @Test func aDiskNearlyFullRaisesAndClearsItsAlarmAndRunsTheHooks() async throws {
        try await withTinyDisk(size: "4m") { disk in
            let other = disk + "/other.bin"
            try Data(count: 2_900_000).write(to: URL(fileURLWithPath: other))
            try await withPrivateServer { server in
                let directory = try temporaryDirectory()
                let (program, log) = try alarmLogger(in: directory)
                let listener = try LoopbackListener(status: 200)
                defer { listener.stop() }
                let path = disk + "/take.wav"
                // 8 kHz mono 16-bit: 16 KB a second, past the margin (1 MiB free) at once or within seconds (the
            // writer keeps room ahead); with the other file gone, 2.7 MiB from it again: a few minutes.
                let process = try RunningProcess(try builtProduct("recorder"),
                    ["record", path, "--source", PrivateServer.monoSink + ".monitor", "--rate", "8000", "--levels-json", "--alarm-disk", "25%",
                     "--on-alarm", program, "--webhook", "http://127.0.0.1:\(listener.port)/"], environment: server.clientEnvironment)
                var output: [String] = []
                for await line in process.lines {
                    output.append(line)
                    guard line.hasPrefix("{\"event\": \"alarm\"") else { continue }
                    if line.contains("\"state\": \"on\"") { try FileManager.default.removeItem(atPath: other) } else { break }
                }
                process.send(SIGINT)
                for await line in process.lines { output.append(line) }
                let (status, stderr) = await process.wait()
                #expect(status == 0, "\(stderr)")
                let alarms = output.filter { $0.hasPrefix("{\"event\": \"alarm\"") }
                let parsed = try eventLines(alarms.joined(separator: "\n"))
                #expect(parsed.map { "\($0.alarm ?? "") \($0.state ?? "")" } == ["disk on", "disk off"], "\(alarms)")
                #expect(stderr.contains("recorder: alarm: the disk is nearly full: ") && stderr.contains("recorder: alarm over: the disk has room again: "),
                        "\(stderr)")
                let runs = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                #expect(runs.count == 2 && runs[0].hasPrefix("disk on the disk is nearly full: ") && runs[1].hasPrefix("disk off the disk has room again: "),
                        "\(runs)")
                #expect(listener.requests.map(\.body).filter { $0.hasPrefix("{\"event\": \"alarm\"") } == alarms, "\(listener.requests.map(\.body))")
                #expect(stderr.contains("on-alarm: 2 runs, 0 failed"), "\(stderr)")
                let markers = try FileAnalysis.analyze(path: path).markers.map(\.label).filter { $0.hasPrefix("alarm") }
                #expect(markers.count == 2 && markers[0].hasPrefix("alarm: the disk is nearly full: ") && markers[1].hasPrefix("alarm over: the disk has room again: "),
                        "\(markers)")
            }
        }
    }

    /// A file that could not be written, end to end: a take on a 64 KiB tmpfs with `--alarm-clip` (any alarm
    /// brings this one) runs until the disk is full and ends there, its exit status saying so; the alarm
    /// `file` goes on once (there is no off: the take is over), a line naming the file, an event, a run of
    /// the `--on-alarm` program and a post to the `--webhook`, all before the command exits.
    @Test func aFileThatCannotBeWrittenRaisesItsAlarm() async throws {
        try await withTinyDisk(size: "64k") { disk in
            try await withPrivateServer { server in
                let directory = try temporaryDirectory()
                let (program, log) = try alarmLogger(in: directory)
                let listener = try LoopbackListener(status: 200)
                defer { listener.stop() }
                let path = disk + "/take.wav"
                let result = try await recorder(["record", path, "--duration", "60", "--source", PrivateServer.monoSink + ".monitor",
                                                 "--rate", "8000", "--levels-json", "--alarm-clip", "--on-alarm", program,
                                                 "--webhook", "http://127.0.0.1:\(listener.port)/"], server: server)
                #expect(result.status != 0, "\(result.stderr)")
                let alarms = result.stdout.split(separator: "\n").filter { $0.hasPrefix("{\"event\": \"alarm\"") }.map(String.init)
                let parsed = try eventLines(alarms.joined(separator: "\n"))
                #expect(parsed.map { "\($0.alarm ?? "") \($0.state ?? "")" } == ["file on"], "\(result.stdout)")
                #expect(result.stderr.contains("recorder: alarm: file could not be written: ") && result.stderr.contains(path), "\(result.stderr)")
                let runs = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                #expect(runs.count == 1 && runs[0].hasPrefix("file on file could not be written: "), "\(runs)")
                #expect(listener.requests.map(\.body).filter { $0.hasPrefix("{\"event\": \"alarm\"") } == alarms, "\(listener.requests.map(\.body))")
            }
        }
    }

    /// An `--on-alarm` program in `directory` that writes a line "ALARM STATE MESSAGE" for each run to `log`.
    private func alarmLogger(in directory: String) throws -> (program: String, log: String) {
        let log = directory + "/alarms.log"
        let program = directory + "/on-alarm"
        try "#!/bin/sh\necho \"$1 $2 $RECORDER_ALARM_MESSAGE\" >> '\(log)'\n".write(toFile: program, atomically: true, encoding: .utf8)
        chmod(program, 0o755)
        return (program, log)
    }
}
