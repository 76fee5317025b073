// `record --segment` when the wall clock changes under it: daylight saving in spring and autumn (TZ),
// a leap day, and a clock stepped forward three hours mid-take (an NTP step), with the recorder's wall
// clock set by libfaketime (its monotonic clock, and the server, left alone).
import Foundation
import Glibc
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(4)))
struct SegmentClockChangeTests {
    /// libfaketime for threaded programs, where Debian puts it.
    static func faketimeLibrary() throws -> String {
        let candidates = ["x86_64-linux-gnu", "aarch64-linux-gnu", "arm-linux-gnueabihf", "i386-linux-gnu"]
            .map { "/usr/lib/\($0)/faketime/libfaketimeMT.so.1" }
        return try #require(candidates.first { access($0, R_OK) == 0 }, "libfaketime is missing: scripts/setup --tests installs it")
    }

    /// A name `YYYYMMDD-HHMMSS±HHMM.wav` as (its local reading, its UTC instant).
    static func instant(_ path: String) -> (local: String, utc: Int)? {
        let name = String(path.split(separator: "/").last ?? "").replacingOccurrences(of: ".wav", with: "")
        let digits = name.compactMap(\.wholeNumberValue)
        guard digits.count == 18, name.count == 20 else { return nil }
        let sign = name[name.index(name.startIndex, offsetBy: 15)]
        func field(_ from: Int, _ count: Int) -> Int { digits[from..<(from + count)].reduce(0) { $0 * 10 + $1 } }
        var broken = tm()
        broken.tm_year = Int32(field(0, 4) - 1_900)
        broken.tm_mon = Int32(field(4, 2) - 1)
        broken.tm_mday = Int32(field(6, 2))
        broken.tm_hour = Int32(field(8, 2))
        broken.tm_min = Int32(field(10, 2))
        broken.tm_sec = Int32(field(12, 2))
        let offset = (field(14, 2) * 3_600 + field(16, 2) * 60) * (sign == "-" ? -1 : 1)
        return (String(name.prefix(15)), Int(timegm(&broken)) - offset)
    }

