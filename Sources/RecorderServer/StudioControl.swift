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
    case record(TakeSettings)
    case stop
    /// Pauses, or resumes a paused take.
    case pause
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
    public var type: String?
    public var rate: Int?
    public var channels: Int?
    public var project: String?
    public var scene: String?
    public var take: Int?
    public var tape: String?
    public var note: String?

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
    case done(String)
    case refused(status: Int, reason: String)
}
