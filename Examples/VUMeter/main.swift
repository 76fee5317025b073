// The AVMeter example ported: a file plays while two bars per channel, average and peak, follow it,
// written against the AVAudioPlayer-named API (isMeteringEnabled, updateMeters, averagePower(forChannel:),
// peakPower(forChannel:), and the finished event in the delegate's place).
//
//     swift run vu-meter take.aiff [SINK]
//
// In a terminal the bars are redrawn in place 20 times a second; into a pipe, a line per channel is
// printed every 100 ms. The server is libpulse's usual one (PULSE_SERVER is honoured).
import Foundation
import RecorderKit

let arguments = CommandLine.arguments
guard arguments.count >= 2, arguments.count <= 3 else {
    FileHandle.standardError.write(Data("usage: vu-meter FILE [SINK]\n".utf8))
    exit(64)
}

/// A bar from −60 dBFS (empty) to 0 dBFS (full).
func bar(_ decibels: Float, width: Int = 30) -> String {
    let filled = decibels.isFinite ? max(0, min(width, Int(((decibels + 60) / 60 * Float(width)).rounded()))) : 0
    return "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "]"
}

func decibels(_ value: Float) -> String { String(format: "%7.2f", value) }

/// What AVAudioPlayerDelegate's audioPlayerDidFinishPlaying(_:successfully:) would have set.
final class Finish: @unchecked Sendable {
    // @unchecked Sendable: `outcome` is only touched under `lock`.
    private let lock = NSLock()
    private var outcome: Bool?
    var successfully: Bool? { lock.withLock { outcome } }
    func set(_ value: Bool) { lock.withLock { outcome = value } }
}

do {
    let player = try Player(contentsOf: arguments[1], device: arguments.count == 3 ? arguments[2] : nil)
    let finish = Finish()
    let events = player.events()
    let delegate = Task.detached {
        for await event in events {
            switch event {
            case .finishedPlaying(let successfully):
                finish.set(successfully)
                return
            case .decodeError(let error, let frame):
                FileHandle.standardError.write(Data("vu-meter: \(error) (at frame \(frame))\n".utf8))
            case .playbackFailed(let error):
                FileHandle.standardError.write(Data("vu-meter: \(error)\n".utf8))
            case .underrun:
                break
            }
        }
    }
    player.isMeteringEnabled = true
    let terminal = isatty(STDOUT_FILENO) == 1
    print("playing \(arguments[1]) (\(player.numberOfChannels) ch, \(player.format.sampleRate) Hz, "
          + String(format: "%.2f s", player.duration) + ") on \(player.deviceName)")
    try player.play()
    var drawn = false
    while true {
        usleep(terminal ? 50_000 : 100_000)
        if finish.successfully != nil { break }
        // AVMeter's timer: refresh the meters, then read each channel's two values.
        player.updateMeters()
        let time = String(format: "%6.2f s", player.currentTime)
        var lines: [String] = []
        for channel in 0..<player.numberOfChannels {
            let average = player.averagePower(forChannel: channel)
            let peak = player.peakPower(forChannel: channel)
            lines.append(time + "  ch\(channel + 1)  avg \(decibels(average)) \(bar(average))"
                         + "  peak \(decibels(peak)) \(bar(peak))")
        }
        if terminal && drawn { print("\u{1B}[\(lines.count)A", terminator: "") }
        print(lines.joined(separator: "\n"))
        fflush(nil)  // every stream: the lines reach a pipe as they are drawn
        drawn = true
    }
    await delegate.value
    print("finished playing (\(finish.successfully == true ? "successfully" : "unsuccessfully"))")
    player.close()
    exit(finish.successfully == true ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("vu-meter: \(error)\n".utf8))
    exit(1)
}
