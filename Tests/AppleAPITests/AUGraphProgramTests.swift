// AUGraph: the example (Examples/GraphFilePlayer, Swift 5 and 6) builds a file player into a multichannel
// mixer into an output, with a render callback on a second mixer input. Rendered offline through the
// generic output, every sample equals the file times the mixer's volumes plus the callback's level where
// its pan puts it; played, it is heard on the private server's monitor and its region's completion is
// called. Then the graph's calls one by one: regions, loops, reset, refusals, a callback that calls back.
import CSndFile
import Foundation
import OpenAudioToolbox
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct AUGraphProgramTests {
    /// Writes a 16-bit stereo WAV at 44.1 kHz of `frames` frames: a 440 Hz tone at 0.6 on the left,
    /// 660 Hz at 0.3 on the right; returns the samples as libsndfile reads them back (x / 32 768).
    static func writeTone(_ path: String, frames: Int) throws -> (left: [Float], right: [Float]) {
        var info = SF_INFO(frames: 0, samplerate: 44_100, channels: 2, format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16), sections: 0, seekable: 0)
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else { throw TestFailure("cannot write \(path)") }
        var samples = [Int16]()
        for frame in 0..<frames {
            let time = Double(frame) / 44_100
            samples.append(Int16((0.6 * 32_767 * sin(2 * Double.pi * 440 * time)).rounded()))
            samples.append(Int16((0.3 * 32_767 * sin(2 * Double.pi * 660 * time)).rounded()))
        }
        _ = samples.withUnsafeBufferPointer { sf_writef_short(file, $0.baseAddress, sf_count_t(frames)) }
        sf_close(file)
        return (stride(from: 0, to: samples.count, by: 2).map { Float(samples[$0]) / 32_768 },
                stride(from: 1, to: samples.count, by: 2).map { Float(samples[$0]) / 32_768 })
    }

    static func readRaw(_ path: String) throws -> [Float] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test(arguments: ["graph-file-player-swift5", "graph-file-player-swift6"])
    func everyRenderedSampleIsTheFileAtItsVolumesAndTheCallbackWhereItsPanPutsIt(_ product: String) async throws {
        let directory = try temporaryDirectory()
        let sound = directory + "/tone.wav", out = directory + "/out.raw"
        let frames = 44_100
        let tone = try Self.writeTone(sound, frames: frames)
        let result = try await offThread { try runProcess(try builtProduct(product), ["render", sound, out], environment: [:]) }
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        // 87 slices of 512 frames hold the file's 44 100; its completion runs after the slice with its last
        // frame. The program renders slices until it is 1 024 frames past the end: 89 of them.
        let slices = (frames + 511) / 512, total = (frames + 1_024 + 511) / 512 * 512
        #expect(lines == ["nodes: 3, interactions: 3", "bus 0 volume: 0.5", "file: 44100 frames at 44100 Hz, 2 channels",
                          "rendered: \(total) frames", "region completed by frame \(slices * 512)", "done"], "\(result.stdout)")
        let rendered = try Self.readRaw(out)
        #expect(rendered.count == total * 2)
        // The file at bus volume 0.5 and output volume 0.5; the callback's 8 192 / 32 768 = 0.25, panned
        // hard left, at output volume 0.5: 0.125 on the left only, before, during and after the file.
        var worst: Float = 0
        for frame in 0..<rendered.count / 2 {
            let left = frame < frames ? tone.left[frame] * 0.25 : 0, right = frame < frames ? tone.right[frame] * 0.25 : 0
            worst = max(worst, abs(rendered[2 * frame] - (left + 0.125)), abs(rendered[2 * frame + 1] - right))
        }
        #expect(worst < 1e-6, "the largest difference from the file at its volumes is \(worst)")
    }

    @Test(arguments: ["graph-file-player-swift5", "graph-file-player-swift6"])
    func aGraphPlayedIsHeardAndItsRegionCompletes(_ product: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let sound = directory + "/tone.wav"
            _ = try Self.writeTone(sound, frames: 22_050)
            let monitor = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            defer { monitor.stop() }
            let program = try builtProduct(product)
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(program, ["play", sound], environment: environment) }
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.contains("running: true") && lines.contains("region completed") && lines.contains("played past the file's end: true")
                    && lines.last == "done", "\(result.stdout)")
            // Heard: the tone (0.6 and 0.3 at a quarter, mixed to the mono sink) over the callback's level.
            let heard = try monitor.samples()
            #expect((heard.map { abs(Int($0)) }.max() ?? 0) > 3_000, "nothing heard")
        }
    }

    /// A region whose completion procedure stops the graph, its player taken out of the graph while it
    /// plays: the region will never finish, so its completion is called there and then; it stops the graph
    /// from inside AUGraphRemoveNode, and nothing hangs.
    @Test(arguments: ["graph-file-player-swift5", "graph-file-player-swift6"])
    func removingAPlayingFilePlayerWhoseCompletionStopsTheGraphReturns(_ product: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let sound = directory + "/tone.wav"
            _ = try Self.writeTone(sound, frames: 441_000)
            let program = try builtProduct(product)
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(program, ["remove", sound], environment: environment) }
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            #expect(result.stdout.contains("player removed, its completion called: true, running: false"), "\(result.stdout)")
        }
    }

    // MARK: The calls

    /// A graph of a generic output, a mixer and a file player, open, the player on mixer bus 0.
    final class OfflineGraph {
        var graph: AUGraph?
        var output = AUNode(), mixer = AUNode(), player = AUNode()
        var outputUnit: AudioUnit?, mixerUnit: AudioUnit?, playerUnit: AudioUnit?

        init() {
            NewAUGraph(&graph)
            var description = AudioComponentDescription(componentType: kAudioUnitType_Output, componentSubType: kAudioUnitSubType_GenericOutput,
                                                        componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0,
                                                        componentFlagsMask: 0)
            AUGraphAddNode(graph!, &description, &output)
            description.componentType = kAudioUnitType_Mixer
            description.componentSubType = kAudioUnitSubType_MultiChannelMixer
            AUGraphAddNode(graph!, &description, &mixer)
            description.componentType = kAudioUnitType_Generator
            description.componentSubType = kAudioUnitSubType_AudioFilePlayer
            AUGraphAddNode(graph!, &description, &player)
            AUGraphOpen(graph!)
            AUGraphNodeInfo(graph!, output, nil, &outputUnit)
            AUGraphNodeInfo(graph!, mixer, nil, &mixerUnit)
            AUGraphNodeInfo(graph!, player, nil, &playerUnit)
            AUGraphConnectNodeInput(graph!, player, 0, mixer, 0)
            AUGraphConnectNodeInput(graph!, mixer, 0, output, 0)
        }

        deinit { DisposeAUGraph(graph!) }

        /// Renders `frames` frames (in slices of 512) as left and right.
        func render(_ frames: Int) -> (status: OSStatus, left: [Float], right: [Float]) {
            var left = [Float](), right = [Float]()
            let list = AudioBufferList.allocate(maximumBuffers: 2)
            defer { free(list.unsafeMutablePointer) }
            var slice = [Float](repeating: 0, count: 1_024)
            var done = 0
            while done < frames {
                let count = min(512, frames - done)
                let status = slice.withUnsafeMutableBufferPointer { buffer -> OSStatus in
                    list[0] = AudioBuffer(mNumberChannels: 1, mDataByteSize: UInt32(count * 4), mData: buffer.baseAddress)
                    list[1] = AudioBuffer(mNumberChannels: 1, mDataByteSize: UInt32(count * 4), mData: buffer.baseAddress! + 512)
                    var flags = AudioUnitRenderActionFlags()
                    var time = AudioTimeStamp()
                    return AudioUnitRender(outputUnit!, &flags, &time, 0, UInt32(count), list.unsafeMutablePointer)
                }
                guard status == noErr else { return (status, left, right) }
                left += slice[0..<count]
                right += slice[512..<(512 + count)]
                done += count
            }
            return (noErr, left, right)
        }

        func schedule(_ file: AudioFileID, start: Int64, frames: UInt32, loops: UInt32, at time: Double) -> OSStatus {
            var region = ScheduledAudioFileRegion(mTimeStamp: AudioTimeStamp(), mCompletionProc: nil, mCompletionProcUserData: nil,
                                                  mAudioFile: file, mLoopCount: loops, mStartFrame: start, mFramesToPlay: frames)
            region.mTimeStamp.mFlags = .sampleTimeValid
            region.mTimeStamp.mSampleTime = time
            return AudioUnitSetProperty(playerUnit!, kAudioUnitProperty_ScheduledFileRegion, kAudioUnitScope_Global, 0, &region,
                                        UInt32(MemoryLayout<ScheduledAudioFileRegion>.size))
        }

        func start() -> OSStatus {
            var time = AudioTimeStamp()
            time.mFlags = .sampleTimeValid
            time.mSampleTime = -1
            return AudioUnitSetProperty(playerUnit!, kAudioUnitProperty_ScheduleStartTimeStamp, kAudioUnitScope_Global, 0, &time,
                                        UInt32(MemoryLayout<AudioTimeStamp>.size))
        }
    }

    @Test func regionsPlayTheirFramesAtTheirTimesLoopedAndAResetEndsThem() throws {
        let directory = try temporaryDirectory()
        let tone = try Self.writeTone(directory + "/tone.wav", frames: 1_000)
        var file: AudioFileID?
        #expect(AudioFileOpenURL(URL(fileURLWithPath: directory + "/tone.wav") as CFURL, .readPermission, 0, &file) == noErr)
        defer { AudioFileClose(file!) }
        let graph = OfflineGraph()
        #expect(AUGraphInitialize(graph.graph!) == noErr)
        // A region before the file IDs are set is refused, with a line saying what to do.
        #expect(graph.schedule(file!, start: 0, frames: 100, loops: 0, at: 0) == kAudioUnitErr_InvalidPropertyValue)
        #expect(OpenAudioToolboxLastErrorMessage()?.contains("kAudioUnitProperty_ScheduledFileIDs") == true)
        #expect(AudioUnitSetProperty(graph.playerUnit!, kAudioUnitProperty_ScheduledFileIDs, kAudioUnitScope_Global, 0, &file,
                                     UInt32(MemoryLayout<AudioFileID>.size)) == noErr)
        // Frames 100…299 at player time 50, played three times (two loops); then frames 900… to the end
        // (asked for far more than there is) at time 1 000.
        #expect(graph.schedule(file!, start: 100, frames: 200, loops: 2, at: 50) == noErr)
        #expect(graph.schedule(file!, start: 900, frames: UInt32.max - 1, loops: 0, at: 1_000) == noErr)
        var expected = [Float](repeating: 0, count: 1_200)
        for pass in 0..<3 { for frame in 0..<200 { expected[50 + pass * 200 + frame] = tone.left[100 + frame] } }
        for frame in 0..<100 { expected[1_000 + frame] = tone.left[900 + frame] }
        // Nothing plays before the start time is set.
        let silent = graph.render(256)
        #expect(silent.status == noErr && silent.left.allSatisfy { $0 == 0 })
        #expect(graph.start() == noErr)
        let played = graph.render(1_200)
        #expect(played.status == noErr)
        let worst = zip(played.left, expected).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-6, "largest difference \(worst)")
        // The play time counts the frames put out since the start.
        var now = AudioTimeStamp()
        var size = UInt32(MemoryLayout<AudioTimeStamp>.size)
        #expect(AudioUnitGetProperty(graph.playerUnit!, kAudioUnitProperty_CurrentPlayTime, kAudioUnitScope_Global, 0, &now, &size) == noErr)
        #expect(now.mSampleTime == 1_200)
        // A reset forgets what is scheduled: silence after it.
        #expect(graph.schedule(file!, start: 0, frames: 1_000, loops: 0, at: 1_300) == noErr)
        #expect(AudioUnitReset(graph.playerUnit!, kAudioUnitScope_Global, 0) == noErr)
        #expect(graph.start() == noErr)
        let after = graph.render(600)
        #expect(after.status == noErr && after.left.allSatisfy { $0 == 0 })
    }

    /// A render callback that renders a level read from its reference and, from the render thread, sets
    /// the mixer's bus 0 volume to half (a callback may call back into the graph: the mixer reads its
    /// volumes after pulling its inputs, so the change is heard in the same slice).
    final class Callback {
        var level: Float = 0.5
        var mixer: AudioUnit?
        var calls = 0
    }

    @Test func aCallbackThatCallsBackIntoTheGraphIsHeardAtOnce() throws {
        let graph = OfflineGraph()
        let context = Callback()
        context.mixer = graph.mixerUnit
        #expect(AUGraphDisconnectNodeInput(graph.graph!, graph.mixer, 0) == noErr)
        var callback = AURenderCallbackStruct(inputProc: { refCon, _, _, bus, frames, ioData in
            let context = Unmanaged<Callback>.fromOpaque(refCon).takeUnretainedValue()
            let list = UnsafeMutableAudioBufferListPointer(ioData!)
            for buffer in list {
                let samples = buffer.mData!.assumingMemoryBound(to: Float.self)
                for frame in 0..<Int(frames) { samples[frame] = context.level }
            }
            context.calls += 1
            return AudioUnitSetParameter(context.mixer!, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, bus, 0.5, 0)
        }, inputProcRefCon: Unmanaged.passUnretained(context).toOpaque())
        #expect(AUGraphSetNodeInputCallback(graph.graph!, graph.mixer, 0, &callback) == noErr)
        // An input takes one thing: a connection there now is refused.
        #expect(AUGraphConnectNodeInput(graph.graph!, graph.player, 0, graph.mixer, 0) == kAUGraphErr_InvalidConnection)
        var count: UInt32 = 0
        #expect(AUGraphCountNodeInteractions(graph.graph!, graph.mixer, &count) == noErr && count == 2)
        var interaction = AUNodeInteraction()
        #expect(AUGraphGetInteractionInfo(graph.graph!, 1, &interaction) == noErr)
        #expect(interaction.nodeInteractionType == kAUNodeInteraction_InputCallback && interaction.nodeInteraction.inputCallback.destNode == graph.mixer)
        #expect(AUGraphInitialize(graph.graph!) == noErr)
        let first = graph.render(512)
        context.level = 1
        let second = graph.render(512)
        #expect(first.left.allSatisfy { $0 == 0.25 } && first.right.allSatisfy { $0 == 0.25 })
        #expect(second.left.allSatisfy { $0 == 0.5 } && second.right.allSatisfy { $0 == 0.5 })
        #expect(context.calls == 2)
        // A list without buffers gets the unit's own, as Apple's does.
        let list = AudioBufferList.allocate(maximumBuffers: 2)
        defer { free(list.unsafeMutablePointer) }
        var flags = AudioUnitRenderActionFlags()
        var time = AudioTimeStamp()
        #expect(AudioUnitRender(graph.outputUnit!, &flags, &time, 0, 256, list.unsafeMutablePointer) == noErr)
        #expect(list[0].mData != nil && list[0].mDataByteSize == 1_024)
        let lent = UnsafeBufferPointer(start: list[1].mData!.assumingMemoryBound(to: Float.self), count: 256)
        #expect(lent.allSatisfy { $0 == 0.5 })
    }

    /// A file of a 440 Hz tone through a time unit: how long it sounds and at what frequency (rising zero
    /// crossings over its middle half) are what the unit's parameters make of what was played. SoundTouch
    /// holds some frames back at the start and lets the end out late: the length is checked to 4 096 frames.
    @Test(arguments: [
        ("nutp rate 2", kAudioUnitSubType_NewTimePitch, kNewTimePitchParam_Rate, Float(2), 0.5, 440.0),
        ("nutp pitch +1200", kAudioUnitSubType_NewTimePitch, kNewTimePitchParam_Pitch, Float(1_200), 1, 880),
        ("ipto rate 0.5", kAudioUnitSubType_AUiPodTimeOther, kNewTimePitchParam_Rate, Float(0.5), 2, 440),
        ("vari rate 2", kAudioUnitSubType_Varispeed, kVarispeedParam_PlaybackRate, Float(2), 0.5, 880),
        ("vari cents -1200", kAudioUnitSubType_Varispeed, kVarispeedParam_PlaybackCents, Float(-1_200), 2, 220),
    ] as [(String, UInt32, UInt32, Float, Double, Double)])
    func timeUnitsInAGraphStretchAndShiftWhatThePlayerPlays(_ setting: (String, UInt32, UInt32, Float, Double, Double)) throws {
        let (_, subtype, parameter, value, lengthFactor, frequency) = setting
        let directory = try temporaryDirectory()
        let frames = 44_100
        _ = try Self.writeTone(directory + "/tone.wav", frames: frames)
        var file: AudioFileID?
        #expect(AudioFileOpenURL(URL(fileURLWithPath: directory + "/tone.wav") as CFURL, .readPermission, 0, &file) == noErr)
        defer { AudioFileClose(file!) }
        let graph = OfflineGraph()
        var description = AudioComponentDescription(componentType: kAudioUnitType_FormatConverter, componentSubType: subtype,
                                                    componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)
        var timeNode = AUNode()
        #expect(AUGraphAddNode(graph.graph!, &description, &timeNode) == noErr)
        #expect(AUGraphDisconnectNodeInput(graph.graph!, graph.mixer, 0) == noErr)
        #expect(AUGraphConnectNodeInput(graph.graph!, graph.player, 0, timeNode, 0) == noErr)
        #expect(AUGraphConnectNodeInput(graph.graph!, timeNode, 0, graph.mixer, 0) == noErr)
        var timeUnit: AudioUnit?
        AUGraphNodeInfo(graph.graph!, timeNode, nil, &timeUnit)
        #expect(AudioUnitSetParameter(timeUnit!, parameter, kAudioUnitScope_Global, 0, value, 0) == noErr)
        var read: AudioUnitParameterValue = 0
        #expect(AudioUnitGetParameter(timeUnit!, parameter, kAudioUnitScope_Global, 0, &read) == noErr && abs(read - value) < 1e-3)
        if subtype == kAudioUnitSubType_AUiPodTimeOther {
            // Time-domain stretching keeps the pitch: it has no pitch parameter.
            #expect(AudioUnitSetParameter(timeUnit!, kNewTimePitchParam_Pitch, kAudioUnitScope_Global, 0, 100, 0) == kAudioUnitErr_InvalidParameter)
        }
        #expect(AUGraphInitialize(graph.graph!) == noErr)
        #expect(AudioUnitSetProperty(graph.playerUnit!, kAudioUnitProperty_ScheduledFileIDs, kAudioUnitScope_Global, 0, &file,
                                     UInt32(MemoryLayout<AudioFileID>.size)) == noErr)
        #expect(graph.schedule(file!, start: 0, frames: UInt32(frames), loops: 0, at: 0) == noErr)
        #expect(graph.start() == noErr)
        let rendered = graph.render(Int(Double(frames) * lengthFactor) + 16_384)
        #expect(rendered.status == noErr)
        // The left channel: the file's 0.6-scale tone, at its bus's full volume.
        let loud = rendered.left.indices.filter { abs(rendered.left[$0]) > 0.05 }
        let sounding = (loud.last ?? 0) - (loud.first ?? 0)
        #expect(abs(Double(sounding) - Double(frames) * lengthFactor) < 4_096, "sounds for \(sounding) frames")
        let middle = rendered.left[(loud.first ?? 0) + sounding / 4..<(loud.first ?? 0) + 3 * sounding / 4]
        let rising = zip(middle, middle.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        let measured = Double(rising) / (Double(middle.count) / 44_100)
        #expect(abs(measured - frequency) < frequency / 100, "\(measured) Hz")
    }

    @Test func whatAGraphCannotDoIsAStatusAndALine() throws {
        var graph: AUGraph?
        #expect(NewAUGraph(&graph) == noErr)
        var node = AUNode()
        // A unit this graph does not hold; a second output.
        var reverb = AudioComponentDescription(componentType: kAudioUnitType_Effect, componentSubType: kAudioUnitSubType_Reverb2,
                                               componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)
        #expect(AUGraphAddNode(graph!, &reverb, &node) == kAUGraphErr_InvalidAudioUnit)
        #expect(OpenAudioToolboxLastErrorMessage()?.contains("AVAudioEngine") == true)
        var output = AudioComponentDescription(componentType: kAudioUnitType_Output, componentSubType: kAudioUnitSubType_GenericOutput,
                                               componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)
        var outputNode = AUNode()
        #expect(AUGraphAddNode(graph!, &output, &outputNode) == noErr)
        #expect(AUGraphAddNode(graph!, &output, &node) == kAUGraphErr_OutputNodeErr)
        // No unit before the graph is open; a node that is none.
        var unit: AudioUnit?
        #expect(AUGraphNodeInfo(graph!, outputNode, nil, &unit) == noErr && unit == nil)
        #expect(AUGraphNodeInfo(graph!, 999, nil, &unit) == kAUGraphErr_NodeNotFound)
        // Starting before initializing; the microphone bus as a source.
        #expect(AUGraphStart(graph!) == kAUGraphErr_CannotDoInCurrentContext)
        var mixer = AudioComponentDescription(componentType: kAudioUnitType_Mixer, componentSubType: kAudioUnitSubType_MultiChannelMixer,
                                              componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)
        var mixerNode = AUNode()
        #expect(AUGraphAddNode(graph!, &mixer, &mixerNode) == noErr)
        #expect(AUGraphConnectNodeInput(graph!, outputNode, 1, mixerNode, 0) == kAUGraphErr_InvalidConnection)
        #expect(AUGraphConnectNodeInput(graph!, mixerNode, 0, mixerNode, 8) == kAUGraphErr_InvalidConnection)  // buses 0…7
        #expect(AUGraphConnectNodeInput(graph!, mixerNode, 0, mixerNode, 1) == kAUGraphErr_InvalidConnection)  // a loop
        #expect(OpenAudioToolboxLastErrorMessage()?.contains("loop") == true)
        #expect(AUGraphOpen(graph!) == noErr)
        var mixerUnit: AudioUnit?
        #expect(AUGraphNodeInfo(graph!, mixerNode, nil, &mixerUnit) == noErr && mixerUnit != nil)
        // Parameters: clamped, NaN refused, buses that are none refused, defaults as Apple's.
        #expect(AudioUnitSetParameter(mixerUnit!, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 0, 7, 0) == noErr)
        var value: AudioUnitParameterValue = -1
        #expect(AudioUnitGetParameter(mixerUnit!, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 0, &value) == noErr && value == 1)
        #expect(AudioUnitSetParameter(mixerUnit!, kMultiChannelMixerParam_Pan, kAudioUnitScope_Input, 0, .nan, 0) == kAudioUnitErr_InvalidParameterValue)
        #expect(AudioUnitSetParameter(mixerUnit!, kMultiChannelMixerParam_Pan, kAudioUnitScope_Input, 8, 0, 0) == kAudioUnitErr_InvalidElement)
        #expect(AudioUnitGetParameter(mixerUnit!, kMultiChannelMixerParam_Enable, kAudioUnitScope_Input, 3, &value) == noErr && value == 1)
        #expect(AudioUnitSetParameter(mixerUnit!, kMultiChannelMixerParam_PreAveragePower, kAudioUnitScope_Input, 0, 0, 0)
                == kAudioUnitErr_InvalidParameter)
        // A callback format at another rate than the graph's: refused at initialize, with the rates said.
        var format = AudioStreamBasicDescription(mSampleRate: 22_050, mFormatID: kAudioFormatLinearPCM,
                                                 mFormatFlags: kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked | kAudioFormatFlagIsNonInterleaved,
                                                 mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 1,
                                                 mBitsPerChannel: 32, mReserved: 0)
        #expect(AudioUnitSetProperty(mixerUnit!, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &format,
                                     UInt32(MemoryLayout<AudioStreamBasicDescription>.size)) == noErr)
        var callback = AURenderCallbackStruct(inputProc: { _, _, _, _, _, _ in noErr }, inputProcRefCon: nil)
        #expect(AUGraphSetNodeInputCallback(graph!, mixerNode, 0, &callback) == noErr)
        #expect(AUGraphConnectNodeInput(graph!, mixerNode, 0, outputNode, 0) == noErr)
        #expect(AUGraphInitialize(graph!) == kAudioUnitErr_FormatNotSupported)
        #expect(OpenAudioToolboxLastErrorMessage()?.contains("22050") == true)
        // Rendering an uninitialized graph; a unit disposed of on its own.
        var outputUnit: AudioUnit?
        AUGraphNodeInfo(graph!, outputNode, nil, &outputUnit)
        let list = AudioBufferList.allocate(maximumBuffers: 2)
        defer { free(list.unsafeMutablePointer) }
        var time = AudioTimeStamp()
        #expect(AudioUnitRender(outputUnit!, nil, &time, 0, 512, list.unsafeMutablePointer) != noErr)
        #expect(AudioComponentInstanceDispose(mixerUnit!) == kAUGraphErr_CannotDoInCurrentContext)
        #expect(AudioOutputUnitStart(mixerUnit!) == kAudio_ParamError)  // a mixer is no output unit
        // Removing a node takes its connections; after disposal every handle is refused.
        #expect(AUGraphRemoveNode(graph!, mixerNode) == noErr)
        var interactions: UInt32 = 9
        #expect(AUGraphGetNumberOfInteractions(graph!, &interactions) == noErr && interactions == 0)
        #expect(AudioUnitSetParameter(mixerUnit!, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 0, 1, 0) == kAudio_ParamError)
        #expect(DisposeAUGraph(graph!) == noErr)
        #expect(AUGraphOpen(graph!) == kAudio_ParamError)
        #expect(AudioUnitRender(outputUnit!, nil, &time, 0, 512, list.unsafeMutablePointer) == kAudio_ParamError)
    }
}
