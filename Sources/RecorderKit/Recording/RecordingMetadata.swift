// What a recording writes into its files besides the audio: the bext chunk's text and the iXML take sheet,
// and the markers that say where the recording lost audio.

/// What a recording writes into its files besides the audio (`Recorder.metadata`).
public struct RecordingMetadata: Sendable, Hashable {
    /// Write a bext chunk (Broadcast Wave, EBU Tech 3285 version 2; see `BroadcastInfo`) into every WAV
    /// and RF64 file of a recording, each file its own: who made it, the wall-clock date and time of its
    /// first frame and `timeReference` (frames since local midnight; a pre-roll's first frame for a file
    /// that begins with one), and, when the file is closed, the loudness of what it holds, measured as it
    /// is written (a file cut short keeps the chunk with its loudness not set). True by default; other
    /// containers have no place for it.
    public var broadcastExtension: Bool
    /// The bext Description (at most 256 bytes).
    public var description: String
    /// The bext Originator (at most 32 bytes).
    public var originator: String

    /// Write an iXML chunk (iXML 2.10, the take sheet field recorders write and editors conform a shoot
    /// by) into every WAV, RF64, AIFF and CAF file: the fields below, the file's sample rate, bit depth
    /// and time stamp (as bext's `timeReference`), a track per channel, the recording's set of files
    /// (`FILE_SET`: a split recording's files share a family id and count A, B, …) and the pre-roll's
    /// frames at the file's start (`PRE_RECORD_SAMPLECOUNT`). Its room is made before the audio; it is
    /// filled when the file is closed (a file cut short keeps what was known when it was created), with
    /// the fields as they stand then: set `metadata` during the recording to circle a take. True by
    /// default. Text fields are cut to 4 096 bytes between characters, control characters but tab and
    /// line feed written as spaces.
    public var ixml: Bool
    /// iXML PROJECT: the production.
    public var project: String
    /// iXML SCENE: the scene or slate, e.g. "32A".
    public var scene: String
    /// iXML TAKE, 1 or more (nil, or a number below 1: none written). `nextTake(scene:in:)` finds the
    /// next one in a folder.
    public var take: Int?
    /// iXML TAPE: the sound roll.
    public var tape: String
    /// iXML NOTE.
    public var note: String
    /// iXML CIRCLED: a take to print.
    public var circled: Bool
    /// iXML NO_GOOD.
    public var noGood: Bool
    /// iXML FALSE_START.
    public var falseStart: Bool
    /// iXML WILD_TRACK: sound without picture.
    public var wildTrack: Bool
    /// Per channel, in order: the track's NAME (e.g. "Boom", "Lav 1"); channels beyond the list are
    /// unnamed, names beyond the channels unused.
    public var trackNames: [String]
    /// Per channel: the track's FUNCTION (e.g. "L", "R", "M"), as `trackNames`.
    public var trackFunctions: [String]

    /// Metadata with the fields given (by default: both chunks, no text, nothing circled).
    public init(broadcastExtension: Bool = true, description: String = "", originator: String = "recorder",
                ixml: Bool = true, project: String = "", scene: String = "", take: Int? = nil, tape: String = "",
                note: String = "", circled: Bool = false, noGood: Bool = false, falseStart: Bool = false,
                wildTrack: Bool = false, trackNames: [String] = [], trackFunctions: [String] = []) {
        self.broadcastExtension = broadcastExtension
        self.description = description
        self.originator = originator
        self.ixml = ixml
        self.project = project
        self.scene = scene
        self.take = take
        self.tape = tape
        self.note = note
        self.circled = circled
        self.noGood = noGood
        self.falseStart = falseStart
        self.wildTrack = wildTrack
        self.trackNames = trackNames
        self.trackFunctions = trackFunctions
    }

    /// A file's first bext chunk, for a recording whose files have one, with `firstFrameTime` (an
    /// estimate: the time is set again at the file's first frame).
    func broadcastInfo(firstFrameTime: Double, sampleRate: Int) -> BroadcastInfo? {
        broadcastExtension
            ? BroadcastInfo(description: description, originator: originator, firstFrameTime: firstFrameTime, sampleRate: sampleRate)
            : nil
    }

    /// A file's iXML document, for a recording whose files have one.
    func ixmlDocument(_ facts: IXMLFacts) -> String? { ixml ? IXMLChunk.document(self, facts) : nil }
}

/// The wall-clock time of a recorder frame: one frame's time, the others counted from it at the
/// sample rate.
struct FrameClock: Sendable {
    let frame: Int64
    let seconds: Double
    let sampleRate: Int

    func seconds(at other: Int64) -> Double { seconds + Double(other - frame) / Double(max(1, sampleRate)) }
}

extension RecordingGap {
    /// The label of the marker a file gets where the gap begins, e.g. "gap 1.148 s: the system did not
    /// keep up", or for a loss found late "gap 0.512 s in mic: the system did not keep up (found late: went
    /// missing up to 4.250 s before)".
    var markerLabel: String {
        let why = switch reason {
        case .dropped: "the system did not keep up"
        case .serverLost: "the server was lost"
        case .suspended: "the source was suspended"
        case .systemSleep: "the machine slept"
        }
        func seconds(_ frames: Int64) -> String {
            let milliseconds = Int64((Double(frames) / Double(max(1, sampleRate)) * 1_000).rounded())
            let fraction = String(milliseconds % 1_000)
            return "\(milliseconds / 1_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s"
        }
        return "gap \(seconds(frameCount))" + (source.map { " in \($0)" } ?? "") + ": \(why)"
            + (foundLate > 0 ? " (found late: went missing up to \(seconds(foundLate)) before)" : "")
    }
}
