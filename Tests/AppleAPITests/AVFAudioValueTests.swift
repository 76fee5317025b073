// OpenAVFAudio's values without a server: formats, PCM buffers (their channel pointers taken once), times,
// files written and read back, the session's shims, and what each refuses.
import CSndFile
import Foundation
import OpenAVFAudio
import Testing
import TestSupport

/// A standard stereo buffer of `frames` frames of 16-bit noise (`seed`): the left channel the noise's
/// first `frames` samples, the right its next.
private func stereoNoise(frames: Int, rate: Double, seed: UInt64) throws -> AVAudioPCMBuffer {
    let format = try #require(AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2))
    let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames)))
    buffer.frameLength = AVAudioFrameCount(frames)
    let noise = noiseSamples(count: 2 * frames, seed: seed)
    for frame in 0..<frames {
        buffer.floatChannelData![0][frame] = Float(noise[frame]) / 32_768
        buffer.floatChannelData![1][frame] = Float(noise[frames + frame]) / 32_768
    }
    return buffer
}

struct AVFAudioValueTests {
    @Test func formatsDescribeTheirStreams() throws {
        let standard = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        #expect(standard.isStandard && !standard.isInterleaved && standard.commonFormat == .pcmFormatFloat32)
        #expect(standard.sampleRate == 48_000 && standard.channelCount == 2)
        let description = standard.streamDescription.pointee
        #expect(description.mFormatID == kAudioFormatLinearPCM && description.mBytesPerFrame == 4 && description.mBitsPerChannel == 32)
        #expect(description.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0)

        let int16 = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true))
        #expect(int16.streamDescription.pointee.mBytesPerFrame == 4 && !int16.isStandard)
        #expect(AVAudioFormat(streamDescription: int16.streamDescription) == int16)
        #expect(AVAudioFormat(streamDescription: int16.streamDescription) != standard)

        for (rate, channels) in [(0.0, AVAudioChannelCount(1)), (.nan, 1), (-44_100, 1), (.infinity, 1), (44_100, 0), (44_100, 33)] {
            #expect(AVAudioFormat(standardFormatWithSampleRate: rate, channels: channels) == nil, "\(rate) Hz, \(channels) ch")
        }
        #expect(AVAudioFormat(commonFormat: .otherFormat, sampleRate: 44_100, channels: 1, interleaved: true) == nil)

        let fromSettings = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 22_050,
                                                                 AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 16]))
        #expect(fromSettings.commonFormat == .pcmFormatInt16 && fromSettings.sampleRate == 22_050)
        #expect(fromSettings.settings[AVLinearPCMBitDepthKey] as? UInt32 == 16)
        #expect(AVAudioFormat(settings: [AVSampleRateKey: 44_100]) == nil)
        let compressed = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100,
                                                               AVNumberOfChannelsKey: 2]))
        #expect(compressed.commonFormat == .otherFormat)
        #expect(AVAudioPCMBuffer(pcmFormat: compressed, frameCapacity: 1) == nil)
    }

    /// A FLAC whose header does not state its length (written to a pipe, as a killed take can be): its
    /// length is the frames it holds (it read Int64.max, and a buffer made for it trapped), Audio File
    /// Services counts as many packets, and every frame reads.
    @Test func aFileOfUnstatedLengthHasTheFramesThatAreThere() throws {
        let path = try temporaryDirectory() + "/piped.flac"
        let sox = try runProcess("sh", ["-c", "sox -n -r 44100 -c 1 -b 16 -t flac - synth 1.95 sine 440 vol 0.5 > \"$1\"", "sh", path])
        #expect(sox.status == 0, "\(sox.stderr)")
        let file = try AVAudioFile(forReading: URL(fileURLWithPath: path))
        #expect(file.length == 85_995)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length)))
        try file.read(into: buffer)
        #expect(buffer.frameLength == 85_995)
        var handle: AudioFileID?
        #expect(AudioFileOpenURL(URL(fileURLWithPath: path) as CFURL, .readPermission, 0, &handle) == noErr)
        var packets: UInt64 = 0
        var size = UInt32(MemoryLayout<UInt64>.size)
        #expect(AudioFileGetProperty(try #require(handle), kAudioFilePropertyAudioDataPacketCount, &size, &packets) == noErr)
        #expect(packets == 85_995)
        AudioFileClose(try #require(handle))
    }

    /// Files that are what their settings say: an 8-bit WAV is written (unsigned, as WAV holds 8 bits) and
    /// reads back 8-bit; a 32-bit or float FLAC is refused with a line (it was written 16-bit silently);
    /// a recorder asked for FLAC into a .wav is refused (it recorded PCM while `format` said FLAC).
    @Test func filesHoldWhatTheirSettingsSay() throws {
        let directory = try temporaryDirectory()
        let eight = URL(fileURLWithPath: directory + "/eight.wav")
        let file = try AVAudioFile(forWriting: eight, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 8_000,
                                                                 AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 8])
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 8_000, channels: 1))
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 800))
        buffer.frameLength = 800
        for frame in 0..<800 { buffer.floatChannelData![0][frame] = Float(sin(Double(frame) / 10)) / 2 }
        try file.write(from: buffer)
        file.close()
        let read = try readSoundFile(eight.path)
        #expect(read.frames == 800 && read.subtype == Int32(SF_FORMAT_PCM_U8), "\(read.subtype)")
        for (bits, float) in [(32, false), (32, true)] {
            do {
                _ = try AVAudioFile(forWriting: URL(fileURLWithPath: directory + "/x\(bits)\(float).flac"),
                                    settings: [AVFormatIDKey: kAudioFormatFLAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1,
                                               AVLinearPCMBitDepthKey: bits, AVLinearPCMIsFloatKey: float])
                Issue.record("a \(bits)-bit FLAC was made")
            } catch {
                #expect((error as NSError).localizedDescription.contains("FLAC holds 8, 16 or 24-bit integer samples"))
            }
        }
        do {
            _ = try AVAudioRecorder(url: URL(fileURLWithPath: directory + "/take.wav"),
                                    settings: [AVFormatIDKey: kAudioFormatFLAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1])
            Issue.record("FLAC into a .wav was accepted")
        } catch {
            #expect((error as NSError).localizedDescription.contains("as FLAC: a .wav file holds linear PCM"),
                    "\((error as NSError).localizedDescription)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/take.wav"))
    }

    /// AVAudioFile and Audio File Services writing until the disk is full: the write that cannot fit is
    /// refused with the disk's reason, the file closes whole, and its own tool reads every frame written
    /// before (a FLAC's encoder lost its last blocks unseen).
    @Test(arguments: ["flac", "wav"])
    func writersOnAFullDiskCloseWholeFiles(_ type: String) async throws {
        try await withTinyDisk(size: "256k") { disk in
            let url = URL(fileURLWithPath: disk + "/take." + type)
            let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: type == "flac" ? kAudioFormatFLAC : kAudioFormatLinearPCM,
                                                                   AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2,
                                                                   AVLinearPCMBitDepthKey: 16])
            let buffer = try stereoNoise(frames: 4_410, rate: 44_100, seed: 95)
            var failure: (any Error)?
            for _ in 0..<1_000 {
                do { try file.write(from: buffer) } catch { failure = error; break }
            }
            let written = file.length
            file.close()
            #expect((failure as NSError?)?.localizedDescription.contains("No space left on device") == true, "\(String(describing: failure))")
            #expect(written > 0)
            if type == "flac" { #expect(try runProcess("flac", ["-t", "-s", url.path]).status == 0) }
            #expect(try decodedFrames(url.path).frames == written)
        }
        try await withTinyDisk(size: "128k") { disk in
            var format = AudioStreamBasicDescription(mSampleRate: 44_100, mFormatID: kAudioFormatLinearPCM,
                                                     mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                                     mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 2,
                                                     mBitsPerChannel: 16, mReserved: 0)
            var file: AudioFileID?
            #expect(AudioFileCreateWithURL(URL(fileURLWithPath: disk + "/take.wav") as CFURL, kAudioFileWAVEType, &format, .eraseFile,
                                           &file) == noErr)
            let created = try #require(file)
            let bytes = [UInt8](repeating: 0x21, count: 4_410 * 4)
            var packet: Int64 = 0
            var status = noErr
            while status == noErr && packet < 1_000_000 {
                var packets = UInt32(4_410)
                status = AudioFileWritePackets(created, false, UInt32(bytes.count), nil, packet, &packets, bytes)
                packet += Int64(packets)
            }
            #expect(status != noErr, "the disk never filled")
            #expect(AudioFileClose(created) == noErr)
            #expect(try readSoundFile(disk + "/take.wav").frames == Int(packet), "\(packet) packets written, status \(status)")
        }
    }

    /// A URL that names no local file is refused, with a line that says so, by every call that takes
    /// one; nothing is played, and nothing is written at the URL's path taken as a local one.
    @Test func urlsThatAreNotFileURLsAreRefused() throws {
        let folder = try temporaryDirectory()
        let remote = try #require(URL(string: "https://example.invalid" + folder + "/take.wav"))
        func message(_ error: any Error) -> String { (error as NSError).localizedDescription }
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1]
        for attempt in [{ _ = try AVAudioPlayer(contentsOf: remote) }, { _ = try AVAudioRecorder(url: remote, settings: settings) },
                        { _ = try AVAudioFile(forReading: remote) }, { _ = try AVAudioFile(forWriting: remote, settings: settings) }] {
            do {
                try attempt()
                Issue.record("\(remote) was taken as a file")
            } catch {
                #expect(message(error).contains("\(remote.absoluteString): it is not a file URL"), "\(message(error))")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: remote.path))
        var file: AudioFileID?
        #expect(AudioFileOpenURL(remote as CFURL, .readPermission, 0, &file) == kAudio_ParamError && file == nil)
    }

    /// A deinterleaved float buffer: a pointer per channel, the same each time it is asked for (nothing is
    /// allocated per call); an interleaved int16 buffer: one pointer, stride 2; lengths clamped.
    @Test func pcmBuffersHandOutFixedChannelPointers() throws {
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4_410))
        #expect(buffer.frameCapacity == 4_410 && buffer.frameLength == 0 && buffer.stride == 1)
        let channels = try #require(buffer.floatChannelData)
        #expect(buffer.floatChannelData == channels)
        #expect(channels[1] - channels[0] == 4_410)
        #expect(buffer.int16ChannelData == nil && buffer.int32ChannelData == nil)
        channels[1][4_409] = 0.5
        #expect(buffer.floatChannelData![1][4_409] == 0.5 && channels[0][0] == 0)
        buffer.frameLength = 100_000
        #expect(buffer.frameLength == 4_410)

        let interleaved = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true))
        let samples = try #require(AVAudioPCMBuffer(pcmFormat: interleaved, frameCapacity: 10))
        #expect(samples.stride == 2 && samples.int16ChannelData != nil && samples.floatChannelData == nil)
        #expect(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 0) == nil)
        #expect(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: .max) == nil)
    }

    @Test func timesConvertWithoutTrapping() throws {
        #expect(AVAudioTime.hostTime(forSeconds: 1.5) == 1_500_000_000)
        #expect(AVAudioTime.hostTime(forSeconds: -1) == 0 && AVAudioTime.hostTime(forSeconds: .nan) == 0)
        #expect(AVAudioTime.hostTime(forSeconds: 1e300) == .max)
        #expect(AVAudioTime.seconds(forHostTime: 2_000_000_000) == 2)
        let anchor = AVAudioTime(hostTime: 10_000_000_000, sampleTime: 441_000, atRate: 44_100)
        let later = try #require(AVAudioTime(hostTime: 11_000_000_000).extrapolateTime(fromAnchor: anchor))
        #expect(later.sampleTime == 485_100 && later.isSampleTimeValid)
        let sample = AVAudioTime(sampleTime: 0, atRate: 44_100)
        #expect(!sample.isHostTimeValid && sample.audioTimeStamp.mFlags == .sampleTimeValid)
        var stamp = AudioTimeStamp()
        stamp.mSampleTime = .nan
        stamp.mFlags = .sampleTimeValid
        #expect(!AVAudioTime(audioTimeStamp: &stamp, sampleRate: 44_100).isSampleTimeValid)
    }

    /// A standard buffer written to a 24-bit WAV and a float CAF, read back through AVAudioFile: the same
    /// samples (to 24 bits; exactly for float), the length and positions right; what cannot be written refused.
    @Test func filesWrittenFromBuffersReadBack() throws {
        let directory = try temporaryDirectory()
        let buffer = try stereoNoise(frames: 1_000, rate: 48_000, seed: 77)
        for (name, bits, float) in [("take.wav", 24, false), ("take.caf", 32, true)] {
            let url = URL(fileURLWithPath: directory + "/" + name)
            let written = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000,
                                                                     AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: bits,
                                                                     AVLinearPCMIsFloatKey: float])
            try written.write(from: buffer)
            try written.write(from: buffer)
            #expect(written.length == 2_000 && written.framePosition == 2_000)
            written.close()
            #expect(throws: NSError.self) { try written.write(from: buffer) }

            let read = try AVAudioFile(forReading: url)
            #expect(read.length == 2_000 && read.processingFormat.isStandard && read.processingFormat.channelCount == 2)
            #expect(read.fileFormat.streamDescription.pointee.mBitsPerChannel == UInt32(bits))
            read.framePosition = 1_000
            let back = try #require(AVAudioPCMBuffer(pcmFormat: read.processingFormat, frameCapacity: 4_096))
            try read.read(into: back)
            #expect(back.frameLength == 1_000)
            for channel in 0..<2 {
                for frame in 0..<1_000 {
                    #expect(back.floatChannelData![channel][frame] == buffer.floatChannelData![channel][frame])
                }
            }
            try read.read(into: back)
            #expect(back.frameLength == 0)
        }
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]
        do {
            _ = try AVAudioFile(forWriting: URL(fileURLWithPath: directory + "/take.m4a"), settings: settings)
            Issue.record("AAC was accepted")
        } catch let error as NSError {
            #expect(error.domain == NSOSStatusErrorDomain && error.localizedDescription.contains("cannot be encoded on Linux"))
        }
        #expect(throws: NSError.self) {
            _ = try AVAudioFile(forWriting: URL(fileURLWithPath: directory + "/take.xyz"), settings: [AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1])
        }
        #expect(throws: NSError.self) {
            _ = try AVAudioFile(forWriting: URL(fileURLWithPath: directory + "/take.wav"), settings: [AVSampleRateKey: Double.nan, AVNumberOfChannelsKey: 1])
        }
        #expect(throws: NSError.self) { _ = try AVAudioFile(forReading: URL(fileURLWithPath: directory + "/missing.wav")) }
    }

    /// The calls porters always make succeed and report what was set; recording needs no permission.
    @Test func theSessionTakesWhatPortersCodeSets() throws {
        let session = AVAudioSession.sharedInstance()
        #expect(session === AVAudioSession.sharedInstance())
        try session.setCategory(.playAndRecord, mode: .measurement, options: [.defaultToSpeaker, .allowBluetooth])
        try session.setActive(true, options: .notifyOthersOnDeactivation)
        #expect(session.category == .playAndRecord && session.mode == .measurement)
        #expect(session.categoryOptions == [.defaultToSpeaker, .allowBluetooth])
        #expect(session.recordPermission == .granted && AVAudioApplication.shared.recordPermission == .granted)
        try session.setPreferredSampleRate(48_000)
        #expect(session.preferredSampleRate == 48_000)
        try session.overrideOutputAudioPort(.none)  // what the server does anyway
        try session.setPreferredInput(nil)
    }

    /// The permission asked as iOS 17 code awaits it, from the application and from the session.
    @Test func permissionAwaitedIsGranted() async {
        let application = await AVAudioApplication.requestRecordPermission()
        let session = await AVAudioSession.sharedInstance().requestRecordPermission()
        #expect(application && session)
    }

    /// AAC and ALAC recordings are refused before anything connects, in one line that says what to use.
    @Test func aRecorderOfAACSaysLinuxCannotEncodeIt() throws {
        for format in [kAudioFormatMPEG4AAC, kAudioFormatAppleLossless] {
            do {
                _ = try AVAudioRecorder(url: URL(fileURLWithPath: "/tmp/take.m4a"),
                                        settings: [AVFormatIDKey: Int(format), AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1])
                Issue.record("\(format) was accepted")
            } catch let error as NSError {
                #expect(error.localizedDescription.contains("cannot be encoded on Linux"), "\(error.localizedDescription)")
                #expect(error.code == Int(kAudioFormatUnsupportedDataFormatError))
            }
        }
    }
}
