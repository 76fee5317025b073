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

    typealias Player = OpaquePointer
    let newPlayer: @convention(c) (Synth) -> Player?
    let deletePlayer: @convention(c) (Player) -> Void
    let playerAddMemory: @convention(c) (Player, UnsafeRawPointer, Int) -> Int32
    let playerPlay: @convention(c) (Player) -> Int32
    let playerStop: @convention(c) (Player) -> Int32
    let playerStatus: @convention(c) (Player) -> Int32
    let playerSeek: @convention(c) (Player, Int32) -> Int32
    let playerCurrentTick: @convention(c) (Player) -> Int32
    let playerSetTempo: @convention(c) (Player, Int32, Double) -> Int32
    let systemReset: @convention(c) (Synth) -> Int32
    /// fluid_player_status: FLUID_PLAYER_READY, _PLAYING, _STOPPING, _DONE.
    static let playerPlaying: Int32 = 1, playerDone: Int32 = 3
    /// FLUID_PLAYER_TEMPO_INTERNAL: the file's own tempo, times a multiplier.
    static let tempoInternal: Int32 = 0

    typealias LogFunction = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void
    private static let library = LazyLibrary(["libfluidsynth.so.3", "libfluidsynth.so"], what: "FluidSynth (libfluidsynth.so.3)", debian: "libfluidsynth3")
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
        newPlayer = try f("new_fluid_player", (@convention(c) (Synth) -> Player?).self)
        deletePlayer = try f("delete_fluid_player", (@convention(c) (Player) -> Void).self)
        playerAddMemory = try f("fluid_player_add_mem", (@convention(c) (Player, UnsafeRawPointer, Int) -> Int32).self)
        playerPlay = try f("fluid_player_play", (@convention(c) (Player) -> Int32).self)
        playerStop = try f("fluid_player_stop", (@convention(c) (Player) -> Int32).self)
        playerStatus = try f("fluid_player_get_status", (@convention(c) (Player) -> Int32).self)
        playerSeek = try f("fluid_player_seek", (@convention(c) (Player, Int32) -> Int32).self)
        playerCurrentTick = try f("fluid_player_get_current_tick", (@convention(c) (Player) -> Int32).self)
        playerSetTempo = try f("fluid_player_set_tempo", (@convention(c) (Player, Int32, Double) -> Int32).self)
        systemReset = try f("fluid_synth_system_reset", (@convention(c) (Synth) -> Int32).self)
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
    /// A synthesiser at `rate` with FluidSynth's own reverb and chorus off (effects are the graph's nodes),
    /// one core, its API locking itself; its settings with it (delete both, the synth first).
    /// - Throws: `.invalidFormat` for a rate FluidSynth does not play; `.invalidState` when it cannot make them.
    func makeSynth(rate: Int) throws(RecorderError) -> (Settings, Synth) {
        guard let settings = newSettings() else {
            throw RecorderError(.invalidState, "FluidSynth could not make its settings (out of memory?); try again")
        }
        // FluidSynth takes 8 kHz … 96 kHz; the graph's rate outside that is refused here, not silently changed.
        guard setNumber(settings, "synth.sample-rate", Double(rate)) == 0 else {
            deleteSettings(settings)
            throw RecorderError(.invalidFormat, "FluidSynth cannot play at \(rate) Hz (it plays at 8 000 to 96 000 Hz); "
                                + "run the graph at a rate in that range")
        }
        _ = setInteger(settings, "synth.reverb.active", 0)
        _ = setInteger(settings, "synth.chorus.active", 0)
        _ = setInteger(settings, "synth.cpu-cores", 1)
        _ = setInteger(settings, "synth.threadsafe-api", 1)
        guard let synth = newSynth(settings) else {
            deleteSettings(settings)
            throw RecorderError(.invalidState, "FluidSynth could not make a synthesiser (out of memory?); try again")
        }
        return (settings, synth)
    }

    /// Refuses what FluidSynth should not be handed as a SoundFont: an unreadable path, or anything but a
    /// regular file (FluidSynth would wait forever on a FIFO's writer, and read a device as it comes).
    static func checkSoundFont(_ path: String) throws(RecorderError) {
        guard access(path, R_OK) == 0 else {
            let reason = String(cString: strerror(errno))
            throw RecorderError(.cannotReadFile, "cannot load the SoundFont '\(path)': \(reason); give the path of a readable .sf2 file "
                                + "(Debian's fluid-soundfont-gm installs /usr/share/sounds/sf2/FluidR3_GM.sf2)")
        }
        // FluidSynth would wait forever on a FIFO's writer (and read a device or a socket as it comes):
        // only a regular file is handed to it.
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw RecorderError(.invalidFormat, "cannot load the SoundFont '\(path)': not a regular file (a folder, FIFO, socket "
                                + "or device); give the path of a .sf2 file")
        }
    }
}
