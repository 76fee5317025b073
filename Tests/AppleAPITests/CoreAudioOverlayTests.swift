// Core Audio's overlay without a server: buffer lists (allocated, indexed, seen through typed and raw
// pointers), AVAudioPCMBuffer's buffer list over its own memory, the byte-order helpers, the run loop's
// run and stop, and the session's data sources and orientations.
import Foundation
import OpenAVFAudio
import Testing
import TestSupport

struct CoreAudioOverlayTests {
    /// The C layout: a 4-byte count padded to 8, then 16-byte buffers (two UInt32 and a pointer).
    @Test func bufferListsAreSizedAsTheCStruct() {
        for count in [1, 2, 8, 64] {
            #expect(AudioBufferList.sizeInBytes(maximumBuffers: count) == 8 + 16 * count, "\(count)")
        }
        for hostile in [0, -1, Int.min] {
            #expect(AudioBufferList.sizeInBytes(maximumBuffers: hostile) == 24, "\(hostile)")
        }
        #expect(AudioBufferList.sizeInBytes(maximumBuffers: .max) <= Int.max)
    }

    /// A list for three buffers: each reachable by index, written where the C struct puts it, zeroed when
    /// made; an index outside reads an empty buffer and a write there changes nothing.
    @Test func allocatedListsHoldTheirBuffers() {
        let list = AudioBufferList.allocate(maximumBuffers: 3)
        defer { free(list.unsafeMutablePointer) }
        #expect(list.count == 3 && list.unsafePointer.pointee.mNumberBuffers == 3)
        #expect(list.allSatisfy { $0.mData == nil && $0.mDataByteSize == 0 && $0.mNumberChannels == 0 })
        let samples = UnsafeMutableBufferPointer<Float>.allocate(capacity: 12)
        defer { samples.deallocate() }
        _ = samples.initialize(from: (0..<12).map(Float.init))
        list[2] = AudioBuffer(UnsafeMutableBufferPointer(rebasing: samples[4..<12]), numberOfChannels: 2)
        let raw = UnsafeRawPointer(list.unsafePointer)
        #expect(raw.load(fromByteOffset: 8 + 2 * 16, as: UInt32.self) == 2, "mNumberChannels of buffer 2")
        #expect(raw.load(fromByteOffset: 8 + 2 * 16 + 4, as: UInt32.self) == 32, "mDataByteSize of buffer 2")
        #expect(Array(UnsafeMutableBufferPointer<Float>(list[2])) == [4, 5, 6, 7, 8, 9, 10, 11])
        #expect(UnsafeRawBufferPointer(list[2]).count == 32 && UnsafeMutableRawBufferPointer(list[2]).count == 32)
        #expect(UnsafeBufferPointer<Int16>(list[2]).count == 16)
        #expect(UnsafeBufferPointer<Float>(list[0]).isEmpty, "no data: no elements")

        for index in [-1, 3, Int.max, Int.min] {
            #expect(list[index].mData == nil && list[index].mDataByteSize == 0, "\(index)")
            list[index] = list[2]
        }
        #expect(list[0].mData == nil && list[1].mData == nil && list[2].mDataByteSize == 32, "only buffer 2 was written")
        #expect(Array(list.indices) == [0, 1, 2])
    }

    /// Counts no machine has room for return an empty list, never a trap.
    @Test func hugeListsAreRefusedWithoutATrap() {
        for count in [Int.max, Int(UInt32.max)] {
            let list = AudioBufferList.allocate(maximumBuffers: count)
            #expect(list.count == 0 || list.count == Int(UInt32.max), "\(count): \(list.count)")
            free(list.unsafeMutablePointer)
        }
        #expect(UnsafeMutableAudioBufferListPointer(nil) == nil)
    }