    /// libfaketime's offset that makes the wall clock read `instant` (Unix seconds) now: an offset, not
    /// a date (libfaketime reads a date in the local zone, where an autumn hour is there twice).
    static func offset(toRead instant: Int) -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let seconds = instant - Int(now.tv_sec)
        return seconds >= 0 ? "+\(seconds)" : "\(seconds)"
    }

    /// Records `seconds` of the numbered source cut every second, its wall clock starting at `instant` (Unix
    /// seconds, through libfaketime's FAKETIME_TIMESTAMP_FILE, when the process starts: the take begins
    /// after the command has started) in `zone`; `step` runs 2.5 s in with the file.
    /// Returns the files in order of their instants, after checking that they hold every frame of the feed once.
    func take(_ source: NumberedSource, _ server: PrivateServer, directory: String, zone: String, startingAt instant: Int,
              seconds: Double = 10, step: (@Sendable (String) throws -> Void)? = nil) async throws -> [String] {
        let clockFile = directory + "/faketime.rc"
        try Self.offset(toRead: instant).write(toFile: clockFile, atomically: true, encoding: .utf8)
        var environment = server.clientEnvironment
        environment["LD_PRELOAD"] = try Self.faketimeLibrary()
        environment["FAKETIME_TIMESTAMP_FILE"] = clockFile
        environment["FAKETIME_NO_CACHE"] = "1"
        environment["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
        // Without a shared clock named, libfaketime makes one in its constructor and setenv()s its name:
        // the environment moves, and a Swift program, which finds its arguments beside it, sees none (it
        // trapped on argc 0). The faketime command names one first; a name that does not exist does too.
        environment["FAKETIME_SHARED"] = "/rk_no_sem /rk_no_shm"
        environment["TZ"] = zone
        let process = try RunningProcess(try builtProduct("recorder"),
            ["record", directory + "/%Y%m%d-%H%M%S%z.wav", "--segment", "1s", "--duration", String(seconds), "--source", NumberedSource.name,
             "--rate", "44100", "--channels", "1", "--levels-json", "--quiet"], environment: environment)
        var stepped = step == nil
        for await line in process.lines where !stepped {
            // Level lines carry the take's frames: 2.5 s in, the step.
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let frames = (object["frames"] as? NSNumber)?.intValue, frames >= 110_250 else { continue }
            try step?(clockFile)
            stepped = true
        }
        let (status, stderr) = await process.wait()
        #expect(status == 0, "\(stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".wav") }
            .map { directory + "/" + $0 }.sorted { (Self.instant($0)?.utc ?? 0, $0) < (Self.instant($1)?.utc ?? 0, $1) }
        let (joined, _) = try await checkJoined(files, from: source)
        #expect(joined.count == Int(seconds * 44_100), "\(seconds) s in all: \(files)")
        return files
    }

    @Test func daylightSavingLeapDaysAndAClockSteppedByNTP() async throws {
        try await withPrivateServer { server in
            let source = try await NumberedSource(server: server, directory: try temporaryDirectory())
            defer { source.stop() }

            // Spring, 2026-03-29 01:00 GMT: the clock reads 00:59:59 then 02:00:00; the file that starts on
            // the change is named for 02:00 BST, one second after the file of 00:59:59 GMT.
            let spring = try await take(source, server, directory: try temporaryDirectory(), zone: "Europe/London",
                                        startingAt: 1_774_745_994)  // 00:59:54 GMT
            let springNames = spring.compactMap(Self.instant)
            print("spring: \(springNames.map(\.local))")
            #expect(springNames.contains { $0.local == "20260329-005959" } && springNames.contains { $0.local == "20260329-020000" },
                    "\(spring)")
            for (earlier, later) in zip(springNames.dropFirst(), springNames.dropFirst(2)) {
                #expect(later.utc == earlier.utc + 1, "\(earlier) \(later)")
            }

            // Autumn, 2026-10-25 01:00 GMT: 01:59:59 BST, then 01:00:00 GMT; each name says its offset.
            let autumn = try await take(source, server, directory: try temporaryDirectory(), zone: "Europe/London",
                                        startingAt: 1_792_889_994)  // 01:59:54 BST
            let autumnNames = autumn.compactMap(Self.instant)
            print("autumn: \(autumn.map { $0.split(separator: "/").last ?? "" })")
            #expect(autumn.contains { $0.hasSuffix("015959+0100.wav") } && autumn.contains { $0.hasSuffix("010000+0000.wav") },
                    "\(autumn)")
            for (earlier, later) in zip(autumnNames.dropFirst(), autumnNames.dropFirst(2)) {
                #expect(later.utc == earlier.utc + 1, "\(earlier) \(later)")
            }

            // A leap day in UTC: 2028-02-28 23:59:59, then 2028-02-29 00:00:00.
            let leap = try await take(source, server, directory: try temporaryDirectory(), zone: "UTC",
                                      startingAt: 1_835_395_194)  // 23:59:54 UTC
            #expect(leap.contains { $0.hasSuffix("20280229-000000+0000.wav") }, "\(leap)")

            // Stepped forward three hours 2.5 s in: the file open then ends at once and the next is named for
            // the last second passed, three hours on; no file for the seconds skipped, and the feed whole.
            let stepped = try await take(source, server, directory: try temporaryDirectory(), zone: "UTC",
                                         startingAt: 1_795_953_600, seconds: 5.5) { clockFile in  // 12:00:00 UTC
                // Three hours on from where it stands.
                let current = try String(contentsOfFile: clockFile, encoding: .utf8)
                let seconds = (Int(current.replacingOccurrences(of: "+", with: "")) ?? 0) + 10_800
                try (seconds >= 0 ? "+\(seconds)" : "\(seconds)").write(toFile: clockFile, atomically: true, encoding: .utf8)
            }
            let steppedNames = stepped.compactMap(Self.instant)
            print("stepped: \(steppedNames.map(\.local))")
            let jumps = zip(steppedNames, steppedNames.dropFirst()).filter { $1.utc - $0.utc > 1 }
            #expect(jumps.count == 1 && jumps.allSatisfy { $1.utc - $0.utc >= 3 * 3_600 - 5 && $1.utc - $0.utc <= 3 * 3_600 + 5 },
                    "\(steppedNames.map(\.local))")
            #expect(steppedNames.count <= 8, "no file for the seconds skipped: \(stepped)")
        }
    }
}
