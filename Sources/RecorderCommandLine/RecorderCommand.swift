// The `recorder` command: record, meter and list sources (swift-argument-parser), with sysexits codes.
import ArgumentParser
import Dispatch
import Glibc
import RecorderKit

/// The command's root, run by `recorder`'s and `recorder-serve`'s `main`.
package struct RecorderCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "recorder",
        abstract: "Record audio from PulseAudio or PipeWire into AIFF, WAV, CAF, FLAC, AU, raw, W64, RF64, Ogg Vorbis, Opus or MP3 (or a pipe), and play files, with dBFS meters.",
        discussion: """
            Exit status: 0 success (also a stop by Ctrl-C, SIGTERM, SIGHUP or SIGQUIT); 64 usage error (also a \
            normalize target the true-peak ceiling forbids); 65 a file analyze --tag cannot tag (silent, or a WAV \
            without bext); 66 a file to analyze or play cannot be read; 69 server, source or sink unavailable; \
            73 cannot create the output file (or write the file to tag); 74 I/O error while recording (the file is \
            still finalized) or playing or tagging, or standard output failed (closed, full, or its reader left); \
            1 anything else.
            """,
        version: "0.1.0",
        subcommands: [Record.self, Meter.self, Play.self, Sources.self, Sinks.self, Analyze.self, Peaks.self, Normalize.self, Serve.self])

    package init() {}

    /// The entry point of `recorder` and `recorder-serve`, called once from their `main.swift`, whose
    /// top-level code is synchronous so that this runs before anything opens a descriptor: libdispatch's
    /// first eventfd (made for the main queue when top-level code is async) would otherwise take a closed
    /// standard output's number, and the audio of `record - >&-` would go into it.
    package static func start() -> Never {
        // A closed stdout/stderr must not be reused by the recording.
        guardStandardDescriptors()
        // `serve` and `record --serve` are recorder-serve's: become it now, before any thread starts.
        Companion.becomePageIfAsked()
        Task.detached { await runCommand() }
        dispatchMain()
    }

    /// Like the default entry point, but a usage error is one line on stderr (what went wrong and where
    /// to look), and errors already reported by `fail` just set the exit status. Ends the process.
    private static func runCommand() async {
        // First: the stop signals blocked in every thread to come.
        let subcommand = CommandLine.argc > 1 ? CommandLine.unsafeArgv[1].map { String(cString: $0) } : nil
        StopRequests.shared.install(stopStatus: ["record", "meter", "play", "serve"].contains(subcommand ?? "") ? 0 : nil)
        // swift-argument-parser sees arguments as Strings, which would quietly repair bytes that are not
        // UTF-8 into U+FFFD: a file would be created under another name. Refuse instead.
        for index in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[index], String(validatingCString: raw) == nil else { continue }
            let bytes = Array(UnsafeRawBufferPointer(start: raw, count: strlen(raw)))
            writeError("recorder: argument \(index) ('\(visibleBytes(bytes))') "
                       + "is not valid UTF-8; use a UTF-8 file or source name (see 'recorder --help')\n")
            Glibc.exit(ExitStatus.usage)
        }
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let status as ExitCode {
            exitReportingOutput(status.rawValue)
        } catch {
            let status = exitCode(for: error)
            if status == .success {  // --help, --version: on stdout, and a failed write is an error
                writeOutput(fullMessage(for: error) + "\n")
                exitReportingOutput(0)
            }
            let message = fullMessage(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            let text = message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message
            writeLine("recorder: \(text) (see 'recorder --help')")
            exitReportingOutput(status.rawValue)
        }
        exitReportingOutput(0)
    }
}

/// Ends the process with `status`, or 74 if standard output failed (said once on stderr), after
/// queued output has been written (at most a second: a reader that stopped reading does not hold the
/// exit).
func exitReportingOutput(_ status: Int32) -> Never {
    KeyReader.restoreTerminal()
    let outputStatus = finishOutput()
    Glibc.exit(status == 0 ? outputStatus ?? 0 : status)
}

/// sysexits-style exit statuses.
package enum ExitStatus {
    package static let usage: Int32 = 64
    package static let dataError: Int32 = 65
    package static let unavailable: Int32 = 69
    package static let noInput: Int32 = 66
    package static let cannotCreate: Int32 = 73
    package static let ioError: Int32 = 74
    package static let other: Int32 = 1

    package static func status(for error: RecorderError) -> Int32 {
        switch error.code {
        case .invalidFormat, .unsupportedFileType, .loudnessUnreachable: return usage
        case .serverUnreachable, .sourceNotFound, .sinkNotFound: return unavailable
        case .fileExists, .fileInUse, .cannotCreateFile: return cannotCreate
        case .cannotReadFile: return noInput
        case .writeFailed, .streamFailed, .readFailed: return ioError
        default: return other
        }
    }
}