    /// A deinterleaved float buffer lists one buffer per channel over its channel data; an interleaved int16
    /// one lists one buffer of both channels. `audioBufferList` sizes them by frameLength,
    /// `mutableAudioBufferList` by frameCapacity, and a list a caller changed is restored.
    @Test func pcmBuffersListTheirOwnMemory() throws {
        let threeChannels = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 3))
        let float = try #require(AVAudioPCMBuffer(pcmFormat: threeChannels, frameCapacity: 100))
        float.frameLength = 40
        let floats = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: float.audioBufferList))
        #expect(floats.count == 3)
        for channel in 0..<3 {
            #expect(floats[channel].mData == UnsafeMutableRawPointer(float.floatChannelData![channel]))
            #expect(floats[channel].mNumberChannels == 1 && floats[channel].mDataByteSize == 160)
        }
        let mutable = UnsafeMutableAudioBufferListPointer(float.mutableAudioBufferList)
        #expect(mutable.map(\.mDataByteSize) == [400, 400, 400])
        UnsafeMutableBufferPointer<Float>(mutable[1])[99] = 0.25
        #expect(float.floatChannelData![1][99] == 0.25)
        mutable.count = 1
        mutable[0].mData = nil
        #expect(UnsafeMutableAudioBufferListPointer(float.mutableAudioBufferList).count == 3)
        #expect(float.audioBufferList.pointee.mBuffers.mData == UnsafeMutableRawPointer(float.floatChannelData![0]))

        let interleavedFormat = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true))
        let int16 = try #require(AVAudioPCMBuffer(pcmFormat: interleavedFormat, frameCapacity: 10))
        int16.frameLength = 7
        let interleaved = int16.audioBufferList.pointee
        #expect(interleaved.mNumberBuffers == 1 && interleaved.mBuffers.mNumberChannels == 2)
        #expect(interleaved.mBuffers.mDataByteSize == 7 * 2 * 2 && interleaved.mBuffers.mData == UnsafeMutableRawPointer(int16.int16ChannelData![0]))
        #expect(int16.mutableAudioBufferList.pointee.mBuffers.mDataByteSize == 10 * 2 * 2)
    }

    @Test func byteOrderHelpersSwapAsCoreFoundation() {
        let bytes: [UInt8] = [0x6C, 0x70, 0x63, 0x6D, 0x01, 0x02, 0x03, 0x04]
        let stored32 = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        let stored64 = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        let stored16 = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt16.self) }
        #expect(CFSwapInt32BigToHost(stored32) == 0x6C70_636D && CFSwapInt32BigToHost(stored32) == kAudioFormatLinearPCM)
        #expect(CFSwapInt32LittleToHost(stored32) == 0x6D63_706C)
        #expect(CFSwapInt16BigToHost(stored16) == 0x6C70 && CFSwapInt16LittleToHost(stored16) == 0x706C)
        #expect(CFSwapInt64BigToHost(stored64) == 0x6C70_636D_0102_0304)
        #expect(CFSwapInt64LittleToHost(stored64) == 0x0403_0201_6D63_706C)
        #expect(withUnsafeBytes(of: CFSwapInt32HostToBig(kAudioFormatLinearPCM), Array.init) == Array(bytes[0..<4]))
        #expect(withUnsafeBytes(of: CFSwapInt32HostToLittle(0x0403_0201), Array.init) == [1, 2, 3, 4])
        #expect(withUnsafeBytes(of: CFSwapInt16HostToBig(0x0102), Array.init) == [1, 2])
        #expect(withUnsafeBytes(of: CFSwapInt64HostToBig(0x0102_0304_0506_0708), Array.init) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(CFSwapInt16(0x0102) == 0x0201 && CFSwapInt32(0x0102_0304) == 0x0403_0201)
        #expect(CFSwapInt64(0x0102_0304_0506_0708) == 0x0807_0605_0403_0201)
        #expect(CFSwapInt16HostToLittle(0x0102) == 0x0102 && CFSwapInt64HostToLittle(7) == 7)
        let code: OSType = 0x6175_6F75
        let fourCC: FourCharCode = kAudioUnitType_Output
        #expect(code == fourCC)
    }

    /// A stop asked for before the loop runs makes its next run return at once; one asked for from another
    /// thread ends CFRunLoopRun on the loop's thread. (The ceilings are for a hang, not a timing.)
    @Test func runLoopsStopWhenTold() async throws {
        let early = try await onOwnThread {
            CFRunLoopStop(CFRunLoopGetCurrent())
            return CFRunLoopRunInMode(.defaultMode, 30, false)
        }
        #expect(early == .stopped)

        let finished = try await onOwnThread {
            let loop = CFRunLoopGetCurrent()!
            let keepAlive = Timer(fire: .distantFuture, interval: 0, repeats: false) { _ in }
            RunLoop.current.add(keepAlive, forMode: .default)
            let stopper = Thread { CFRunLoopStop(loop) }
            stopper.start()
            CFRunLoopRun()
            keepAlive.invalidate()
            return true
        }
        #expect(finished)
        #expect(try await onOwnThread { CFRunLoopRunInMode(.defaultMode, 0.01, false) } == .finished,
                "a loop with nothing to wait on")
    }

    @Test func sessionDataSourcesAndOrientationsAreRefusedWithALine() throws {
        let session = AVAudioSession.sharedInstance()
        #expect(session.inputDataSources == nil && session.outputDataSources == nil && session.preferredInput == nil)
        try session.setInputDataSource(nil)
        try session.setOutputDataSource(nil)
        try session.setPreferredInputOrientation(.none)
        #expect(session.inputOrientation == .none && session.preferredInputOrientation == .none)
        for orientation in [AVAudioSession.StereoOrientation.portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight] {
            let error = #expect(throws: NSError.self) { try session.setPreferredInputOrientation(orientation) }
            #expect(error?.localizedDescription.contains("module-remap-source") == true)
            #expect(error?.localizedDescription.contains("\n") == false)
        }
        #expect(AVAudioSessionInterruptionTypeKey == "AVAudioSessionInterruptionTypeKey")
        #expect(AVAudioSession.InterruptionType(rawValue: 1) == .began && AVAudioSession.RouteChangeReason(rawValue: 8) == .routeConfigurationChange)
    }

    /// The Audio File properties real code reads of a 16-bit stereo WAV at 44.1 kHz: its bit rate
    /// (1 411 200), source bit depth, average packet size and channel layout; no magic cookie.
    @Test func audioFilePropertiesRealCodeReads() throws {
        let path = try temporaryDirectory() + "/stereo.wav"
        try writeWAV(path, samples: [Int16](repeating: 0, count: 200), channels: 2)
        var made: AudioFileID?
        #expect(AudioFileOpenURL(URL(fileURLWithPath: path) as CFURL, .readPermission, 0, &made) == noErr)
        let file = try #require(made)
        defer { AudioFileClose(file) }
        var rate: UInt32 = 0, depth: Int32 = 0, average = 0.0
        var size: UInt32 = 4
        #expect(AudioFileGetProperty(file, kAudioFilePropertyBitRate, &size, &rate) == noErr && rate == 44_100 * 2 * 16)
        size = 4
        #expect(AudioFileGetProperty(file, kAudioFilePropertySourceBitDepth, &size, &depth) == noErr && depth == 16)
        size = 8
        #expect(AudioFileGetProperty(file, kAudioFilePropertyAverageBytesPerPacket, &size, &average) == noErr && average == 4)
        var layout = AudioChannelLayout()
        size = UInt32(MemoryLayout<AudioChannelLayout>.size)
        #expect(AudioFileGetProperty(file, kAudioFilePropertyChannelLayout, &size, &layout) == noErr)
        #expect(layout.mChannelLayoutTag == kAudioChannelLayoutTag_Stereo)
        var cookieSize: UInt32 = 0
        #expect(AudioFileGetPropertyInfo(file, kAudioFilePropertyMagicCookieData, &cookieSize, nil) == kAudioFileUnsupportedPropertyError)
    }
}

/// Runs `body` on a thread of its own (its own run loop) and returns what it returned.
private func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.start()
    }
}
