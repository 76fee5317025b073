// What the page asks of the take (record, stop, pause, marker, next take, circle, no good) and what it
// reads of it: the interface the command implements over its Recorder.

/// The take behind the page. The command implements it with the library's public API; the server only
/// calls it. Every method may be called from any task, several at once.
public protocol StudioControl: Sendable {
    /// The take's state now, a JSON object (the page's header: recording or not, elapsed time, the file,
    /// time left on the disk, losses, the take sheet).
    func state() -> String
    /// The capture sources the page may choose from, a JSON array.
    func sources() -> String
    /// Carries out `action`.
    func perform(_ action: StudioAction) async -> StudioReply
    /// Names of the files in the take folder being written now (never deleted).
    func busyFiles() -> Set<String>
}

/// A control of the page.
public enum StudioAction: Sendable, Hashable {
    /// Starts a take with these settings (`serve` only).
    case record(TakeSettings)
    /// Ends the take; its file is closed and valid.
    case stop
    /// Pauses, or resumes a paused take.
    case pause
    /// Drops a marker with this name (empty: "marker") at the take's current place.
    case marker(String)
    /// Ends the take and starts the next one with the same settings, the take number one higher.
    case nextTake
    /// Toggles the take's circled mark (iXML CIRCLED).
    case circle
    /// Toggles the take's no-good mark (iXML NO_GOOD).
    case noGood
}

/// What a take is recorded with: each field optional (the command's defaults then).
public struct TakeSettings: Sendable, Hashable, Decodable {
    /// The file's name in the take folder (its extension says the container); nil: one is made up.
    public var name: String?
    /// The source (index, name or description, as `-d`).
    public var source: String?
    /// The container (`wav`, `flac`, …), when `name` does not give one.
    public var type: String?
    /// Sample rate in Hz.
    public var rate: Int?
    /// Channels, 1 to 32.
    public var channels: Int?
    /// iXML PROJECT.
    public var project: String?
    /// iXML SCENE; also the file name's beginning when no name is given.
    public var scene: String?
    /// iXML TAKE (default: the next take of the scene in the folder).
    public var take: Int?
    /// iXML TAPE.
    public var tape: String?
    /// iXML NOTE.
    public var note: String?

    /// Settings with the given fields; nil ones take the command's defaults.
    public init(name: String? = nil, source: String? = nil, type: String? = nil, rate: Int? = nil, channels: Int? = nil,
                project: String? = nil, scene: String? = nil, take: Int? = nil, tape: String? = nil, note: String? = nil) {
        self.name = name
        self.source = source
        self.type = type
        self.rate = rate
        self.channels = channels
        self.project = project
        self.scene = scene
        self.take = take
        self.tape = tape
        self.note = note
    }
}

/// The outcome of an action: a JSON reply, or a refusal with its HTTP status and one line saying why.
public enum StudioReply: Sendable, Hashable {
    /// Carried out; the reply's JSON object.
    case done(String)
    /// Not carried out: an HTTP status and one line saying why and what to do.
    case refused(status: Int, reason: String)
}
