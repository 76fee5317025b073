// The files of one recording: the one being written, the numbered ones that follow at a limit, and their totals.
import Glibc

/// One recording between `record(to:)` and its end: the file being written, and the numbered files
/// that follow it when a file reaches its limit. Created by the caller, then used only by the
/// delivery thread.
final class FileSession: @unchecked Sendable {
    // @unchecked Sendable: created by the caller, then used only by the delivery thread (handed over
    // through the control lock).
    private(set) var writer: SoundFileWriter
    let format: StreamFormat
    let overwrite: Bool
    /// Recorder frame position of the recording's first frame.
    let startFrame: Int64
    /// Per-file limits asked for (nil: only the container's own).
    let maxFramesPerFile: Int64?
    let maxBytesPerFile: Int64?
    private(set) var files: [String]
    /// Frames in the files already closed.
    private var framesBefore: Int64 = 0
    var droppedFrames: Int64 = 0
    var gaps: [RecordingGap] = []
    /// Levels over exactly the frames written.
    var totals: LevelTotals
    /// Which recording of the recorder this is (1, 2, …), to match stops and waits with it.
    var number = 0
    /// The markers of the files closed so far, in order.
    private(set) var markers: [RecordingMarker] = []
    /// The path numbered files are named after: the first file, or for numbered takes the path asked for.
    let baseName: String
    /// A sound-activated recording's takes that have ended, in order.
    var takes: [RecordingTake] = []
    /// Its open take (its length still 0), and the frames written before it began.
    var openTake: (take: RecordingTake, position: Int64)?

    init(writer: SoundFileWriter, format: StreamFormat, overwrite: Bool, startFrame: Int64,
         maxFramesPerFile: Int64?, maxBytesPerFile: Int64?, baseName: String? = nil) {
        self.writer = writer
        self.baseName = baseName ?? writer.path
        self.format = format
        self.overwrite = overwrite
        self.startFrame = startFrame
        self.maxFramesPerFile = maxFramesPerFile
        self.maxBytesPerFile = maxBytesPerFile
        files = [writer.path]
        totals = LevelTotals(channelCount: format.channelCount, sampleFormat: format.sampleFormat)
    }

    /// Frames written so far, all files together.
    var frameCount: Int64 { framesBefore + writer.framesWritten }

    /// The most frames the current file may hold: the container's capacity and the asked limits.
    static func limit(of writer: SoundFileWriter, maxFrames: Int64?, maxBytes: Int64?, bytesPerFrame: Int) -> Int64 {
        var limit = writer.frameCapacity
        if let maxFrames { limit = min(limit, maxFrames) }
        if let maxBytes { limit = min(limit, (maxBytes - Int64(writer.headerBytes)) / Int64(bytesPerFrame)) }
        return limit
    }

    /// Writes whole frames, moving on to the next numbered file at each file's limit (the closed file
    /// gets its `markers`). Calls `started` with each new file's path and the offset (in frames) of its
    /// first frame in `bytes`. `sums` (of all of `bytes`, when measured already) go to the totals if
    /// `bytes` is written in one piece; otherwise each piece is measured.
    func write(_ bytes: UnsafeRawBufferPointer, markers: [PendingMarker], sums: [ChannelSums]? = nil,
               started: (String, Int) -> Void) throws(RecorderError) {
        let bytesPerFrame = format.bytesPerFrame
        var offset = 0
        while bytes.count - offset >= bytesPerFrame {  // whole frames (a partial one cannot be written)
            // A size limit holds the marker chunks close will add for the markers this file has so far.
            let reserve = maxBytesPerFile == nil ? 0
                : MarkerChunk.maxByteCount(type: writer.fileType, markers: markers, from: framesBefore)
            let room = Self.limit(of: writer, maxFrames: maxFramesPerFile, maxBytes: maxBytesPerFile.map { $0 - reserve },
                                  bytesPerFrame: bytesPerFrame) - writer.framesWritten
            if room <= 0 {
                try nextFile(markers: markers)
                started(writer.path, offset / bytesPerFrame)
                continue
            }
            let count = Int(min(room, Int64((bytes.count - offset) / bytesPerFrame))) * bytesPerFrame
            let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
            try writer.write(packets: slice)
            if let sums, count == bytes.count {
                sums.withUnsafeBufferPointer { totals.add($0, frames: count / bytesPerFrame) }
            } else {
                totals.add(slice)
            }
            offset += count
        }
    }

    func nextFile(markers: [PendingMarker]) throws(RecorderError) {
        let path = FileType.numberedPath(baseName, files.count + 1)
        guard !writer.isStandardOutput && !writer.isDevice else {
            throw RecorderError(.writeFailed,
                "\(writer.isDevice ? "'\(writer.path)'" : "standard output") is full at \(writer.framesWritten) frames: a \(writer.fileType.rawValue.uppercased()) "
                + "stream cannot describe more; use -t raw or FLAC, or record into a file")
        }
        let next = try SoundFileWriter(path: path, format: format, overwrite: overwrite,
                                       maxFramesPerWrite: writer.maxFramesPerWrite, fileType: writer.fileType,
                                       quality: writer.quality)
        closeFile(markers: markers, last: false)
        framesBefore += writer.framesWritten
        writer = next
        files.append(path)
    }

    /// Closes the current file with the markers that fall in it: from its first frame up to, not
    /// including, the next file's first frame; the last file also takes those at (or, clamped, past)
    /// its end. Markers are added in frame order, and all of a file's are known when it is closed: each
    /// was added before the frame after it was captured.
    func closeFile(markers: [PendingMarker], last: Bool) {
        let end = framesBefore + writer.framesWritten
        let mine = markers.filter { $0.position >= framesBefore && ($0.position < end || last) }
        let frames = mine.map { (frame: min($0.position, end) - framesBefore, label: $0.label) }
        let stored = writer.close(markers: frames, byteLimit: maxBytesPerFile) && (writer.fileType == .aiff || writer.fileType == .wav)
        for (marker, placed) in zip(mine, frames) {
            self.markers.append(RecordingMarker(label: marker.label, startFrame: framesBefore + placed.frame,
                                                path: writer.path, fileFrame: placed.frame,
                                                isStoredInFile: stored, sampleRate: format.sampleRate))
        }
    }
}
