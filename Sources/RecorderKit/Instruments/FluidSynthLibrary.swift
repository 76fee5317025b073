// FluidSynth's C functions the sampler calls, looked up in libfluidsynth when a sampler first loads a
// SoundFont (a program that never plays one never maps FluidSynth), and its log kept off the terminal.
import Glibc
import Locking

/// FluidSynth (LGPL-2.1, `libfluidsynth.so.3`, dynamically loaded): the functions `GraphSampler` uses.
/// Its log is routed here (FluidSynth prints to stderr by default; the library never prints): the last
/// error is kept for the error a failed load throws.
///
/// Any thread: FluidSynth's synth calls lock the synth themselves (its `synth.threadsafe-api`).
struct FluidSynthLibrary: @unchecked Sendable {
    // @unchecked Sendable: immutable C function pointers.
    typealias Settings = OpaquePointer
    typealias Synth = OpaquePointer
    let newSettings: @convention(c) () -> Settings?
    let deleteSettings: @convention(c) (Settings) -> Void
    let setNumber: @convention(c) (Settings, UnsafePointer<CChar>, Double) -> Int32
    let setInteger: @convention(c) (Settings, UnsafePointer<CChar>, Int32) -> Int32
    let newSynth: @convention(c) (Settings) -> Synth?
    let deleteSynth: @convention(c) (Synth) -> Void
    let soundFontLoad: @convention(c) (Synth, UnsafePointer<CChar>, Int32) -> Int32
    let soundFontByID: @convention(c) (Synth, Int32) -> OpaquePointer?
    let soundFontPreset: @convention(c) (OpaquePointer, Int32, Int32) -> OpaquePointer?
    let programSelect: @convention(c) (Synth, Int32, Int32, Int32, Int32) -> Int32
    let noteOn: @convention(c) (Synth, Int32, Int32, Int32) -> Int32
    let noteOff: @convention(c) (Synth, Int32, Int32) -> Int32
    let controlChange: @convention(c) (Synth, Int32, Int32, Int32) -> Int32
    let pitchBend: @convention(c) (Synth, Int32, Int32) -> Int32
    let programChange: @convention(c) (Synth, Int32, Int32) -> Int32
    let bankSelect: @convention(c) (Synth, Int32, Int32) -> Int32
    let channelPressure: @convention(c) (Synth, Int32, Int32) -> Int32
    let keyPressure: @convention(c) (Synth, Int32, Int32, Int32) -> Int32
    let setGenerator: @convention(c) (Synth, Int32, Int32, Float) -> Int32
    let allNotesOff: @convention(c) (Synth, Int32) -> Int32
    let writeFloat: @convention(c) (Synth, Int32, UnsafeMutableRawPointer, Int32, Int32, UnsafeMutableRawPointer, Int32, Int32) -> Int32

    typealias LogFunction = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void
    private static let library = LazyLibrary(["libfluidsynth.so.3", "libfluidsynth.so"], what: "FluidSynth (libfluidsynth.so.3)")
    /// FluidSynth's last error or warning (its log, kept here).
    static let lastMessage = Locked("")

    /// The library, loaded once (its log routed here then); the reason it cannot be had is thrown.
    static func loaded() throws(RecorderError) -> FluidSynthLibrary { try loadedOnce.get() }

    private static let loadedOnce: Result<FluidSynthLibrary, RecorderError> = {
        do throws(RecorderError) { return .success(try FluidSynthLibrary(library)) } catch { return .failure(error) }
    }()

    private init(_ library: LazyLibrary) throws(RecorderError) {
        func f<T>(_ name: String, _ type: T.Type) throws(RecorderError) -> T { try library.function(name, as: type) }
        newSettings = try f("new_fluid_settings", (@convention(c) () -> Settings?).self)
        deleteSettings = try f("delete_fluid_settings", (@convention(c) (Settings) -> Void).self)
        setNumber = try f("fluid_settings_setnum", (@convention(c) (Settings, UnsafePointer<CChar>, Double) -> Int32).self)
        setInteger = try f("fluid_settings_setint", (@convention(c) (Settings, UnsafePointer<CChar>, Int32) -> Int32).self)
        newSynth = try f("new_fluid_synth", (@convention(c) (Settings) -> Synth?).self)
        deleteSynth = try f("delete_fluid_synth", (@convention(c) (Synth) -> Void).self)
        soundFontLoad = try f("fluid_synth_sfload", (@convention(c) (Synth, UnsafePointer<CChar>, Int32) -> Int32).self)
        soundFontByID = try f("fluid_synth_get_sfont_by_id", (@convention(c) (Synth, Int32) -> OpaquePointer?).self)
        soundFontPreset = try f("fluid_sfont_get_preset", (@convention(c) (OpaquePointer, Int32, Int32) -> OpaquePointer?).self)
        programSelect = try f("fluid_synth_program_select", (@convention(c) (Synth, Int32, Int32, Int32, Int32) -> Int32).self)
        noteOn = try f("fluid_synth_noteon", (@convention(c) (Synth, Int32, Int32, Int32) -> Int32).self)
        noteOff = try f("fluid_synth_noteoff", (@convention(c) (Synth, Int32, Int32) -> Int32).self)
        controlChange = try f("fluid_synth_cc", (@convention(c) (Synth, Int32, Int32, Int32) -> Int32).self)
        pitchBend = try f("fluid_synth_pitch_bend", (@convention(c) (Synth, Int32, Int32) -> Int32).self)
        programChange = try f("fluid_synth_program_change", (@convention(c) (Synth, Int32, Int32) -> Int32).self)
        bankSelect = try f("fluid_synth_bank_select", (@convention(c) (Synth, Int32, Int32) -> Int32).self)
        channelPressure = try f("fluid_synth_channel_pressure", (@convention(c) (Synth, Int32, Int32) -> Int32).self)
        keyPressure = try f("fluid_synth_key_pressure", (@convention(c) (Synth, Int32, Int32, Int32) -> Int32).self)
        setGenerator = try f("fluid_synth_set_gen", (@convention(c) (Synth, Int32, Int32, Float) -> Int32).self)
        allNotesOff = try f("fluid_synth_all_notes_off", (@convention(c) (Synth, Int32) -> Int32).self)
        writeFloat = try f("fluid_synth_write_float",
            (@convention(c) (Synth, Int32, UnsafeMutableRawPointer, Int32, Int32, UnsafeMutableRawPointer, Int32, Int32) -> Int32).self)
        let setLog = try f("fluid_set_log_function",
            (@convention(c) (Int32, LogFunction?, UnsafeMutableRawPointer?) -> LogFunction?).self)
        // FLUID_PANIC, FLUID_ERR, FLUID_WARN, FLUID_INFO, FLUID_DBG: errors and warnings kept, the rest dropped.
        let keep: LogFunction = { level, message, _ in
            guard level <= 2, let message else { return }
            FluidSynthLibrary.lastMessage.withLock { $0 = String(cString: message) }
        }
        let drop: LogFunction = { _, _, _ in }
        for level in Int32(0)...4 { _ = setLog(level, level <= 2 ? keep : drop, nil) }
    }
}
