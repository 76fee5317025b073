// `analyze -j N`: several files at once, the results printed in the order given and equal to one at a time.
import Foundation
import Testing
import TestSupport

@Suite struct ParallelAnalysisTests {
    @Test func resultsComeInTheOrderGivenAndEqualOneAtATime() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Longest first, so that the files finish in another order than they are given.
        var paths: [String] = []
        for (index, seconds) in [6, 1, 4, 2, 3, 1].enumerated() {
            let path = folder + "/f\(index).wav"
            let samples = sineSamples(frames: seconds * 48_000, frequency: 200 + 100 * Double(index), sampleRate: 48_000,
                                      amplitudes: [0.1 * Double(index + 1), 0.05])
            try writeWAV(path, samples: samples, channels: 2, sampleRate: 48_000)
            paths.append(path)
        }
        paths.insert(folder + "/missing.wav", at: 3)
        let serial = try runRecorder(["analyze", "--json", "--overs", "-j", "1"] + paths + ["--plot", folder + "/{}-a.svg"])
        let parallel = try runRecorder(["analyze", "--json", "--overs", "-j", "4"] + paths + ["--plot", folder + "/{}-b.svg"])
        #expect(serial.status == 66 && parallel.status == 66)
        #expect(serial.stderr == parallel.stderr && serial.stderr.contains("missing.wav"))
        let lines = parallel.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        #expect(lines.map { $0.contains("\"file\": \"\(folder)/f") } == [Bool](repeating: true, count: 6))
        #expect(lines.enumerated().allSatisfy { $0.element.contains("/f\($0.offset).wav\"") })
        #expect(serial.stdout.replacingOccurrences(of: "-a.svg", with: "-b.svg") == parallel.stdout)
        // The same pictures (cairo numbers its surfaces across a process: the ids aside).
        func drawing(_ path: String) throws -> String {
            try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: #"surface[0-9]+"#, with: "surface", options: .regularExpression)
        }
        for index in 0..<6 { #expect(try drawing(folder + "/f\(index)-a.svg") == drawing(folder + "/f\(index)-b.svg")) }
    }

    /// `-j N` is the threads in all: `-j 1` analyses a file on the thread that reads it and starts no
    /// helper (`rk-analysis`); `-j 2` on one file starts one. Seen in /proc while a minute of stereo is
    /// analysed (the helpers live for the whole pass), with the same results either way.
    @Test func jobsCountTheThreadsInAll() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/minute.wav"
        try writeWAV(path, samples: sineSamples(frames: 60 * 48_000, frequency: 440, sampleRate: 48_000, amplitudes: [0.5, 0.25]),
                     channels: 2, sampleRate: 48_000)
        var reports: [String] = []
        var helpersSeen: [Bool] = []
        for jobs in ["1", "2"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try builtProduct("recorder"))
            process.arguments = ["analyze", "--json", "-j", jobs, path]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            var seen = false
            let tasks = "/proc/\(process.processIdentifier)/task"
            // Polled until the pipe closes (the process has printed its result and is ending).
            let reading = DispatchQueue(label: "read")
            nonisolated(unsafe) var data = Data()
            let done = DispatchSemaphore(value: 0)
            reading.async {
                data = out.fileHandleForReading.readDataToEndOfFile()
                done.signal()
            }
            while done.wait(timeout: .now() + .milliseconds(5)) == .timedOut {
                for task in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
                    let name = (try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8)) ?? ""
                    if name.hasPrefix("rk-analysis") { seen = true }
                }
            }
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            reports.append(String(decoding: data, as: UTF8.self))
            helpersSeen.append(seen)
        }
        #expect(helpersSeen == [false, true], "rk-analysis threads seen with -j 1, -j 2: \(helpersSeen)")
        #expect(reports[0] == reports[1] && reports[0].contains("\"integrated_lufs\""), "\(reports)")
    }
}
