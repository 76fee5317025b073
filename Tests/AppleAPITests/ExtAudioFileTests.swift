// Extended Audio File Services without a server: files read in a client format (exactly, from WAV and from
// FLAC decoded; resampled, with the length the rates give), seeking and telling, files written from a
// client format (read back sample for sample; resampled, the tail written at dispose), wrapping an Audio
// File Services file, the converter property, and what is refused with Apple's codes.
import Foundation
import OpenAudioToolbox
import Testing
import TestSupport

private func floatFormat(_ rate: Double, channels: UInt32) -> AudioStreamBasicDescription {
    AudioStreamBasicDescription(mSampleRate: rate, mFormatID: kAudioFormatLinearPCM,
                                mFormatFlags: kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved,
                                mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: channels,
                                mBitsPerChannel: 32, mReserved: 0)
}

/// Reads the whole file in `chunk`-frame reads into per-channel float arrays.
private func readAll(_ file: ExtAudioFileRef, channels: Int, chunk: Int = 1_000) -> [[Float]] {
    var result = [[Float]](repeating: [], count: channels)
    let list = AudioBufferList.allocate(maximumBuffers: channels)
    defer { free(list.unsafeMutablePointer) }
    let memory = UnsafeMutableBufferPointer<Float>.allocate(capacity: channels * chunk)
    defer { memory.deallocate() }
    while true {
        for channel in 0..<channels {
            list[channel] = AudioBuffer(UnsafeMutableBufferPointer(rebasing: memory[(channel * chunk)..<((channel + 1) * chunk)]), numberOfChannels: 1)
        }
        var frames = UInt32(chunk)
        #expect(ExtAudioFileRead(file, &frames, list.unsafeMutablePointer) == noErr)
        if frames == 0 { return result }
        for channel in 0..<channels { result[channel] += memory[(channel * chunk)..<(channel * chunk + Int(frames))] }
    }
}

private func open(_ path: String) throws -> ExtAudioFileRef {
    var file: ExtAudioFileRef?
    #expect(ExtAudioFileOpenURL(URL(fileURLWithPath: path) as CFURL, &file) == noErr)
    return try #require(file)
}

struct ExtAudioFileTests {
    /// A 16-bit stereo WAV, and the same samples as FLAC, read as deinterleaved floats: n / 32 768 exactly,
    /// every frame; seeking to frame 1 000 reads from there, and Tell follows.
    @Test(arguments: ["wav", "flac"])
    func filesReadExactlyInTheClientFormat(_ kind: String) throws {
        let directory = try temporaryDirectory()
        let noise = noiseSamples(count: 2 * 10_000, seed: 31)
        try writeWAV(directory + "/noise.wav", samples: noise, channels: 2)
        var path = directory + "/noise.wav"
        if kind == "flac" {
            path = directory + "/noise.flac"
            #expect(try runProcess("/usr/bin/sox", [directory + "/noise.wav", path]).status == 0)
        }
        let file = try open(path)
        defer { ExtAudioFileDispose(file) }
        var fileFormat = AudioStreamBasicDescription()
        var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        #expect(ExtAudioFileGetProperty(file, kExtAudioFileProperty_FileDataFormat, &size, &fileFormat) == noErr)
        #expect(fileFormat.mFormatID == (kind == "flac" ? kAudioFormatFLAC : kAudioFormatLinearPCM) && fileFormat.mChannelsPerFrame == 2)
        if kind == "flac" {
            var frames: UInt32 = 10
            var list = AudioBufferList()
            #expect(ExtAudioFileRead(file, &frames, &list) == kExtAudioFileError_NonPCMClientFormat && frames == 0)
        }
        var client = floatFormat(44_100, channels: 2)
        #expect(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, size, &client) == noErr)
        var length: Int64 = 0
        size = 8
        #expect(ExtAudioFileGetProperty(file, kExtAudioFileProperty_FileLengthFrames, &size, &length) == noErr && length == 10_000)
        let read = readAll(file, channels: 2, chunk: 999)
        #expect(read[0] == stride(from: 0, to: noise.count, by: 2).map { Float(noise[$0]) / 32_768 })
        #expect(read[1] == stride(from: 1, to: noise.count, by: 2).map { Float(noise[$0]) / 32_768 })
        var position: Int64 = 0
        #expect(ExtAudioFileTell(file, &position) == noErr && position == 10_000)
        #expect(ExtAudioFileSeek(file, 1_000) == noErr)
        let after = readAll(file, channels: 2)
        #expect(after[0] == Array(read[0][1_000...]))
        #expect(ExtAudioFileSeek(file, -1) == kExtAudioFileError_InvalidSeek && ExtAudioFileSeek(file, 10_001) == kExtAudioFileError_InvalidSeek)
    }

