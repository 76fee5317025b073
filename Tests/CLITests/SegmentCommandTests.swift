// `record --segment`: a take cut on the clock every second from a numbered source, across a dozen
// boundaries: every frame in exactly one file, each file starting with the frame captured at its boundary.
import Foundation
import Glibc
import RecorderKit
import Testing
import TestSupport

/// A logger's files joined in order: every number of the feed once (a loss the recorder counted is
/// silence of its length with a gap marker in its file). Returns the samples and each file's frames.
func checkJoined(_ files: [String], from source: NumberedSource) async throws -> (samples: [Int16], lengths: [Int]) {
    var joined: [Int16] = [], gaps: [(frame: Int, count: Int)] = [], lengths: [Int] = []
    for path in files {
        let contents = try readSoundFile(path)
        #expect(contents.sampleRate == NumberedSource.sampleRate && contents.channels == 1, "\(path)")
        let markers = try FileAnalysis.analyze(path: path).markers
        gaps += NumberedSource.markedGaps(markers, sampleRate: contents.sampleRate).map { ($0.frame + joined.count, $0.count) }
        joined += contents.samples
        lengths.append(contents.frames)
    }
    let check = try await source.check(joined, gaps: gaps, countSlack: NumberedSource.markerSlack(sampleRate: NumberedSource.sampleRate))
    #expect(check.lostUncounted == 0, "\(check)")
    return (joined, lengths)
}

@Suite(.timeLimit(.minutes(3)))
struct SegmentCommandTests {
    /// `OUTPUT` with `%Y%m%d/%H%M%S` in UTC, read back as a Unix time.
    static func boundary(ofPath path: String) -> Double? {
        let parts = path.split(separator: "/").suffix(2)
        guard parts.count == 2, let stem = parts.last?.split(separator: ".").first else { return nil }
        let digits = (parts.first! + stem).compactMap(\.wholeNumberValue)
        guard digits.count == 14 else { return nil }
        func field(_ from: Int, _ count: Int) -> Int32 { Int32(digits[from..<(from + count)].reduce(0) { $0 * 10 + $1 }) }
        var broken = tm()
        broken.tm_year = field(0, 4) - 1_900
        broken.tm_mon = field(4, 2) - 1
        broken.tm_mday = field(6, 2)
        broken.tm_hour = field(8, 2)
        broken.tm_min = field(10, 2)
        broken.tm_sec = field(12, 2)
        return Double(timegm(&broken))
    }

    /// 13.5 s cut every second of UTC: 14 or 15 files. The oracle is the feed: the numbers tell every
    /// frame's place in it, and when each one went into the server's FIFO (`NumberedSource.writeTime`: the
    /// pipe source reads what is there as it comes). So the files joined hold every number once in order
    /// (or a loss the recorder counted and placed), the last frame of one file and the first of the next
    /// are consecutive, and the first frame of each file after the first was fed within one buffer
    /// (0.1 s) of its boundary. Each file says its boundary (iXML) and its time of day (bext), as exiftool
    /// reads them.
    @Test func aTakeCutEverySecondHoldsEveryFrameOnceAndEachFileStartsAtItsBoundary() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let source = try await NumberedSource(server: server, directory: directory)
            defer { source.stop() }
            let result = try await recorder(["record", directory + "/log/%Y%m%d/%H%M%S.wav", "--segment", "1s", "--utc",
                                             "--duration", "13.5", "--source", NumberedSource.name, "--rate", "44100",
                                             "--channels", "1", "--levels-json", "--quiet"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let started = try eventLines(result.stdout).filter { $0.event == "file" }.compactMap(\.path)
            let files = try FileManager.default.subpathsOfDirectory(atPath: directory + "/log")
                .filter { $0.hasSuffix(".wav") }.sorted().map { directory + "/log/" + $0 }
            #expect((14...15).contains(files.count), "\(files)")
            // Each file after the first is reported as it starts (and the first too, when the take began so
            // near a boundary that the first file was made again under its name).
            #expect(Set(files.dropFirst()).isSubset(of: started) && Set(started).isSubset(of: files), "\(started) \(files)")

            // Every number once, in order, across the files joined.
            let (joined, lengths) = try await checkJoined(files, from: source)
            #expect(joined.count == 13 * 44_100 + 22_050, "13.5 s in all")
            func number(_ sample: Int16) -> Int? { sample == 0 ? nil : Int(UInt16(bitPattern: sample)) - 1 }
            var start = 0
            var late: [Double] = []
            for (index, path) in files.enumerated() {
                defer { start += lengths[index] }
                guard index > 0 else { continue }
                // Nothing doubled or dropped at the joint.
                if let last = number(joined[start - 1]), let first = number(joined[start]) {
                    #expect(first == (last + 1) % NumberedSource.period, "\(path): \(last) then \(first)")
                }
                let boundary = try #require(Self.boundary(ofPath: path), "\(path)")
                let tags = try exiftool(path)
                let stamp = try #require(SegmentNames(pattern: "%Y-%m-%dT%H:%M:%SZ", zone: .utc).name(at: boundary))
                let user = tags["XML:BwfxmlUser"] as? String ?? ""
                #expect(user.hasPrefix("SEGMENT_BOUNDARY=\(stamp); SEGMENT_LATE_SAMPLES="), "\(path): \(user)")
                let lateSamples = Int(user.split(separator: "=").last ?? "") ?? -1
                let timeReference = (tags["RIFF:TimeReference"] as? NSNumber)?.int64Value
                #expect(timeReference == Int64(boundary.truncatingRemainder(dividingBy: 86_400)) * 44_100 + Int64(lateSamples),
                        "\(path): \(String(describing: timeReference))")
                // When its first frame was fed: the feed's frame nearest the boundary with the same number.
                guard let value = number(joined[start]), let near = source.frameFed(at: boundary) else { continue }
                let period = Int64(NumberedSource.period)
                let fed = near - ((near - Int64(value)) % period + period + period / 2) % period + period / 2
                let written = try #require(source.writeTime(ofFrame: fed))
                late.append(written - boundary)
            }
            print("segments: \(files.count) files of \(lengths) frames; first frames fed at the boundary "
                  + "\(late.map { String(format: "%+.3f", $0) }) s (the feed at worst \(source.worstLateness) s late)")
            #expect(late.count >= 12 && late.allSatisfy { abs($0) <= 0.1 }, "\(late)")
        }
    }
}