/// Prints `recorder: MESSAGE` on stderr and exits with the error's status.
package func fail(_ error: RecorderError, hint: String? = nil) -> ExitCode {
    writeLine("recorder: \(error.message)\(hint.map { " (\($0))" } ?? "")")
    return ExitCode(ExitStatus.status(for: error))
}

/// What `record` and `meter` share: where to capture from, in which format, for how long.
///
/// Every numeric option of every command is parsed `.unconditional`: "--volume -0.5" and "--duration -1"
/// are numbers to validate (one line saying what to give), not a missing value followed by an option.
package struct CaptureOptions: ParsableArguments {
    package init() {}

    @Option(name: [.customLong("source"), .customShort("d"), .customLong("device")], help: ArgumentHelp(
        "Capture source: its name, its index, or its description (exact, or a unique beginning; any case). Default: the server's default source; see `recorder sources`. -d/--device as parecord calls it. Repeat it for several sources in one take: their channels one after another, aligned, each kept on the first source's clock.",
        valueName: "source"))
    package var sources: [String] = []

    @Flag(name: .customLong("no-drift-correction"), help: "Several sources: record each as captured (placed at its start, not resampled to the first source's clock); its drift is still measured and reported.")
    var noDriftCorrection = false

    @OptionGroup package var connection: ServerOption

    @Option(parsing: .unconditional, help: "Stop after exactly this many seconds (rounded to whole frames).")
    var duration: Double?

    @Option(name: [.customLong("rate"), .customShort("r")], parsing: .unconditional, help: ArgumentHelp(
        "Sample rate in Hz (the server converts). Default: 44100, or 48000 for Opus, which holds 8, 12, 16, 24 and 48 kHz only.",
        valueName: "rate"))
    var givenRate: Int?

    /// The rate asked for, or the default (`record` puts an Opus take's default, 48000, in `givenRate`).
    package var rate: Int { givenRate ?? 44_100 }

    @Option(name: [.customLong("channels"), .customShort("c")], parsing: .unconditional,
            help: "Channel count, 1 to 32 (several sources: from each; default, each source's own).")
    var givenChannels: Int?

    /// The channels asked for, or one.
    package var channels: Int { givenChannels ?? 1 }

    @Option(name: [.customLong("format"), .customShort("f")], help: ArgumentHelp(
        "Sample format the server delivers and the file holds: s16, s24, s32 or float (parecord's s24le, arecord's S24_3LE… name the same depths; the container sets the byte order).",
        valueName: "format"))
    package var sampleFormat: SampleFormat = .int16

    @Flag(help: "If the server or source goes away, wait for it (see --reconnect-timeout) and go on in the same file, writing the gap as silence.")
    package var reconnect = false

    @Option(name: .customLong("reconnect-timeout"), parsing: .unconditional, help: "Seconds --reconnect waits for the server or source to come back.")
    package var reconnectTimeout: Double = 60

    @Option(name: .customLong("queue-limit"), parsing: .unconditional, help: ArgumentHelp(
        "Seconds of audio the server may hold for the recorder while it cannot read (a stopped process, a stalled disk), 0.4 to 3600; past it, audio is lost, counted, reported and replaced by silence. Default: the server's maximum (4 MiB on PulseAudio: 47 s of 44.1 kHz mono).",
        valueName: "seconds"))
    package var queueLimit: Double?

    package func validate() throws {
        let queueLimits = Recorder.queueDurationRange()
        if let queueLimit, !(queueLimit.isFinite && queueLimits.contains(queueLimit)) {
            throw ValidationError("invalid --queue-limit \(queueLimit): use \(queueLimits.lowerBound) to \(Int(queueLimits.upperBound)) seconds")
        }
        if let duration {
            let format = try? StreamFormat(sampleRate: rate, channelCount: 1)
            let frames = format?.frames(seconds: duration)
            if let format, frames == nil {
                throw ValidationError("invalid duration \(duration): use 0 to \(Int64(format.maxSeconds)) seconds at \(rate) Hz")
            }
            if frames == 0 && duration > 0 {
                throw ValidationError("invalid duration \(duration): shorter than one frame at \(rate) Hz; use 0 or at least 1/\(rate) s")
            }
        }
        if !(reconnectTimeout.isFinite && reconnectTimeout >= 0) {
            throw ValidationError("invalid reconnect timeout \(reconnectTimeout): use a finite number of seconds, 0 or more")
        }
        do {
            _ = try StreamFormat(sampleRate: rate, channelCount: channels, sampleFormat: sampleFormat)
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// `duration` in frames at `rate`.
    var frameLimit: Int64? {
        duration.flatMap { try? StreamFormat(sampleRate: rate, channelCount: 1).frames(seconds: $0) }
    }

    /// Connects and starts capturing, or reports the error and exits with its status.
    func startRecorder(maximumPreRoll: Double = 0) throws -> Recorder {
        var resolved: [String] = []
        for given in sources {
            if let name = try DeviceMatch.resolve(given, kind: "source", list: { () throws(RecorderError) in
                try Recorder.sources(server: connection.server)
            }) { resolved.append(name) }
        }
        if resolved.count > 1 {
            do {
                return try Recorder(sources: resolved, sampleRate: givenRate, sampleFormat: sampleFormat,
                                    channelsPerSource: givenChannels, server: connection.server,
                                    driftCorrection: !noDriftCorrection, maxQueueDuration: queueLimit,
                                    reconnectTimeout: reconnect ? reconnectTimeout : nil, maximumPreRoll: maximumPreRoll)
            } catch {
                throw fail(error)
            }
        }
        let source = resolved.first
        do {
            return try Recorder(format: try StreamFormat(sampleRate: rate, channelCount: channels, sampleFormat: sampleFormat),
                                source: source, server: connection.server,
                                maxQueueDuration: queueLimit,
                                reconnectTimeout: reconnect ? reconnectTimeout : nil,
                                maximumPreRoll: maximumPreRoll)
        } catch {
            throw fail(error)
        }
    }
}

extension MeterKind: ExpressibleByArgument {}

/// What the live readout draws and `--levels-json` adds (record and meter).
struct DisplayOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The meter to draw: peak (sample peak, 1.5 s hold, clip count; dBFS), vu (IEC 60268-17; VU), ppm1 or ppm2 (IEC 60268-10 type I on the DIN scale, type II in BBC marks), loudness (EBU R128 momentary, short-term, integrated LUFS, LRA, true peak). --levels-json adds its values. Default: average and peak dBFS.",
        valueName: "meter"))
    var meter: MeterKind?

    @Option(name: .customLong("loudness-target"), parsing: .unconditional, help: ArgumentHelp(
        "The loudness target in LUFS (-70 to 0), marked on the loudness scale. Default: -23 (EBU R128).", valueName: "LUFS"))
    var loudnessTarget: Double?

    /// The old spelling of --loudness-target (pw-record's --target is the device): still taken, with a warning.
    @Option(name: .customLong("target"), parsing: .unconditional, help: .hidden)
    var oldTarget: Double?

    /// The loudness target in LUFS.
    var target: Double { loudnessTarget ?? oldTarget ?? -23 }

    @Option(name: .customLong("vu-reference"), parsing: .unconditional, help: "The level in dBFS of a sine that reads 0 VU.")
    var vuReference: Double = -18

    func validate() throws {
        let spelling = loudnessTarget == nil && oldTarget != nil ? "--target" : "--loudness-target"
        if !(target.isFinite && target >= -70 && target <= 0) {
            throw ValidationError("invalid \(spelling) \(target): use a loudness between -70 and 0 LUFS, e.g. -23 (EBU R128) or -16")
        }
        if oldTarget != nil {
            writeError("recorder: warning: --target is now --loudness-target (pw-record's --target names the device); the old spelling will go\n")
        }
        if !MeterLimits.vuReference.contains(vuReference) {
            throw ValidationError("invalid --vu-reference \(vuReference): use a level between -60 and 0 dBFS, e.g. -18 (EBU) or -20 (SMPTE)")
        }
    }

    /// Refuses a meter that cannot run in the capture format (a VU or PPM meter below 8 kHz, loudness
    /// on more than 64 channels), before anything connects.
    func validate(with capture: CaptureOptions) throws {
        guard let meter, (try? StreamFormat(sampleRate: capture.rate, channelCount: capture.channels)) != nil else { return }
        do {
            _ = try StandardMeter(kind: meter, channelCount: capture.channels, sampleRate: capture.rate,
                                  options: MeterOptions(vuReference: vuReference))
        } catch {
            throw ValidationError("invalid --meter \(meter.rawValue): \(error.message)")
        }
    }

    /// The readings the live output needs: the selected meter's, or the peak meter's for the default
    /// view's held-peak marker.
    func readings(from recorder: Recorder) throws -> AsyncStream<MeterReading> {
        do {
            return try recorder.meterReadings(meter ?? .peak, options: MeterOptions(vuReference: vuReference))
        } catch {
            throw fail(error)
        }
    }

    /// The same for a player (the meter may not suit the file's rate: a one-line error then).
    func readings(from player: Player) throws(RecorderError) -> AsyncStream<MeterReading> {
        do {
            return try player.meterReadings(meter ?? .peak, options: MeterOptions(vuReference: vuReference))
        } catch {
            throw RecorderError(error.code, "cannot show --meter \(meter?.rawValue ?? "peak") for '\(player.path ?? "")': \(error.message)")
        }
    }
}

