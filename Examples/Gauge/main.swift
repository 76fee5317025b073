// A level gauge on the live recorder, as the iOS "decibel meter" samples draw one: the average level
// (RMS, dBFS) on a −60…0 scale with its zone named. Nothing is written to disk: capture runs and
// meters before any record(to:).
//
//     swift run gauge [SECONDS] [SOURCE]
//
// Zones, on the average level: quiet below −40 dBFS, normal from −40, loud from −20, too loud from
// −6 dBFS or whenever a sample peaks at −1 dBFS or above (about to clip).
import Foundation
import RecorderKit

let arguments = CommandLine.arguments
guard arguments.count <= 3, let seconds = arguments.count > 1 ? Double(arguments[1]) : 5,
      seconds.isFinite, seconds > 0, seconds <= 86_400 else {
    FileHandle.standardError.write(Data("usage: gauge [SECONDS (0 < s ≤ 86400, default 5)] [SOURCE]\n".utf8))
    exit(64)
}

enum Zone: String {
    case quiet, normal, loud, tooLoud = "too loud"

    init(average: Float, peak: Float) {
        if average >= -6 || peak >= -1 {
            self = .tooLoud
        } else if average >= -20 {
            self = .loud
        } else if average >= -40 {
            self = .normal
        } else {
            self = .quiet
        }
    }
}

/// The −60…0 dBFS scale with the zone boundaries marked (| at −40, −20 and −6 dBFS).
func gauge(_ decibels: Float, width: Int = 60) -> String {
    let filled = decibels.isFinite ? max(0, min(width, Int((decibels + 60).rounded()))) : 0
    let marks: Set<Int> = [20, 40, 54]
    return "[" + (0..<width).map { index in
        index < filled ? "#" : (marks.contains(index) ? "|" : " ")
    }.joined() + "]"
}

do {
    let recorder = try Recorder(source: arguments.count == 3 ? arguments[2] : nil)
    defer { recorder.stop() }
    let readings = recorder.levelReadings()
    let terminal = isatty(STDOUT_FILENO) == 1
    print("level of \(recorder.sourceName) for \(seconds) s (quiet < -40 dBFS ≤ normal < -20 ≤ loud < -6 ≤ too loud)")
    let start = recorder.capturedFrames
    let frames = Int64(seconds * Double(recorder.format.sampleRate))
    for await reading in readings {
        // The gauge reads the loudest channel.
        let average = reading.channels.map(\.averagePower).max() ?? LevelMeterState.silence
        let peak = reading.channels.map(\.peakPower).max() ?? LevelMeterState.silence
        let elapsed = Double(max(0, reading.endFrame - start)) / Double(recorder.format.sampleRate)
        let line = String(format: "%6.2f s  %7.2f dBFS  ", elapsed, average) + gauge(average)
            + "  " + Zone(average: average, peak: peak).rawValue
        if terminal {
            print("\r" + line + "\u{1B}[K", terminator: "")
        } else {
            print(line)
        }
        fflush(nil)  // every stream: the lines reach a pipe as they are drawn
        if reading.endFrame - start >= frames { break }
    }
    if terminal { print() }
} catch {
    FileHandle.standardError.write(Data("gauge: \(error)\n".utf8))
    exit(1)
}
