// A sound-effect player's shape, with only the import changed: a system sound made from a file, played
// with a completion block, a completion routine on the main run loop, its flag set and read back, then
// disposed; and the statuses of a file too long and of one that is not there. Compiled in Swift 5 and
// Swift 6 language modes; the tests run both against a private server and hear the sound on its monitor.
//
//   system-sounds SOUND LONG MISSING
import Foundation
import OpenAudioToolbox

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write("usage: system-sounds SOUND LONG MISSING\n".data(using: .utf8)!)
    exit(64)
}

final class SoundEffect {
    private var soundID: SystemSoundID = 0
    private var created = false

    init?(url: URL) {
        let status = AudioServicesCreateSystemSoundID(url as CFURL, &soundID)
        guard status == kAudioServicesNoError else {
            print("create \(url.lastPathComponent): \(status)")
            return nil
        }
        created = true
    }

    var id: SystemSoundID { soundID }

    func play(completion: @escaping @Sendable () -> Void) {
        AudioServicesPlaySystemSoundWithCompletion(soundID) {
            completion()
        }
    }

    deinit {
        if created { print("disposed: \(AudioServicesDisposeSystemSoundID(soundID))") }
    }
}

_ = SoundEffect(url: URL(fileURLWithPath: arguments[2]))
_ = SoundEffect(url: URL(fileURLWithPath: arguments[3]))

var effect: SoundEffect? = SoundEffect(url: URL(fileURLWithPath: arguments[1]))
guard let id = effect?.id else { exit(1) }
print("created")

var flag: UInt32 = 0
var specifier = id
AudioServicesSetProperty(kAudioServicesPropertyIsUISound, 4, &specifier, 4, &flag)
var read: UInt32 = 9
var size = UInt32(MemoryLayout<UInt32>.size)
let got = AudioServicesGetProperty(kAudioServicesPropertyIsUISound, 4, &specifier, &size, &read)
print("is UI sound: \(got) \(read)")

let routineCalled = AudioServicesAddSystemSoundCompletion(id, nil, nil, { soundID, _ in
    print("routine called on the main thread: \(Thread.isMainThread)")
    CFRunLoopStop(CFRunLoopGetMain())
}, nil)
print("routine added: \(routineCalled)")

let blockCalled = DispatchSemaphore(value: 0)
effect?.play {
    print("block called")
    blockCalled.signal()
}
// The routine runs on the main run loop: run it until the routine stops it (a minute at most).
_ = CFRunLoopRunInMode(.defaultMode, 60, false)
blockCalled.wait()
AudioServicesRemoveSystemSoundCompletion(id)
effect = nil
AudioServicesPlaySystemSound(kSystemSoundID_Vibrate)
AudioServicesPlaySystemSoundWithCompletion(1104) { print("no such sound: completed at once") ; blockCalled.signal() }
blockCalled.wait()