struct Sources: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the server's capture sources.",
        discussion: "Each line: the index, * for the default and m for a monitor, the name, the format, the description. `--source` takes any of the index, the name and the description.")

    @OptionGroup var list: DeviceListOptions

    func run() throws { try list.print { server throws(RecorderError) in try Recorder.sources(server: server) } }
}

struct Sinks: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the server's playback sinks.",
        discussion: "Each line: the index, * for the default, the name, the format, the description. `play --device` takes any of the index, the name and the description.")

    @OptionGroup var list: DeviceListOptions

    func run() throws { try list.print(monitors: false) { server throws(RecorderError) in try Player.sinks(server: server) } }
}

/// `--server`, the same on every command that connects.
package struct ServerOption: ParsableArguments {
    @Option(help: "Server address, e.g. unix:/run/user/1000/pulse/native (default: PULSE_SERVER or the usual lookup).")
    package var server: String?

    package init() {}
}

/// The options of `sources` and `sinks`, and the list they print.
struct DeviceListOptions: ParsableArguments {
    @OptionGroup package var connection: ServerOption

    @Flag(help: "One JSON object per device, one per line.")
    var json = false

    /// Prints the devices `list` finds on the server, a line each (with `monitors`, marking a source
    /// that monitors a sink with m, and saying so in the JSON).
    func print(monitors: Bool = true, _ list: (String?) throws(RecorderError) -> [DeviceInfo]) throws {
        let devices: [DeviceInfo]
        do {
            devices = try list(connection.server)
        } catch {
            throw fail(error)
        }
        for device in devices {
            if json {
                writeOutput("{\"channels\":\(device.channelCount),\"default\":\(device.isDefault),"
                      + "\"description\":\(jsonString(device.description)),\"index\":\(device.index),"
                      + (monitors ? "\"monitor\":\(device.isMonitor)," : "")
                      + "\"name\":\(jsonString(device.name)),\"sample_format\":\(jsonString(device.sampleFormat)),"
                      + "\"sample_rate\":\(device.sampleRate)}\n")
            } else {
                let marks = (device.isDefault ? "*" : " ") + (monitors ? (device.isMonitor ? "m" : " ") : "")
                writeOutput("\(padded(device.index)) \(marks) \(device.name)\t\(device.sampleFormat) \(device.channelCount)ch "
                            + "\(device.sampleRate)Hz\t\(device.description)\n")
            }
        }
    }
}

/// An index right-aligned in three columns, for the device lists.
private func padded(_ index: Int) -> String {
    let text = String(index)
    return String(repeating: " ", count: max(0, 3 - text.count)) + text
}

/// `-f s16|s24|s32|float`, and the spellings parecord (`s24le`, `float32le`) and arecord (`S24_3LE`,
/// `FLOAT_LE`) users type for the same depths, in any case: the container sets the byte order.
extension SampleFormat: ExpressibleByArgument {
    public init?(argument: String) {
        var name = argument.lowercased().filter { $0 != "_" }
        for suffix in ["le", "be", "ne"] where name.hasSuffix(suffix) && name.count > 3 {
            name.removeLast(2)
        }
        switch name {
        case "s16", "16": self = .int16
        case "s24", "s243", "24": self = .int24
        case "s32", "32": self = .int32
        case "float", "float32", "f32": self = .float32
        default: return nil
        }
    }

    public static var allValueStrings: [String] { allCases.map(\.rawValue) }

    public var defaultValueDescription: String { rawValue }
}
