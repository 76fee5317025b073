// Seed 003 ("Recording Audio", 2009): the Objective-C AudioQueue AudioRecorder class in Swift, compiled
// against OpenAudioToolbox. It differs from the Swift that builds against Apple's AudioToolbox only in its
// import line: a test runs it against a private server and checks the AIFF it writes.
//
// The class as the document has it: 44.1 kHz mono signed 16-bit big-endian packed PCM, three 8 820-byte
// (0.1 s) buffers enqueued before AudioQueueStart, level metering on, a C input callback that writes each
// buffer with AudioFileWritePackets while recording and enqueues it again, AudioFileCreateWithURL with
// kAudioFileAIFFType and .eraseFile. Where Swift differs from the Objective-C: super.init() comes first;
// the packet count falls back to mAudioDataByteSize / mBytesPerPacket when the queue passes 0 (Apple's
// Audio Queue Services Programming Guide); the writes come before the enqueue.
//
// Run: seed-audioqueue-recorder [path] (default $TMPDIR/seed003.aif): records 2 s, printing the levels.

import Foundation
import OpenAudioToolbox  // on Apple's systems: import AudioToolbox
#if os(iOS)
import AVFoundation
#endif

// MARK: - C-convention input callback

/// void AudioInputCallback(void* inUserData, AudioQueueRef inAQ,
///     AudioQueueBufferRef inBuffer, const AudioTimeStamp *inStartTime,
///     UInt32 inNumberPacketDescriptions, const AudioStreamPacketDescription *inPacketDescs)
func AudioInputCallback(_ inUserData: UnsafeMutableRawPointer?,
                        _ inAQ: AudioQueueRef,
                        _ inBuffer: AudioQueueBufferRef,
                        _ inStartTime: UnsafePointer<AudioTimeStamp>,
                        _ inNumberPacketDescriptions: UInt32,
                        _ inPacketDescs: UnsafePointer<AudioStreamPacketDescription>?) {
    guard let inUserData else { return }
    let recorder = Unmanaged<AudioRecorder>.fromOpaque(inUserData).takeUnretainedValue()

    if recorder.fileRecording, let audioFile = recorder.audioFile {
        var numPackets = inNumberPacketDescriptions
        // DEVIATION (Apple AQ guide): CBR input reports 0 packet descriptions.
        if numPackets == 0 && recorder.dataFormat.mBytesPerPacket != 0 {
            numPackets = inBuffer.pointee.mAudioDataByteSize / recorder.dataFormat.mBytesPerPacket
        }
        AudioFileWritePackets(audioFile,
                              false,
                              inBuffer.pointee.mAudioDataByteSize,
                              inPacketDescs,
                              recorder.currentPacket,
                              &numPackets,
                              inBuffer.pointee.mAudioData)
        recorder.currentPacket += Int64(numPackets)
    }

    if let queue = recorder.queue {
        AudioQueueEnqueueBuffer(queue, inBuffer, 0, nil)
    }
}

// MARK: - AudioRecorder

final class AudioRecorder: NSObject {
    private(set) var dataFormat = AudioStreamBasicDescription()
    var queue: AudioQueueRef?
    private var buffers: [AudioQueueBufferRef?] = [nil, nil, nil]

    var audioFile: AudioFileID?
    var fileRecording = false
    var currentPacket: Int64 = 0            // SInt64
    private(set) var recordFile: String?

