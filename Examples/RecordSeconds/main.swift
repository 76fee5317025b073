// Embedding RecorderKit as the AudioQueue "AudioRecorder" seed did: record N seconds while printing levels.
//
//     swift run record-seconds take.aiff 3
import Foundation
import RecorderKit

let arguments = CommandLine.arguments
let path = arguments.count > 1 ? arguments[1] : "take.aiff"
let seconds = arguments.count > 2 ? Double(arguments[2]) ?? 3 : 3

func decibels(_ value: Float) -> String { String(format: "%6.2f", value) }

func bar(_ average: Float, width: Int = 40) -> String {
    let filled = max(0, min(width, Int(((average + 60) / 60 * Float(width)).rounded())))
    return "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "]"
}

do {
    let recorder = try Recorder()
    let readings = recorder.levelReadings()
    try recorder.record(to: path, duration: seconds)
    print("recording \(seconds) s from \(recorder.sourceName) into \(path)")
    let start = recorder.capturedFrames
    for await reading in readings {
        let elapsed = Double(max(0, reading.endFrame - start)) / Double(recorder.format.sampleRate)
        print("t=\(String(format: "%5.2f", elapsed)) s  peak \(decibels(recorder.getPeakPower())) dBFS"
              + "  average \(decibels(recorder.getAveragePower())) dBFS  \(bar(recorder.getAveragePower()))")
        if !recorder.isRecording { break }
    }
    let summary = try recorder.waitForRecording() ?? recorder.lastRecording
    if let summary {
        print("wrote \(summary.frameCount) frames to \(summary.path), \(summary.droppedFrames) dropped")
    }
    recorder.stop()
} catch {
    print("record-seconds: \(error)")
    exit(1)
}
