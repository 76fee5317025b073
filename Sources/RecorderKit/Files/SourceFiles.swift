// A take of several sources as a file set: one file per source, the same first frame and length in each, one FAMILY_UID.
import CSndFile
import Glibc

/// What `--split-sources` writes: the files of a several-source take, one per source, as a field recorder
/// writes a take's tracks as a set of files (`take_1.wav`, `take_2.wav`, …). Each holds its source's
/// channels and every frame of the take, so all share their first frame and their length; each keeps the
/// take's bext chunk (one TimeReference in all) and its iXML take sheet with this file's tracks and its
/// place in the set (one FAMILY_UID for all, FILE_SET_INDEX A, B, …); each holds the take's markers but
/// the gaps of the other sources.
public enum SourceFiles {
    /// The file of source `index` (0 for the first) of the take at `path`: "take.wav" → "take_1.wav".
    public static func path(for path: String, source index: Int) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let name = path[slash...]
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return path + "_\(index + 1)" }
        return String(path[..<dot]) + "_\(index + 1)" + String(path[dot...])
    }

    /// Writes the take at `path` (recorded in `format`, its channels laid out as `sources` says) as one
    /// file per source (`path(for:source:)`), then removes it. Returns the files, in source order. On a
    /// failure every file made here is removed and the take's own file is kept: one line says why.
    public static func split(_ path: String, format: StreamFormat, sources: [SourceReport], overwrite: Bool = false)
        throws(RecorderError) -> [String] {
        let reader = try SoundFileReader(path: path)
        defer { reader.close() }
        guard let file = reader.file, reader.channelCount == sources.reduce(0, { $0 + $1.channelCount }) else {
            throw RecorderError(.invalidFormat,
                "cannot split '\(path)' by source: it holds \(reader.channelCount) channels, its sources \(sources.reduce(0) { $0 + $1.channelCount })")
        }
        let broadcast = BroadcastInfo.read(file)
        let sheet = IXMLChunk.read(file)
        let markers = MarkerChunk.read(file)
        var writers: [SoundFileWriter] = []
        func abandon(_ error: RecorderError) -> RecorderError {
            for writer in writers {
                writer.close()
                unlink(writer.path)
            }
            return error
        }
        for (index, source) in sources.enumerated() {
            do throws(RecorderError) {
                let sourceFormat = try StreamFormat(sampleRate: format.sampleRate, channelCount: source.channelCount,
                                                    sampleFormat: format.sampleFormat)
                writers.append(try SoundFileWriter(path: self.path(for: path, source: index), format: sourceFormat,
                                                   overwrite: overwrite, maxFramesPerWrite: blockFrames, fileType: nil,
                                                   broadcast: broadcast,
                                                   ixml: sheet.map { sheetForSource($0, source: source, index: index, of: sources.count) }))
            } catch {
                throw abandon(error)
            }
        }
        // Whole frames as libsndfile reads them (32-bit integers with the sample in the top bits, or
        // floats), into each file's packets (big-endian, its own channels).
        let channels = reader.channelCount
        let width = format.sampleFormat.bytesPerSample
        var integers = [Int32](repeating: 0, count: blockFrames * channels)
        var floats = [Float](repeating: 0, count: blockFrames * channels)
        var packet = [UInt8](repeating: 0, count: blockFrames * channels * width)
        while true {
            let frames = format.sampleFormat == .float32
                ? floats.withUnsafeMutableBufferPointer { Int(sf_readf_float(file, $0.baseAddress, sf_count_t(blockFrames))) }
                : integers.withUnsafeMutableBufferPointer { Int(sf_readf_int(file, $0.baseAddress, sf_count_t(blockFrames))) }
            guard frames > 0 else { break }
            for (source, writer) in zip(sources, writers) {
                var offset = 0
                for frame in 0..<frames {
                    for channel in source.firstChannel..<(source.firstChannel + source.channelCount) {
                        let sample = frame * channels + channel
                        let bits: UInt32 = format.sampleFormat == .float32 ? floats[sample].bitPattern : UInt32(bitPattern: integers[sample])
                        for byte in 0..<width { packet[offset + byte] = UInt8(truncatingIfNeeded: bits >> (24 - 8 * byte)) }
                        offset += width
                    }
                }
                let written = packet.withUnsafeBytes { bytes -> Result<Void, RecorderError> in
                    do throws(RecorderError) {
                        try writer.write(packets: UnsafeRawBufferPointer(rebasing: bytes[0..<offset]))
                        return .success(())
                    } catch {
                        return .failure(error)
                    }
                }
                if case .failure(let error) = written { throw abandon(error) }
            }
        }
        if sf_error(file) != 0 {
            throw abandon(RecorderError(.readFailed, "cannot split '\(path)': reading it failed (\(sndfileReason(file))); it is kept as it is"))
        }
        for (source, writer) in zip(sources, writers) {
            // A gap names its source: it goes into that source's file only.
            let others = sources.filter { $0.name != source.name }.map(\.name)
            writer.close(markers: markers.filter { marker in !others.contains { marker.label.contains(" in \($0): ") } })
            if let error = writer.closeError { throw abandon(error) }
        }
        unlink(path)
        return writers.map(\.path)
    }

    /// Frames read and written at a time.
    static let blockFrames = 16_384

    /// The take's iXML for one source's file: its tracks only (their names kept), renumbered from 1, a
    /// FILE_UID of its own, and its place in the set (the take's files times its sources).
    static func sheetForSource(_ document: String, source: SourceReport, index: Int, of count: Int) -> String {
        var text = document
        if let start = text.firstRange(of: "<TRACK_LIST>"), let end = text.firstRange(of: "</TRACK_LIST>") {
            let body = String(text[start.upperBound..<end.lowerBound])
            let tracks = body.split(separator: "<TRACK>", omittingEmptySubsequences: false).dropFirst().map { part in
                "<TRACK>" + (part.split(separator: "</TRACK>", omittingEmptySubsequences: false).first.map(String.init) ?? "") + "</TRACK>"
            }
            let kept = tracks.dropFirst(source.firstChannel).prefix(source.channelCount).enumerated().map { number, track in
                replacing(replacing(track, "CHANNEL_INDEX", String(number + 1)), "INTERLEAVE_INDEX", String(number + 1))
            }
            let list = "\n    <TRACK_COUNT>\(source.channelCount)</TRACK_COUNT>\n    " + kept.joined(separator: "\n    ") + "\n  "
            text.replaceSubrange(start.upperBound..<end.lowerBound, with: list)
        }
        let total = Int(IXMLChunk.value(of: "TOTAL_FILES", in: text) ?? "1") ?? 1
        let position = IXMLChunk.value(of: "FILE_SET_INDEX", in: text).map(setNumber) ?? 1
        text = replacing(text, "TOTAL_FILES", String(total * count))
        text = replacing(text, "FILE_SET_INDEX", IXMLChunk.fileSetIndex((position - 1) * count + index + 1))
        if let uid = IXMLChunk.value(of: "FILE_UID", in: text) { text = replacing(text, "FILE_UID", uid + "S\(index + 1)") }
        return text
    }

    /// "A" → 1, "B" → 2, … "AA" → 27.
    static func setNumber(_ letters: String) -> Int {
        letters.unicodeScalars.reduce(0) { $0 * 26 + Int($1.value) - 64 }
    }

    /// `text` with the first `<name>` element's content replaced.
    static func replacing(_ text: String, _ name: String, _ value: String) -> String {
        guard let open = text.firstRange(of: "<\(name)>"), let close = text[open.upperBound...].firstRange(of: "</\(name)>") else {
            return text
        }
        var text = text
        text.replaceSubrange(open.upperBound..<close.lowerBound, with: value)
        return text
    }
}
