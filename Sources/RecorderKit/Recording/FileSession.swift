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
    /// The files written, in order; for a take cut on the clock, the newest `listedFiles` of them (a logger's
    /// months of files would otherwise grow it without end; each was reported as it finished).
    private(set) var files: [String]
    /// How many files the recording has written so far (`files` may list fewer).
    private(set) var fileCount = 1
    /// The first file (the summary's `path`), however many files followed (the one after it, if it was
    /// dropped empty).
    private(set) var firstPath: String
    /// When the recording began (CLOCK_REALTIME): a file modified since then that `files` no longer lists is
    /// taken for one of its own (numbered, never overwritten, even with `overwrite`), with nothing kept per file.
    private let began = realtimeSeconds()
    /// How many files a take cut on the clock keeps listed.
    static let listedFiles = 1_000
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
    /// What each file says of itself (its bext and iXML chunks), and the wall-clock time of a recorder
    /// frame. `currentMetadata` is asked when a file is closed: the iXML fields as they stand then.
    let metadata: RecordingMetadata
    let currentMetadata: @Sendable () -> RecordingMetadata
    let clock: FrameClock
    /// Frames of pre-roll the recording begins with.
    let preRollFrames: Int64
    /// Per file so far: what its iXML says besides the metadata (filled again at the end, when the
    /// number of files is known). A take cut on the clock keeps only its last two files' (its files are
    /// not filled again: each says how many its set had when it was closed).
    private(set) var sheets: [IXMLFacts] = []
    /// Files so far of each file set (a take's family UID).
    private var familyFiles: [String: Int] = [:]
    /// Per file: the bytes its iXML chunk was given (0: none).
    private var sheetRoom: [Int] = []
    /// The recorder frame of the current file's first frame, once written.
    private var fileFirstFrame: Int64?
    /// The current file's loudness, measured as it is written, for its bext chunk (nil without one).
    private var loudness: LoudnessMeter?
    /// The gaps already placed in a file as markers (`gaps` before this index).
    private var markedGaps = 0
    /// Waveform data beside each file (`Recorder.peakData`), the current file's growing one, the ones
    /// written, and why they stopped when they did.
    let peakData: PeakFormat?
    private var peaks: PeakFile?
    private(set) var peakFiles: [String] = []
    private(set) var peakFailure: RecorderError?
    /// The frames just written, as floats, for the loudness and the peaks.
    private var decoded: [Float] = []
    /// A take split on the clock: where the current file ends (set by the delivery thread), and the
    /// wall-clock time of the current file's first frame (its boundary, by the capture timing).
    var cuts: ClockCuts?
    private var segmentTime: Double?
    /// The file closed last, until the delivery thread reports it (`takeFinished`).
    private var finished: FinishedFile?

    /// `writer` was made with `firstFile`'s chunks (`FileSession.firstFile`).
    init(writer: SoundFileWriter, firstFile: IXMLFacts, format: StreamFormat, overwrite: Bool, startFrame: Int64,
         maxFramesPerFile: Int64?, maxBytesPerFile: Int64?, baseName: String? = nil,
         metadata: RecordingMetadata, currentMetadata: @escaping @Sendable () -> RecordingMetadata,
         clock: FrameClock, preRollFrames: Int64, peakData: PeakFormat? = nil, cuts: ClockCuts? = nil) {
        self.peakData = peakData
        self.cuts = cuts
        self.writer = writer
        self.metadata = metadata
        self.currentMetadata = currentMetadata
        self.clock = clock
        self.preRollFrames = preRollFrames
        sheets = [firstFile]
        familyFiles = [firstFile.familyUID: 1]
        sheetRoom = [writer.ixmlReserved]
        self.baseName = baseName ?? writer.path
        self.format = format
        self.overwrite = overwrite
        self.startFrame = startFrame
        self.maxFramesPerFile = maxFramesPerFile
        self.maxBytesPerFile = maxBytesPerFile
        files = [writer.path]
        firstPath = writer.path
        totals = LevelTotals(channelCount: format.channelCount, sampleFormat: format.sampleFormat)
        openPeaks()
    }

    /// The current file's peak file: its path with `.dat` for its extension, created (replaced only with
    /// `overwrite`) before its first frame.
    private func openPeaks() {
        guard let peakData, peakFailure == nil, !writer.isStandardOutput, !writer.isDevice else { return }
        let path = Self.peakPath(for: writer.path)
        do throws(RecorderError) {
            if !overwrite && access(path, F_OK) == 0 {
                throw RecorderError(.fileExists, "peak data not written: '\(path)' exists; pass --force (overwrite) to replace it")
            }
            let file = try PeakFile(path: path, format: peakData, growing: true)
            try file.open(sampleRate: format.sampleRate, channelCount: format.channelCount)
            peaks = file
            peakFiles.append(path)
        } catch {
            peakFailure = error
        }
    }

    /// Where a file's peak data goes: its path with `.dat` for its extension (or added, without one).
    static func peakPath(for path: String) -> String {
        let name = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        if let dot = path[name...].lastIndex(of: "."), dot != name { return String(path[..<dot]) + ".dat" }
        return path + ".dat"
    }

    private func closePeaks() {
        guard let file = peaks else { return }
        peaks = nil
        do throws(RecorderError) { try file.finish() } catch { if peakFailure == nil { peakFailure = error } }
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

    /// Writes whole frames (`startFrame` the recorder frame of the first), moving on to the next
    /// numbered file at each file's limit (the closed file gets its `markers`). Calls `started` with
    /// each new file's path and the offset (in frames) of its first frame in `bytes`. `sums` (of all of
    /// `bytes`, when measured already) go to the totals if `bytes` is written in one piece; otherwise
    /// each piece is measured.
    func write(_ bytes: UnsafeRawBufferPointer, startFrame: Int64, markers: [PendingMarker], sums: [ChannelSums]? = nil,
               started: (String, Int) -> Void) throws(RecorderError) {
        let bytesPerFrame = format.bytesPerFrame
        var offset = 0
        while bytes.count - offset >= bytesPerFrame {  // whole frames (a partial one cannot be written)
            // A size limit holds the marker chunks close will add for the markers (and gaps) this file
            // has so far.
            let reserve = maxBytesPerFile == nil ? 0
                : MarkerChunk.maxByteCount(type: writer.fileType, markers: gaps.count > markedGaps ? markers + gapMarkers() : markers,
                                         from: framesBefore)
            var room = Self.limit(of: writer, maxFrames: maxFramesPerFile, maxBytes: maxBytesPerFile.map { $0 - reserve },
                                  bytesPerFrame: bytesPerFrame) - writer.framesWritten
            let frame = startFrame + Int64(offset / bytesPerFrame)
            if let cut = cuts?.cut {
                // On the clock: the file ends at the frame captured at its boundary (or here, if that frame
                // was written already: the next file's sheet says how late).
                if frame >= cut.frame {
                    // A file with no frame yet whose boundary came before its first frame (the take began
                    // within the capture's latency of a boundary) is that boundary's file: it is made again
                    // under the boundary's name, not left to run on for a second period.
                    let empty = writer.framesWritten == 0
                    try nextSegment(boundary: cut.boundary, lateFrames: frame - cut.frame, markers: markers)
                    if empty { dropEmptyFileBefore() }
                    cuts?.made()
                    started(writer.path, offset / bytesPerFrame)
                    continue
                }
                room = min(room, cut.frame - frame)
            }
            if room <= 0 {
                // (On the clock, the container's own limit numbers the segment's name: `0100-002.flac`.)
                try nextFile(markers: markers, path: cuts == nil ? nil : freeName(writer.path))
                started(writer.path, offset / bytesPerFrame)
                continue
            }
            let count = Int(min(room, Int64((bytes.count - offset) / bytesPerFrame))) * bytesPerFrame
            let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
            if writer.framesWritten == 0 { stamp(firstFrame: startFrame + Int64(offset / bytesPerFrame)) }
            try writer.write(packets: slice)
            measureAndDraw(slice)
            if let sums, count == bytes.count {
                sums.withUnsafeBufferPointer { totals.add($0, frames: count / bytesPerFrame) }
            } else {
                totals.add(slice)
            }
            offset += count
        }
    }

    /// The next numbered file: the same take's next file, or with `newTake` the first of a new take (a
    /// sound-activated recording's), a file set of its own whose TAKE counts on.
    func nextFile(markers: [PendingMarker], newTake: Bool = false, path named: String? = nil,
                  segment: (boundary: Double, lateFrames: Int64)? = nil) throws(RecorderError) {
        let path = named ?? FileType.numberedPath(baseName, fileCount + 1)
        guard !writer.isStandardOutput && !writer.isDevice else {
            throw RecorderError(.writeFailed,
                "\(writer.isDevice ? "'\(writer.path)'" : "standard output") is full at \(writer.framesWritten) frames: a \(writer.fileType.rawValue.uppercased()) "
                + "stream cannot describe more; use -t raw or FLAC, or record into a file")
        }
        var facts = sheets[sheets.count - 1]
        facts.fileUID = BroadcastInfo.uniqueReference()
        if newTake {
            facts.familyUID = BroadcastInfo.uniqueReference()
            facts.takeOffset += 1
            facts.fileIndex = 1
        } else {
            facts.fileIndex += 1
        }
        facts.totalFiles = facts.fileIndex
        facts.preRecordFrames = 0
        facts.segmentBoundary = segment?.boundary
        facts.segmentLateFrames = segment?.lateFrames ?? 0
        let now = segment.map { $0.boundary + Double($0.lateFrames) / Double(format.sampleRate) } ?? realtimeSeconds()
        facts.timeReference = Self.timeReference(at: now, sampleRate: format.sampleRate)
        let next = try SoundFileWriter(path: path, format: format, overwrite: overwrite,
                                       maxFramesPerWrite: writer.maxFramesPerWrite, fileType: writer.fileType,
                                       quality: writer.quality,
                                       broadcast: metadata.broadcastInfo(firstFrameTime: now, sampleRate: format.sampleRate),
                                       ixml: metadata.ixmlDocument(facts))
        closeFile(markers: markers, last: false)
        segmentTime = segment == nil ? nil : now
        sheets.append(facts)
        sheetRoom.append(next.ixmlReserved)
        familyFiles[facts.familyUID, default: 0] += 1
        framesBefore += writer.framesWritten
        writer = next
        files.append(path)
        fileCount += 1
        if cuts != nil {
            // What a take cut on the clock keeps of its closed files: bounded, for months of them.
            if sheets.count > 2 {
                sheets.removeFirst(sheets.count - 2)
                sheetRoom.removeFirst(sheetRoom.count - 2)
            }
            if files.count > Self.listedFiles { files.removeFirst(files.count - Self.listedFiles) }
        }
        openPeaks()
    }

    /// The next file of a take split on the clock: named for `boundary` (numbered if that name is taken),
    /// its folders made, its first frame `lateFrames` after the one captured at the boundary.
    private func nextSegment(boundary: Double, lateFrames: Int64, markers: [PendingMarker]) throws(RecorderError) {
        guard let cuts else { return }
        let named = cuts.names.isTimed ? cuts.names.name(at: boundary) : nil
        let path = freeName(named ?? FileType.numberedPath(baseName, fileCount + 1))
        try SegmentNames.makeFolders(for: path)
        try nextFile(markers: markers, path: path, segment: (boundary, lateFrames))
    }

    /// Removes the file before the current one, which holds no frame (and its peak file): the current
    /// one takes its place in the set.
    private func dropEmptyFileBefore() {
        guard files.count >= 2 else { return }
        let empty = files.remove(at: files.count - 2)
        fileCount -= 1
        if empty == firstPath, let current = files.last { firstPath = current }
        finished = nil
        unlink(empty)
        let peakPath = Self.peakPath(for: empty)
        if let index = peakFiles.firstIndex(of: peakPath) {
            peakFiles.remove(at: index)
            unlink(peakPath)
        }
        let facts = sheets.remove(at: sheets.count - 2)
        sheetRoom.remove(at: sheetRoom.count - 2)
        familyFiles[facts.familyUID, default: 1] -= 1
        sheets[sheets.count - 1].fileIndex = facts.fileIndex
        sheets[sheets.count - 1].totalFiles = facts.fileIndex
    }

    /// The file closed last, once: to be reported as finished.
    func takeFinished() -> FinishedFile? {
        defer { finished = nil }
        return finished
    }

    /// `path`, or if a file of this take has it (or, without `overwrite`, any file), its first numbered
    /// form that is free (`name-002.ext`, …).
    func freeName(_ path: String) -> String {
        func taken(_ candidate: String) -> Bool {
            var status = stat()
            guard files.contains(candidate) || stat(candidate, &status) == 0 else { return false }
            return files.contains(candidate) || !overwrite || Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9 >= began
        }
        guard taken(path) else { return path }
        for number in 2...9_999 where !taken(FileType.numberedPath(path, number)) {
            return FileType.numberedPath(path, number)
        }
        return FileType.numberedPath(path, 10_000)
    }

    /// Closes the current file with the markers that fall in it: from its first frame up to, not
    /// including, the next file's first frame; the last file also takes those at (or, clamped, past)
    /// its end. Markers are added in frame order, and all of a file's are known when it is closed: each
    /// was added before the frame after it was captured.
    ///
    /// Each gap that begins in the file (or began before it and was not placed yet) is a marker there
    /// too, named for what happened (`RecordingGap.markerLabel`); the summary lists only the markers
    /// added. A file with a bext chunk gets the loudness measured over it first.
    func closeFile(markers: [PendingMarker], last: Bool) {
        let end = framesBefore + writer.framesWritten
        finished = FinishedFile(path: writer.path, index: fileCount, frameCount: writer.framesWritten,
                                sampleRate: format.sampleRate, channelCount: format.channelCount,
                                startTime: fileFirstFrame.map { segmentTime ?? clock.seconds(at: $0) },
                                endFrame: (fileFirstFrame ?? 0) + writer.framesWritten)
        let mine = markers.filter { $0.position >= framesBefore && ($0.position < end || last) }
        let frames = mine.map { (frame: min($0.position, end) - framesBefore, label: $0.label) }
        let placed = gaps[markedGaps...].prefix { $0.startFrame < end || last }
        markedGaps += placed.count
        let gapFrames = placed.map { (frame: max(0, min($0.startFrame, end) - framesBefore), label: $0.markerLabel) }
        if var info = writer.broadcastInfo, let loudness {
            info.takeLoudness(from: loudness, channelCount: format.channelCount)
            writer.setBroadcastInfo(info)
        }
        loudness = nil
        fillSheet(preRecordFrames: takes.first { $0.path == writer.path }.map { $0.onsetFrame - $0.startFrame }
                      ?? (fileCount == 1 ? preRollFrames : 0))
        let all = (frames + gapFrames).enumerated().sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }.map(\.element)
        let stored = writer.close(markers: all, byteLimit: maxBytesPerFile) && (writer.fileType == .aiff || writer.fileType == .wav)
        closePeaks()
        for (marker, placed) in zip(mine, frames) {
            self.markers.append(RecordingMarker(label: marker.label, startFrame: framesBefore + placed.frame,
                                                path: writer.path, fileFrame: placed.frame,
                                                isStoredInFile: stored, sampleRate: format.sampleRate))
        }
    }

    /// The gaps not yet placed in a file, as markers at their place (or the current file's start).
    private func gapMarkers() -> [PendingMarker] {
        gaps[markedGaps...].map { PendingMarker(position: max($0.startFrame, framesBefore), label: $0.markerLabel) }
    }

    /// Before a file's first frame: its bext chunk gets that frame's wall-clock time, and its loudness
    /// starts being measured.
    private func stamp(firstFrame: Int64) {
        fileFirstFrame = firstFrame
        guard let current = writer.broadcastInfo else { return }
        var info = BroadcastInfo(description: current.description, originator: current.originator,
                                 firstFrameTime: segmentTime ?? clock.seconds(at: firstFrame), sampleRate: format.sampleRate)
        info.originatorReference = current.originatorReference
        writer.setBroadcastInfo(info)
        // A multitrack take's bext holds no loudness (`MeterLimits.programmeChannelCounts`: not set).
        guard MeterLimits.programmeChannelCounts.contains(format.channelCount) else { return }
        // As the live meter: a take begins mid-waveform, and the oversampler's start from silence would
        // read up to 1 dB over the signal's true peak, so the first 16 frames count by their samples.
        loudness = try? LoudnessMeter(channelCount: format.channelCount, sampleRate: format.sampleRate,
                                      ignoringStartTransient: true, histogram: true)
        loudness?.weigh(ChannelWeight.of(channelCount: format.channelCount, map: nil))
    }

    /// Adds what was written to the current file's loudness and its peak file (flushed: its header then
    /// counts these frames' pixels that are whole).
    private func measureAndDraw(_ slice: UnsafeRawBufferPointer) {
        guard loudness != nil || peaks != nil else { return }
        let count = slice.count / format.sampleFormat.bytesPerSample
        if decoded.count < count { decoded = [Float](repeating: 0, count: count) }
        let samples = decoded.withUnsafeMutableBufferPointer { format.sampleFormat.decode(slice, into: $0) }
        decoded.withUnsafeBufferPointer { floats in
            let block = UnsafeBufferPointer(rebasing: floats[0..<samples])
            loudness?.add(interleaved: block)
            if let peaks {
                peaks.add(interleaved: block)
                do throws(RecorderError) { try peaks.flush() } catch {
                    // Given up: the file so far stays valid (its header counts what was written).
                    peakFailure = error
                    self.peaks = nil
                }
            }
        }
    }

    /// Frames from local midnight to `seconds` (wall-clock time), at `sampleRate`.
    static func timeReference(at seconds: Double, sampleRate: Int) -> UInt64 {
        BroadcastInfo(firstFrameTime: seconds, sampleRate: sampleRate).timeReference
    }

    /// The iXML facts of a recording's first file, made before its first frame is known.
    static func firstFile(format: StreamFormat, firstFrameTime: Double, preRollFrames: Int64) -> IXMLFacts {
        IXMLFacts(sampleRate: format.sampleRate, bitDepth: 8 * format.sampleFormat.bytesPerSample,
                  channelCount: format.channelCount,
                  timeReference: timeReference(at: firstFrameTime, sampleRate: format.sampleRate),
                  fileUID: BroadcastInfo.uniqueReference(), familyUID: BroadcastInfo.uniqueReference(),
                  fileIndex: 1, totalFiles: 1, preRecordFrames: preRollFrames)
    }

    /// The current file's iXML as it stands when it is closed: its first frame's time, its pre-roll,
    /// and the metadata's fields as they are now.
    private func fillSheet(preRecordFrames: Int64) {
        guard metadata.ixml, writer.ixmlReserved > 0, var facts = sheets.last else { return }
        if let first = fileFirstFrame {
            facts.timeReference = Self.timeReference(at: segmentTime ?? clock.seconds(at: first), sampleRate: format.sampleRate)
        }
        facts.preRecordFrames = max(0, preRecordFrames)
        facts.totalFiles = filesInFamily(facts.familyUID)
        sheets[sheets.count - 1] = facts
        fileFirstFrame = nil
        if let document = currentMetadata().ixmlDocument(facts) { writer.setIXML(document) }
    }

    /// The files of the take whose file set is `family`, so far.
    private func filesInFamily(_ family: String) -> Int { familyFiles[family] ?? 0 }

    /// Once the recording has ended: every file of a split take says how many files its take has. Not a
    /// take cut on the clock: a logger's files are complete when closed (handed on, uploaded, removed),
    /// and each says how many files its set had then.
    func completeFileSet() {
        guard metadata.ixml, files.count > 1, cuts == nil else { return }
        let latest = currentMetadata()
        for index in files.indices where sheets[index].totalFiles != filesInFamily(sheets[index].familyUID) && sheetRoom[index] > 0 {
            var facts = sheets[index]
            facts.totalFiles = filesInFamily(facts.familyUID)
            guard let document = latest.ixmlDocument(facts) else { continue }
            let descriptor = open(files[index], O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { continue }
            var status = stat()
            // The chunk is in the header, before the audio: within the file's first MiB.
            let size = fstat(descriptor, &status) == 0 ? Int(min(Int64(status.st_size), 1 << 20)) : 0
            _ = IXMLChunk.fill(document, reserved: sheetRoom[index], descriptor: descriptor, headerBytes: size,
                               type: writer.fileType)
            Glibc.close(descriptor)
        }
    }
}
