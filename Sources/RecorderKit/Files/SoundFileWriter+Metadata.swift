// What a file says of itself set again while it is written: a WAV or RF64 file's bext chunk (its time
// stamp before the first frame, its loudness at the end), and the iXML document written at its close.
import CSndFile

extension SoundFileWriter {
    /// Sets the file's bext chunk (see `BroadcastInfo`); the header is rewritten with it at once, so a
    /// file cut short keeps what was last set. Only a file that was given one at its creation has one:
    /// the chunk's place before the audio is made then. Its coding history stays what was first set
    /// (the chunk keeps its size, so the audio never moves); every other field may change at any
    /// time. Returns false, changing nothing, for a file without a bext chunk or one that is closed.
    /// From the thread that writes the file.
    @discardableResult
    public func setBroadcastInfo(_ info: BroadcastInfo) -> Bool {
        guard let file, let current = broadcastInfo else { return false }
        var info = info
        info.codingHistory = current.codingHistory
        guard info.set(on: file) else { return false }
        broadcastInfo = info
        return true
    }

    /// The iXML document the file gets when it is closed, in place of the one it was created with
    /// (which a file cut short keeps). Returns false, changing nothing, for a file created without one,
    /// or a document longer than the room made (the first document's bytes and at least 1 KiB).
    /// From the thread that writes the file.
    @discardableResult
    public func setIXML(_ document: String) -> Bool {
        guard file != nil, ixmlReserved > 0, document.utf8.count <= ixmlReserved else { return false }
        ixmlDocument = document
        return true
    }
}
