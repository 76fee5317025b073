// AVAudioUnitMIDIInstrument and AVAudioUnitSampler over RecorderKit's GraphSampler (FluidSynth): MIDI
// messages in, a SoundFont's instrument out.
import Foundation
import RecorderKit

/// An instrument played by MIDI messages; every message may be sent from any thread and is heard from
/// the next render pass. The one instrument here is the sampler (`AVAudioUnitSampler`): a description
/// of any other makes a sampler, and `OpenAVFAudioLastErrorMessage()` says so.
open class AVAudioUnitMIDIInstrument: AVAudioUnit, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    var sampler: GraphSampler { graphNode as! GraphSampler }

    init(sampler: GraphSampler) { super.init(graphNode: sampler) }

    /// The instrument Apple's `description` names: the sampler (`kAudioUnitSubType_Sampler`) is here.
    public init(audioComponentDescription description: AudioComponentDescription) {
        if description.componentSubType != kAudioUnitSubType_Sampler {
            AVAudioEngine.noteRefusal("AVAudioUnitMIDIInstrument: no Linux implementation of \(fourCharacters(description.componentSubType)); "
                + "made a sampler (FluidSynth) instead: load a SoundFont into it")
        }
        super.init(graphNode: GraphSampler())
    }

    /// Note on (`velocity` 0 is a note off).
    open func startNote(_ note: UInt8, withVelocity velocity: UInt8, onChannel channel: UInt8) {
        sampler.startNote(note, velocity: velocity, channel: channel)
    }

    /// Note off.
    open func stopNote(_ note: UInt8, onChannel channel: UInt8) { sampler.stopNote(note, channel: channel) }

    /// A control change.
    open func sendController(_ controller: UInt8, withValue value: UInt8, onChannel channel: UInt8) {
        sampler.sendController(controller, value: value, channel: channel)
    }

    /// Pitch bend, 0…16 383 (8 192: none).
    open func sendPitchBend(_ pitchbend: UInt16, onChannel channel: UInt8) { sampler.sendPitchBend(pitchbend, channel: channel) }

    /// Channel pressure.
    open func sendPressure(_ pressure: UInt8, onChannel channel: UInt8) { sampler.sendPressure(pressure, channel: channel) }

    /// Polyphonic key pressure.
    open func sendPressure(forKey key: UInt8, withValue value: UInt8, onChannel channel: UInt8) {
        sampler.sendPressure(forKey: key, value: value, channel: channel)
    }

    /// Program change (the channel's bank kept).
    open func sendProgramChange(_ program: UInt8, onChannel channel: UInt8) { sampler.sendProgramChange(program, channel: channel) }

    /// Bank select and program change (`kAUSampler_DefaultMelodicBankMSB` and the like).
    open func sendProgramChange(_ program: UInt8, bankMSB: UInt8, bankLSB: UInt8, onChannel channel: UInt8) {
        sampler.sendProgramChange(program, bankMSB: bankMSB, bankLSB: bankLSB, channel: channel)
    }

    /// A channel message with two data bytes (note on/off, key pressure, control change, pitch bend).
    open func sendMIDIEvent(_ midiStatus: UInt8, data1: UInt8, data2: UInt8) {
        let channel = midiStatus & 0x0F
        switch midiStatus & 0xF0 {
        case 0x80: sampler.stopNote(data1, channel: channel)
        case 0x90: sampler.startNote(data1, velocity: data2, channel: channel)
        case 0xA0: sampler.sendPressure(forKey: data1, value: data2, channel: channel)
        case 0xB0: sampler.sendController(data1, value: data2, channel: channel)
        case 0xC0: sampler.sendProgramChange(data1, channel: channel)
        case 0xD0: sampler.sendPressure(data1, channel: channel)
        case 0xE0: sampler.sendPitchBend(UInt16(data1 & 0x7F) | UInt16(data2 & 0x7F) << 7, channel: channel)
        default:
            AVAudioEngine.noteRefusal("sendMIDIEvent: status 0x\(String(midiStatus, radix: 16)) is not a channel message; ignored")
        }
    }

    /// A channel message with one data byte (program change, channel pressure).
    open func sendMIDIEvent(_ midiStatus: UInt8, data1: UInt8) { sendMIDIEvent(midiStatus, data1: data1, data2: 0) }

    /// System exclusive messages are not passed on here: `OpenAVFAudioLastErrorMessage()` says so.
    open func sendMIDISysExEvent(_ midiData: Data) {
        AVAudioEngine.noteRefusal("sendMIDISysExEvent: the sampler on Linux (FluidSynth) is not sent system exclusive messages; "
            + "\(midiData.count) bytes ignored")
    }
}

