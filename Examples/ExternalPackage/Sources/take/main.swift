// The seed's AudioRecorder usage, from outside the package: record, read the meters, stopRecording.
import Glibc
import RecorderKit

let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "take.aiff"
do {
    let recorder = try Recorder()
    let readings = recorder.levelReadings()
    try recorder.record(to: path)
    var buffers = 0
    for await _ in readings {
        buffers += 1
        if buffers == 5 { break }
    }
    print("peak \(recorder.getPeakPower()) dBFS, average \(recorder.getAveragePower()) dBFS")
    if let summary = try recorder.stopRecording() {
        print("wrote \(summary.frameCount) frames to \(summary.path)")
    }
} catch {
    print("take: \(error)")
    exit(1)
}
