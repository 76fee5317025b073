// A music app's MIDI playback as Apple code writes it (import AVFoundation changed): a MIDI file through a
// SoundFont with AVMIDIPlayer, played to its end, the completion handler waited for.
//
//   midi-playback SONG.mid BANK.sf2
import Foundation
import OpenAVFAudio

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write("usage: midi-playback SONG.mid BANK.sf2\n".data(using: .utf8)!)
    exit(2)
}
let player: AVMIDIPlayer
do {
    player = try AVMIDIPlayer(contentsOf: URL(fileURLWithPath: arguments[1]), soundBankURL: URL(fileURLWithPath: arguments[2]))
} catch {
    print("cannot play: \(error.localizedDescription)")
    exit(1)
}
print(String(format: "duration: %.3f s", player.duration))
player.prepareToPlay()
let finished = DispatchSemaphore(value: 0)
player.play {
    print("completed")
    finished.signal()
}
print("playing: \(player.isPlaying)")
if finished.wait(timeout: .now() + 30) == .timedOut { print("no completion") }
print("playing after completion: \(player.isPlaying)")
print(String(format: "position at the end: %.3f s", player.currentPosition))
player.currentPosition = 0.5
print(String(format: "moved to: %.3f s", player.currentPosition))