/// A sampler playing a SoundFont's instrument through FluidSynth (`GraphSampler`). Apple's sampler
/// also loads `.aupreset`, `.exs` and audio files: `loadInstrument(at:)` and `loadAudioFiles(at:)` throw
/// `kAudioUnitErr_UnknownFileType` for them here. `loadSoundBankInstrument` hands any file to
/// FluidSynth (a DLS bank may load where FluidSynth was built with libinstpatch; untested).
open class AVAudioUnitSampler: AVAudioUnitMIDIInstrument, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.

    /// A sampler with nothing loaded (silent until a SoundFont is).
    public init() { super.init(sampler: GraphSampler()) }

    /// Loads `program` of the bank `bankMSB`/`bankLSB` (`kAUSampler_DefaultMelodicBankMSB` or
    /// `kAUSampler_DefaultPercussionBankMSB`, and `kAUSampler_DefaultBankLSB`) from the SoundFont at `bankURL`.
    /// - Throws: an NSError in NSOSStatusErrorDomain: `kAudio_FileNotFoundError` (−43) for a file that is
    ///   not there or not readable, `kAudioUnitErr_InvalidFile` for one FluidSynth cannot read,
    ///   `kAudioUnitErr_InvalidPropertyValue` for a preset it does not have, `kAudioUnitErr_FormatNotSupported`
    ///   for an engine's rate FluidSynth cannot play at (outside 8–96 kHz); FluidSynth missing:
    ///   `kAudioUnitErr_FailedInitialization`. Each with a one-line description.
    open func loadSoundBankInstrument(at bankURL: URL, program: UInt8, bankMSB: UInt8, bankLSB: UInt8) throws {
        do {
            try sampler.loadSoundBank(path: bankURL.path, program: program, bankMSB: bankMSB, bankLSB: bankLSB)
        } catch {
            let status: OSStatus = switch error.code {
            case .cannotReadFile: kAudio_FileNotFoundError
            case .invalidFormat where error.message.contains("has no preset"): kAudioUnitErr_InvalidPropertyValue
            case .invalidFormat where error.message.contains("cannot play at"): kAudioUnitErr_FormatNotSupported
            case .invalidFormat: kAudioUnitErr_InvalidFile
            default: kAudioUnitErr_FailedInitialization
            }
            throw statusError(status, error.message)
        }
    }

    /// Loads an instrument file: a SoundFont (`.sf2`, `.sf3`) gives its first melodic preset (bank 0,
    /// program 0). Other kinds (`.aupreset`, `.exs`, `.dls`, audio files) throw
    /// `kAudioUnitErr_UnknownFileType`: no Linux loader here.
    open func loadInstrument(at instrumentURL: URL) throws {
        let kind = instrumentURL.pathExtension.lowercased()
        guard kind == "sf2" || kind == "sf3" else {
            throw statusError(kAudioUnitErr_UnknownFileType,
                "cannot load '\(instrumentURL.path)': the sampler on Linux loads SoundFonts (.sf2, .sf3), not .\(kind) files; "
                + "convert the instrument to a SoundFont")
        }
        try loadSoundBankInstrument(at: instrumentURL, program: 0, bankMSB: UInt8(kAUSampler_DefaultMelodicBankMSB),
                                    bankLSB: UInt8(kAUSampler_DefaultBankLSB))
    }

    /// Apple's sampler makes an instrument of audio files; not here: throws `kAudioUnitErr_UnknownFileType`.
    open func loadAudioFiles(at audioFiles: [URL]) throws {
        throw statusError(kAudioUnitErr_UnknownFileType,
            "cannot load \(audioFiles.count) audio files as an instrument: the sampler on Linux loads SoundFonts (.sf2); "
            + "make a SoundFont of them (e.g. with Polyphone) and load it with loadSoundBankInstrument")
    }

    /// The balance, −100…100 (clamped; NaN ignored). Default 0.
    open var stereoPan: Float {
        get { sampler.stereoPan }
        set { sampler.stereoPan = newValue }
    }

    /// The output's gain, −90…12 dB (clamped; NaN ignored). Default 0. (Apple's newer name for `masterGain`.)
    open var overallGain: Float {
        get { sampler.masterGain }
        set { sampler.masterGain = newValue }
    }

    /// The output's gain, −90…12 dB (clamped; NaN ignored). Default 0. (Deprecated on Apple's systems for
    /// `overallGain`; the same value.)
    open var masterGain: Float {
        get { sampler.masterGain }
        set { sampler.masterGain = newValue }
    }

    /// Tuning, −2 400…2 400 cents (clamped; NaN ignored), notes sounding included. Default 0.
    open var globalTuning: Float {
        get { sampler.globalTuning }
        set { sampler.globalTuning = newValue }
    }
}
