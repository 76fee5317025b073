// `record`'s take-sheet options: what each file's bext and iXML chunks say, checked before anything starts.
import ArgumentParser
import Glibc
import RecorderKit

struct TakeSheetOptions: ParsableArguments {
    @Option(name: .customLong("description"), help: ArgumentHelp("WAV and RF64: the Description in each file's bext chunk (at most 256 bytes).", valueName: "text"))
    var bextDescription: String?

    @Flag(name: .customLong("no-bext"), help: "WAV and RF64: no bext chunk (Broadcast Wave: who made the file, the date, time and time reference of its first frame, its loudness).")
    var noBext = false

    @Flag(name: .customLong("no-ixml"), help: "WAV, RF64, AIFF and CAF: no iXML chunk (the take sheet: project, scene, take, tape, note, tracks, time stamp).")
    var noIXML = false

    @Option(help: ArgumentHelp("iXML: the production.", valueName: "name"))
    var project: String?

    @Option(help: ArgumentHelp("iXML: the scene or slate, e.g. 32A.", valueName: "name"))
    var scene: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("iXML: the take number (default with --scene: one after the highest take of that scene among the files in OUTPUT's folder).", valueName: "n"))
    var take: Int?

    @Option(help: ArgumentHelp("iXML: the sound roll.", valueName: "name"))
    var tape: String?

    @Option(help: ArgumentHelp("iXML: a note on the take.", valueName: "text"))
    var note: String?

    @Option(name: .customLong("track-name"), help: ArgumentHelp("iXML: the next channel's name (give it once per channel, in order), e.g. --track-name Boom --track-name Lav.", valueName: "name"))
    var trackNames: [String] = []

    @Flag(name: .customLong("wild-track"), help: "iXML: sound recorded without picture.")
    var wildTrack = false

    @Flag(help: "At the end, write the take's loudness into its files: ReplayGain 2.0 in FLAC, Ogg Vorbis and MP3, R128 gains in Opus (WAV and RF64 hold theirs in bext anyway).")
    var tag = false

    /// The iXML options given, by name.
    private var ixmlOptionsGiven: [String] {
        [(project, "--project"), (scene, "--scene"), (take.map(String.init), "--take"), (tape, "--tape"), (note, "--note"),
         (trackNames.first, "--track-name"), (wildTrack ? "" : nil, "--wild-track")].compactMap { $0.0 == nil ? nil : $0.1 }
    }

    /// One line for what cannot be written: options for a chunk left out or a container without it, a
    /// take below 1, a name for a channel not recorded, text longer than the field holds.
    func validate(container: FileType?, channels: Int) throws {
        if let bextDescription {
            if noBext || (container != nil && container != .wav && container != .rf64) {
                throw ValidationError("--description goes into the bext chunk of a WAV or RF64 file: "
                    + (noBext ? "leave out --no-bext" : "record into .wav or .rf64, or leave it out"))
            }
            if bextDescription.utf8.count > 256 {
                throw ValidationError("--description is \(bextDescription.utf8.count) bytes; a bext Description holds 256: shorten it")
            }
        }
        if let first = ixmlOptionsGiven.first {
            let holders: [FileType] = [.wav, .rf64, .aiff, .caf]
            if noIXML || (container != nil && !holders.contains(container!)) {
                throw ValidationError("\(first) goes into the iXML chunk of a WAV, RF64, AIFF or CAF file: "
                    + (noIXML ? "leave out --no-ixml" : "record into one of those, or leave it out"))
            }
        }
        if tag {
            if let container, !LoudnessTags.taggedTypes.contains(container) {
                throw ValidationError("--tag writes loudness into FLAC, Ogg Vorbis, Opus, MP3, WAV or RF64 files: record into one of those, or leave it out")
            }
            if noBext && (container == .wav || container == .rf64) {
                throw ValidationError("--tag keeps a WAV's loudness in its bext chunk: leave out --no-bext")
            }
        }
        if let take, take < 1 {
            throw ValidationError("invalid --take \(take): takes count from 1")
        }
        if trackNames.count > channels {
            throw ValidationError("--track-name given \(trackNames.count) times for \(channels) channel\(channels == 1 ? "" : "s"): "
                + "name each channel recorded once, in order")
        }
        for (text, name) in [(project, "--project"), (scene, "--scene"), (tape, "--tape"), (note, "--note")] + trackNames.map({ ($0, "--track-name") }) {
            // Counted as stored: XML's escapes make `&` five bytes, so 1 000 of them take 5 000.
            if let text, RecordingMetadata.storedByteCount(of: text) > RecordingMetadata.maxFieldBytes {
                let stored = RecordingMetadata.storedByteCount(of: text)
                throw ValidationError("\(name) is \(stored) bytes as the iXML chunk stores it (& < > \" ' escaped); "
                    + "an iXML field here holds \(RecordingMetadata.maxFieldBytes): shorten it")
            }
        }
    }

    /// The recording's metadata; with a scene and no take, the next take in `output`'s folder.
    func metadata(output: String) -> RecordingMetadata {
        let folder = output.contains("/") ? String(output[..<output.lastIndex(of: "/")!]) : "."
        let nextTake = take ?? scene.map { RecordingMetadata.nextTake(scene: $0, in: folder.isEmpty ? "/" : folder) }
        return RecordingMetadata(broadcastExtension: !noBext, description: bextDescription ?? "", ixml: !noIXML,
                                 project: project ?? "", scene: scene ?? "", take: nextTake, tape: tape ?? "",
                                 note: note ?? "", wildTrack: wildTrack, trackNames: trackNames)
    }
}
