// What a player's callers and its worker exchange: the source, the requests, and the shared state.

/// Where a player's audio comes from.
enum PlaybackSource: Sendable {
    /// A file, decoded by libsndfile on the reader thread.
    case file(SoundFileReader)
    /// The embedder's output callback (AudioQueueNewOutput's role), called on the reader thread.
    case callback(@Sendable (inout OutputBuffer) -> Void)
}

/// A control request to the player's worker.
enum PlayerRequest: Sendable {
    /// Open a stream and fill it, corked (`prepareToPlay`).
    case prepare
    /// Start or resume: at once, or with the first frame heard at CLOCK_MONOTONIC nanoseconds `at`;
    /// `frames`: play at most this many frames from here, then end as at the end of the file.
    case play(at: Int64?, frames: Int64?)
    case pause
    /// Stop (AVAudioPlayer's): the stream goes, the position stays where it was heard.
    case stop
    /// Move to a file frame.
    case seek(Int64)
    /// Apply the volume and pan in `PlayerControl`.
    case volume
    /// Apply the rate and pitch in `PlayerControl` (a file's player only).
    case timePitch
    /// End everything: close the stream and the connection, finish the streams, exit.
    case shutdown
}

/// What callers and the player's worker share besides the requests, under the worker's lock.
struct PlayerControl: Sendable {
    var isPlaying = false
    var volume: Float = 1
    var pan: Float = 0
    var numberOfLoops = 0
    /// Source frames per frame played (`TimeStretcher.rate`), and the pitch shift in cents.
    var rate = 1.0
    var pitch = 0.0
    /// Frames of the source heard so far, over every stream (lead-in silence not counted): the
    /// reader thread's `heardBefore` plus what the open stream has played.
    var heardFrames: Int64 = 0
    /// Times playback reached its end (successfully or not).
    var finishedCount = 0
}