    override init() {
        super.init()                          // DEVIATION: ObjC init skipped [super init]

        dataFormat.mSampleRate = 44100.0
        dataFormat.mFormatID = kAudioFormatLinearPCM
        dataFormat.mFramesPerPacket = 1
        dataFormat.mChannelsPerFrame = 1
        dataFormat.mBytesPerFrame = 2
        dataFormat.mBytesPerPacket = 2
        dataFormat.mBitsPerChannel = 16
        dataFormat.mReserved = 0
        dataFormat.mFormatFlags = kLinearPCMFormatFlagIsBigEndian
            | kLinearPCMFormatFlagIsSignedInteger
            | kLinearPCMFormatFlagIsPacked

        let userData = Unmanaged.passUnretained(self).toOpaque()
        if AudioQueueNewInput(&dataFormat,
                              AudioInputCallback,
                              userData,
                              CFRunLoopGetCurrent(),
                              CFRunLoopMode.commonModes.rawValue,
                              0,
                              &queue) == noErr, let queue {
            let bufferByteSize = UInt32(dataFormat.mSampleRate / 10.0) * dataFormat.mBytesPerFrame
            for i in 0..<3 {
                AudioQueueAllocateBuffer(queue, bufferByteSize, &buffers[i])
                if let buffer = buffers[i] {
                    AudioQueueEnqueueBuffer(queue, buffer, 0, nil)
                }
            }
            AudioQueueStart(queue, nil)
        }

        // At the end of init
        var enabledLevelMeter: UInt32 = 1     // true
        if let queue {
            AudioQueueSetProperty(queue,
                                  kAudioQueueProperty_EnableLevelMetering,
                                  &enabledLevelMeter,
                                  UInt32(MemoryLayout<UInt32>.size))
        }
    }

    func getPeakPower() -> Float {
        var levelMeter = AudioQueueLevelMeterState()
        var levelMeterSize = UInt32(MemoryLayout<AudioQueueLevelMeterState>.size)
        if let queue {
            AudioQueueGetProperty(queue, kAudioQueueProperty_CurrentLevelMeterDB, &levelMeter, &levelMeterSize)
        }
        return levelMeter.mPeakPower
    }

    func getAveragePower() -> Float {
        var levelMeter = AudioQueueLevelMeterState()
        var levelMeterSize = UInt32(MemoryLayout<AudioQueueLevelMeterState>.size)
        if let queue {
            AudioQueueGetProperty(queue, kAudioQueueProperty_CurrentLevelMeterDB, &levelMeter, &levelMeterSize)
        }
        return levelMeter.mAveragePower
    }

    func isRecording() -> Bool {
        return fileRecording
    }

    func record(_ file: String) -> Bool {
        let fileURL: CFURL? = file.withCString { cfile in
            let length = strlen(cfile)
            return cfile.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                CFURLCreateFromFileSystemRepresentation(nil, bytes, length, false)
            }
        }
        guard let fileURL else {
            fileRecording = false
            return fileRecording
        }
        let result = AudioFileCreateWithURL(fileURL, kAudioFileAIFFType, &dataFormat, .eraseFile, &audioFile)
        if result != noErr {
            fileRecording = false
        } else {
            fileRecording = true
        }
        if fileRecording {
            recordFile = file
        }
        return fileRecording
    }

    func stopRecording() {
        fileRecording = false
        if let audioFile {
            AudioFileClose(audioFile)
        }
    }
}

// MARK: - Demo entry point

@main
struct AudioRecorderMain {
    @MainActor
    static func main() {
        #if os(iOS)
        do {   // not in the document (see header)
            try AVAudioSession.sharedInstance().setCategory(.record, mode: .default, options: [])
            try AVAudioSession.sharedInstance().setActive(true, options: [])
        } catch {
            print("AVAudioSession error: \(error)")
        }
        #endif

        let path = CommandLine.arguments.count > 1
            ? CommandLine.arguments[1]
            : (NSTemporaryDirectory() as NSString).appendingPathComponent("seed003.aif")

        let recorder = AudioRecorder()       // queue created on, and calling back on, the main run loop
        print("record(\(path)) -> \(recorder.record(path))")

        let end = Date(timeIntervalSinceNow: 2.0)
        while Date() < end {
            RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.25))
            let average = recorder.getAveragePower()
            print(String(format: "peak %7.2f dB  avg %7.2f dB  level %.2f  packets %lld",
                         recorder.getPeakPower(), average, average / -80.0, recorder.currentPacket))
        }

        recorder.stopRecording()
        print("isRecording: \(recorder.isRecording())  wrote \(recorder.currentPacket) packets to \(recorder.recordFile ?? "-")")
    }
}
