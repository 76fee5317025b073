// Where what is heard stands in the file: the spans written into the stream and not yet heard.

/// Where what is heard stands in the file: the buffers written into the current stream and not yet
/// heard, with their positions, for `currentTime`.
struct Playhead {
    struct Span {
        /// First frame of the span in the stream (stream indices count from 0 per stream).
        var streamStart: Int64
        var frames: Int64
        /// File frame of the span's first frame (for lead-in silence, the frame that follows it).
        var fileStart: Int64
        var isLeadIn: Bool
        /// File frames per frame of the span (1 unless played faster or slower).
        var rate = 1.0

        /// The file frames `frames` of the span stand for.
        func fileFrames(_ frames: Int64) -> Int64 {
            rate == 1 ? frames : Int64((Double(frames) * rate).rounded())
        }
    }
    var spans: [Span] = []
    /// The position while no stream plays (stopped, idle, or before anything was heard).
    var restingFrame: Int64 = 0
    /// Frames in the file (0: unknown, no wrapping).
    var fileFrames: Int64 = 0

    /// The file frame being heard when the stream is at `played` (nil: no stream).
    func position(played: Int64?) -> Int64 {
        guard let played, let first = spans.first else { return restingFrame }
        if played < first.streamStart { return first.fileStart }
        for span in spans where played < span.streamStart + span.frames {
            if span.isLeadIn { return span.fileStart }
            return wrap(span.fileStart + span.fileFrames(played - span.streamStart))
        }
        let last = spans[spans.count - 1]
        return last.isLeadIn ? last.fileStart : wrap(last.fileStart + last.fileFrames(last.frames))
    }

    func wrap(_ frame: Int64) -> Int64 { fileFrames > 0 && frame >= fileFrames ? frame % fileFrames : frame }
}
