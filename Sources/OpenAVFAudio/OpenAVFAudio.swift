// The module's face: AVFAudio's players, recorder, formats, buffers, files, times and session with Apple's
// signatures over RecorderKit, and AudioToolbox's C types and functions re-exported, as AVFoundation does.
@_exported import OpenAudioToolbox
import Foundation

public typealias AVAudioFramePosition = Int64
public typealias AVAudioFrameCount = UInt32
public typealias AVAudioPacketCount = UInt32
public typealias AVAudioChannelCount = UInt32
public typealias AVAudioNodeBus = Int

/// An error as AVFAudio throws one: `NSOSStatusErrorDomain`, the status as its code, and the one-line
/// message (what failed, the file or device, what to do) as its localized description.
func statusError(_ status: OSStatus, _ message: String) -> NSError {
    NSError(domain: NSOSStatusErrorDomain, code: Int(status), userInfo: [NSLocalizedDescriptionKey: message])
}
