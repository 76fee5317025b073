// espeak-ng's C functions speech calls, looked up in libespeak-ng.so.1 the first time something is spoken
// (a program that never speaks never maps it), and the layouts of its event and voice structures.
import Glibc

/// espeak-ng (GPL-3.0, `libespeak-ng.so.1` from Debian's libespeak-ng1; loaded, never linked): the
/// functions `Speech` uses. espeak-ng keeps one synthesizer per process, so every call is made under
/// `Speech`'s lock.
struct EspeakLibrary: @unchecked Sendable {
    // @unchecked Sendable: immutable C function pointers.
    /// `int (short *wav, int numsamples, espeak_EVENT *events)`: 0 to go on.
    typealias SynthCallback = @convention(c) (UnsafeMutablePointer<Int16>?, Int32, UnsafeMutableRawPointer?) -> Int32
    let initialize: @convention(c) (Int32, Int32, UnsafePointer<CChar>?, Int32) -> Int32
    let setSynthCallback: @convention(c) (SynthCallback?) -> Void
    let synth: @convention(c) (UnsafeRawPointer, Int, UInt32, Int32, UInt32, UInt32, UnsafeMutablePointer<UInt32>?,
                               UnsafeMutableRawPointer?) -> Int32
    let setVoiceByName: @convention(c) (UnsafePointer<CChar>) -> Int32
    let setParameter: @convention(c) (Int32, Int32, Int32) -> Int32
    let listVoices: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutablePointer<UnsafeRawPointer?>?

    // speak_lib.h's values.
    static let synchronousOutput: Int32 = 2  // AUDIO_OUTPUT_SYNCHRONOUS: the callback gets the audio as made
    static let dontExit: Int32 = 0x8000       // espeakINITIALIZE_DONT_EXIT: report a missing voice, not exit()
    static let charactersUTF8: UInt32 = 1     // espeakCHARS_UTF8
    static let byCharacter: Int32 = 1         // POS_CHARACTER
    static let rate: Int32 = 1, volume: Int32 = 2, pitch: Int32 = 3  // espeak_PARAMETER
    static let wordEvent: Int32 = 1, listEnd: Int32 = 0              // espeak_EVENT_TYPE

    /// espeak_EVENT: type, identifier, text position (characters, from 1), length, audio position (ms),
    /// sample, user data at 24, the id union at 32; 40 bytes.
    enum Event {
        static let size = 40
        static let textPosition = 8, length = 12, audioPosition = 16
    }

    /// espeak_VOICE: name, languages (priority byte, name, NUL; … NUL), identifier, gender at 24 (0 none,
    /// 1 male, 2 female).
    enum Voice {
        static let name = 0, languages = 8, identifier = 16, gender = 24
    }

    private static let library = LazyLibrary(["libespeak-ng.so.1", "libespeak-ng.so"],
                                              what: "espeak-ng (libespeak-ng.so.1)", debian: "libespeak-ng1")

    /// The library, loaded once; the reason it cannot be had is thrown.
    static func loaded() throws(RecorderError) -> EspeakLibrary { try loadedOnce.get() }

    private static let loadedOnce: Result<EspeakLibrary, RecorderError> = {
        do throws(RecorderError) { return .success(try EspeakLibrary(library)) } catch { return .failure(error) }
    }()

    private init(_ library: LazyLibrary) throws(RecorderError) {
        initialize = try library.function("espeak_Initialize")
        setSynthCallback = try library.function("espeak_SetSynthCallback")
        synth = try library.function("espeak_Synth")
        setVoiceByName = try library.function("espeak_SetVoiceByName")
        setParameter = try library.function("espeak_SetParameter")
        listVoices = try library.function("espeak_ListVoices")
    }
}