    /// A second of a 1 kHz sine at 44.1 kHz read at 48 kHz: 48 000 frames, 1 kHz; the converter's handle
    /// takes Audio Converter Services' quality property.
    @Test func readingResamplesToTheClientRate() throws {
        let directory = try temporaryDirectory()
        try writeWAV(directory + "/sine.wav", samples: sineSamples(frames: 44_100, frequency: 1_000, amplitudes: [0.5]), channels: 1)
        let file = try open(directory + "/sine.wav")
        defer { ExtAudioFileDispose(file) }
        var client = floatFormat(48_000, channels: 1)
        #expect(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, UInt32(MemoryLayout<AudioStreamBasicDescription>.size), &client) == noErr)
        var converter: AudioConverterRef?
        var size = UInt32(MemoryLayout<AudioConverterRef>.size)
        #expect(ExtAudioFileGetProperty(file, kExtAudioFileProperty_AudioConverter, &size, &converter) == noErr)
        var quality = UInt32(kAudioConverterQuality_Max)
        #expect(AudioConverterSetProperty(try #require(converter), kAudioConverterSampleRateConverterQuality, 4, &quality) == noErr)
        let samples = readAll(file, channels: 1, chunk: 4_800)[0]
        #expect(samples.count == 48_000)
        var crossings: [Double] = []
        for n in 4_800..<43_200 where samples[n - 1] < 0 && samples[n] >= 0 {
            crossings.append(Double(n - 1) + Double(-samples[n - 1] / (samples[n] - samples[n - 1])))
        }
        let hz = Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / 48_000)
        #expect(abs(hz - 1_000) < 0.1, "\(hz) Hz")
    }

    /// A 16-bit WAV written from deinterleaved floats holds them sample for sample; one written at 48 kHz
    /// from a 44.1 kHz client holds 48 000 frames per 44 100 given, the tail written when disposed.
    @Test func filesWrittenFromTheClientFormatReadBack() throws {
        let directory = try temporaryDirectory()
        let noise = noiseSamples(count: 2 * 5_000, seed: 41)
        var fileFormat = AudioStreamBasicDescription(mSampleRate: 44_100, mFormatID: kAudioFormatLinearPCM,
                                                     mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                                     mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 2,
                                                     mBitsPerChannel: 16, mReserved: 0)
        var made: ExtAudioFileRef?
        let url = URL(fileURLWithPath: directory + "/written.wav") as CFURL
        #expect(ExtAudioFileCreateWithURL(url, kAudioFileWAVEType, &fileFormat, nil, AudioFileFlags.eraseFile.rawValue, &made) == noErr)
        let file = try #require(made)
        var client = floatFormat(44_100, channels: 2)
        #expect(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, UInt32(MemoryLayout<AudioStreamBasicDescription>.size), &client) == noErr)
        var left = stride(from: 0, to: noise.count, by: 2).map { Float(noise[$0]) / 32_768 }
        var right = stride(from: 1, to: noise.count, by: 2).map { Float(noise[$0]) / 32_768 }
        let list = AudioBufferList.allocate(maximumBuffers: 2)
        defer { free(list.unsafeMutablePointer) }
        left.withUnsafeMutableBufferPointer { l in
            right.withUnsafeMutableBufferPointer { r in
                list[0] = AudioBuffer(l, numberOfChannels: 1)
                list[1] = AudioBuffer(r, numberOfChannels: 1)
                #expect(ExtAudioFileWrite(file, 5_000, list.unsafePointer) == noErr)
            }
        }
        var frames: UInt32 = 1
        #expect(ExtAudioFileRead(file, &frames, list.unsafeMutablePointer) == kExtAudioFileError_InvalidOperationOrder)
        #expect(ExtAudioFileDispose(file) == noErr)
        #expect(ExtAudioFileDispose(file) == kAudio_ParamError)
        let back = try readSoundFile(directory + "/written.wav")
        #expect(back.frames == 5_000 && back.samples == noise)

        var mono = AudioStreamBasicDescription(mSampleRate: 48_000, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                               mBytesPerPacket: 2, mFramesPerPacket: 1, mBytesPerFrame: 2, mChannelsPerFrame: 1,
                                               mBitsPerChannel: 16, mReserved: 0)
        let resampledURL = URL(fileURLWithPath: directory + "/resampled.wav") as CFURL
        #expect(ExtAudioFileCreateWithURL(resampledURL, kAudioFileWAVEType, &mono, nil, AudioFileFlags.eraseFile.rawValue, &made) == noErr)
        let resampled = try #require(made)
        var slow = floatFormat(44_100, channels: 1)
        #expect(ExtAudioFileSetProperty(resampled, kExtAudioFileProperty_ClientDataFormat, UInt32(MemoryLayout<AudioStreamBasicDescription>.size), &slow) == noErr)
        var sine = sineSamples(frames: 44_100, frequency: 440, amplitudes: [0.25]).map { Float($0) / 32_768 }
        sine.withUnsafeMutableBufferPointer { samples in
            for start in stride(from: 0, to: 44_100, by: 4_410) {
                var one = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(UnsafeMutableBufferPointer(rebasing: samples[start..<(start + 4_410)]),
                                                                                   numberOfChannels: 1))
                #expect(ExtAudioFileWrite(resampled, 4_410, &one) == noErr)
            }
        }
        #expect(ExtAudioFileDispose(resampled) == noErr)
        #expect(try readSoundFile(directory + "/resampled.wav").frames == 48_000)
    }

    /// A wrapped Audio File Services file: read through the wrapper, still open after it is disposed.
    @Test func wrappedFilesStayOpen() throws {
        let directory = try temporaryDirectory()
        try writeWAV(directory + "/tone.wav", samples: sineSamples(frames: 1_000, frequency: 440, amplitudes: [0.5]), channels: 1)
        var fileID: AudioFileID?
        #expect(AudioFileOpenURL(URL(fileURLWithPath: directory + "/tone.wav") as CFURL, .readPermission, 0, &fileID) == noErr)
        let audioFile = try #require(fileID)
        var wrapped: ExtAudioFileRef?
        #expect(ExtAudioFileWrapAudioFileID(audioFile, true, &wrapped) == kAudioFilePermissionsError)
        #expect(ExtAudioFileWrapAudioFileID(audioFile, false, &wrapped) == noErr)
        let file = try #require(wrapped)
        var client = floatFormat(44_100, channels: 1)
        #expect(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, UInt32(MemoryLayout<AudioStreamBasicDescription>.size), &client) == noErr)
        #expect(readAll(file, channels: 1)[0].count == 1_000)
        var inner: AudioFileID?
        var size = UInt32(MemoryLayout<AudioFileID>.size)
        #expect(ExtAudioFileGetProperty(file, kExtAudioFileProperty_AudioFile, &size, &inner) == noErr && inner == audioFile)
        #expect(ExtAudioFileDispose(file) == noErr)
        var packets: UInt64 = 0
        size = 8
        #expect(AudioFileGetProperty(audioFile, kAudioFilePropertyAudioDataPacketCount, &size, &packets) == noErr && packets == 1_000)
        #expect(AudioFileClose(audioFile) == noErr)
    }

    @Test func whatIsRefusedCarriesApplesCodes() throws {
        let directory = try temporaryDirectory()
        try writeWAV(directory + "/short.wav", samples: [1, 2, 3], channels: 1)
        let file = try open(directory + "/short.wav")
        defer { ExtAudioFileDispose(file) }
        var twenty = floatFormat(44_100, channels: 1)
        twenty.mBitsPerChannel = 20
        twenty.mFormatFlags = kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked
        let size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        #expect(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, size, &twenty) == kExtAudioFileError_InvalidDataFormat)
        var aac = floatFormat(44_100, channels: 1)
        aac.mFormatID = kAudioFormatMPEG4AAC
        #expect(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, size, &aac) == kExtAudioFileError_NonPCMClientFormat)
        var client = floatFormat(44_100, channels: 1)
        #expect(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, 8, &client) == kExtAudioFileError_InvalidPropertySize)
        #expect(ExtAudioFileSetProperty(file, kExtAudioFileProperty_FileDataFormat, size, &client) == kExtAudioFileError_InvalidProperty)
        var small: UInt32 = 4
        var format = AudioStreamBasicDescription()
        #expect(ExtAudioFileGetProperty(file, kExtAudioFileProperty_FileDataFormat, &small, &format) == kExtAudioFileError_InvalidPropertySize)
        var missing: ExtAudioFileRef?
        #expect(ExtAudioFileOpenURL(URL(fileURLWithPath: directory + "/none.wav") as CFURL, &missing) == kAudioFileFileNotFoundError && missing == nil)
    }
}
