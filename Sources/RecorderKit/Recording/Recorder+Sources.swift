// Several sources in one recorder: the microphone and the desktop (a call, a second interface) as channels of one take.
import Glibc

extension Recorder {
    /// Records several sources as one take: each source's channels after the one before (in the order
    /// given, each source's in its own order), on one timeline, through the same buffers, meters,
    /// input handler, files and takes as one source. Each source's first frame is placed by when the
    /// server says it was captured, so one sound reaching every source at once lands on one frame; each
    /// source's clock is followed against the first's, and a source that drifts is resampled (libsoxr's
    /// variable-rate mode) to stay on the first source's clock. A source whose clock is the first's
    /// (two monitors of one server, say) passes byte for byte. `sources` reports where each stands.
    ///
    /// One source in `sources` makes the same recorder as `init(format:source:…)`.
    ///
    /// - Parameters:
    ///   - sources: source names (see `Recorder.sources()`), each once; 1 to 64 channels in all.
    ///   - sampleRate: the take's rate; nil: the first source's own. The server converts every source
    ///     to it, as it converts the sample format.
    ///   - sampleFormat: the take's sample format.
    ///   - channelsPerSource: channels taken from each source; nil: each source's own count.
    ///   - server: a server address, or nil for libpulse's usual lookup.
    ///   - driftCorrection: false records every source as captured (only placed at its start) and still
    ///     measures its drift (`SourceReport.driftPPM`).
    ///   - bufferCount: rotating capture buffers of the take, 2…64.
    ///   - bufferDuration: each buffer's length in seconds, 0.01…2; also each source's fragment size.
    ///   - maxQueueDuration: how much audio (seconds) libpulse may hold for each source while the take
    ///     cannot take it; nil: the server's maximum.
    ///   - reconnectTimeout: when a source or the server goes away, wait this many seconds for it to come
    ///     back (nil: end the recording with an error at once).
    ///   - maximumPreRoll: seconds of the take kept so a take may begin before `record(to:)` (0…60).
    ///   - clientName: the application name the server shows for the streams.
    /// - Throws: `RecorderError` with a one-line message: `.invalidFormat` for no source, a source named
    ///   twice or more than 64 channels in all; `.sourceNotFound` for a source the server does not have.
    public convenience init(sources: [String], sampleRate: Int? = nil, sampleFormat: SampleFormat = .int16,
                            channelsPerSource: Int? = nil, server: String? = nil, driftCorrection: Bool = true,
                            bufferCount: Int = 3, bufferDuration: Double = 0.1, maxQueueDuration: Double? = nil,
                            reconnectTimeout: Double? = nil, maximumPreRoll: Double = 0,
                            clientName: String = "recorder") throws(RecorderError) {
        try self.init(sources: sources, sampleRate: sampleRate, sampleFormat: sampleFormat, channelsPerSource: channelsPerSource,
                      server: server, driftCorrection: driftCorrection, bufferCount: bufferCount, bufferDuration: bufferDuration,
                      maxQueueDuration: maxQueueDuration, reconnectTimeout: reconnectTimeout, maximumPreRoll: maximumPreRoll,
                      clientName: clientName, fragmentDurations: nil)
    }

    /// As the public initializer; `fragmentDurations` gives each source's stream its own fragment size in
    /// seconds (the tests' way to give one source a far larger latency than another).
    convenience init(sources: [String], sampleRate: Int?, sampleFormat: SampleFormat, channelsPerSource: Int?,
                     server: String?, driftCorrection: Bool, bufferCount: Int, bufferDuration: Double,
                     maxQueueDuration: Double?, reconnectTimeout: Double?, maximumPreRoll: Double, clientName: String,
                     fragmentDurations: [Double]?) throws(RecorderError) {
        guard !sources.isEmpty else {
            throw RecorderError(.invalidFormat, "no source given: name at least one (list them with `recorder sources`)")
        }
        if let twice = sources.enumerated().first(where: { sources[..<$0.offset].contains($0.element) })?.element {
            throw RecorderError(.invalidFormat,
                "source '\(twice)' is named twice: a take records each source once (for two copies of it, record it once and copy the channels)")
        }
        let connection = try PulseConnection(server: server, clientName: clientName)
        var handedOn = false
        defer { if !handedOn { connection.close() } }
        let known = connection.sources()
        var channels: [Int] = []
        for name in sources {
            guard let info = known.first(where: { $0.name == name }) else {
                throw RecorderError(.sourceNotFound,
                    "no capture source named '\(name)' on \(connection.serverName); available sources: "
                    + "\(known.isEmpty ? "none" : known.map(\.name).joined(separator: ", ")) (list them with `recorder sources`)")
            }
            channels.append(channelsPerSource ?? info.channelCount)
        }
        let rate = sampleRate ?? known.first { $0.name == sources[0] }?.sampleRate ?? 48_000
        let probe = try StreamFormat(sampleRate: rate, channelCount: 1, sampleFormat: sampleFormat)
        if let channelsPerSource { _ = try StreamFormat(sampleRate: rate, channelCount: channelsPerSource, sampleFormat: sampleFormat) }
        let total = channels.reduce(0, +)
        guard total <= StreamFormat.maxTakeChannels else {
            throw RecorderError(.invalidFormat,
                "\(sources.count) sources give \(total) channels: a take holds at most \(StreamFormat.maxTakeChannels); "
                + "take fewer sources or fewer channels from each (--channels)")
        }
        if sources.count == 1 {
            handedOn = true
            connection.close()
            try self.init(format: try StreamFormat(sampleRate: rate, channelCount: channels[0], sampleFormat: sampleFormat),
                          source: sources[0], server: server, bufferCount: bufferCount, bufferDuration: bufferDuration,
                          maxQueueDuration: maxQueueDuration, reconnectTimeout: reconnectTimeout,
                          maximumPreRoll: maximumPreRoll, clientName: clientName)
            return
        }
        // Drift correction's resampler, loaded now: a library that cannot be had fails the take before it starts.
        if driftCorrection { try LaneResampler.loadLibrary() }
        let format = StreamFormat(takeRate: probe.sampleRate, channelCount: total, sampleFormat: sampleFormat)
        let bufferFrames = try Self.checkSettings(format: format, bufferCount: bufferCount, bufferDuration: bufferDuration,
                                                  maxQueueDuration: maxQueueDuration, reconnectTimeout: reconnectTimeout,
                                                  maximumPreRoll: maximumPreRoll)
        let pool = BufferPool(count: bufferCount, capacityBytes: bufferFrames * format.bytesPerFrame)
        let wake = Semaphore()
        handedOn = true
        let group: SourceGroup
        do throws(RecorderError) {
            group = try SourceGroup(sources: sources, channels: channels, rate: rate, sampleFormat: sampleFormat,
                                    connection: connection, bufferFrames: bufferFrames,
                                    maxQueueFrames: maxQueueDuration.map { Int(format.frames(seconds: $0) ?? 0) },
                                    pool: pool, dataReady: wake, correctsDrift: driftCorrection,
                                    fragmentFrames: fragmentDurations?.map { max(1, Int(format.frames(seconds: $0) ?? 1)) })
        } catch {
            connection.close()
            throw error
        }
        try self.init(format: format, capture: group, pool: pool, wake: wake, bufferFrames: bufferFrames,
                      reconnectTimeout: reconnectTimeout, maximumPreRoll: maximumPreRoll)
    }

    /// Where each source of the take stands: its channels, its start offset, its clock against the
    /// first source's, and its losses. One entry for a one-source recorder. Any thread.
    public var sources: [SourceReport] { capture.sourceReports(sampleRate: format.sampleRate) }

    /// A file's metadata in a take of several sources: track names default to each source's name and its
    /// channel ("mic", "desktop.monitor L", "desktop.monitor R"; given names win), and, when the file is
    /// closed (`closing`), the NOTE adds each source's start and drift as measured then. One source: as given.
    static func sourceMetadata(_ metadata: RecordingMetadata, reports: [SourceReport], closing: Bool = false) -> RecordingMetadata {
        guard reports.count > 1 else { return metadata }
        var metadata = metadata
        if metadata.trackNames.isEmpty {
            metadata.trackNames = reports.flatMap { report -> [String] in
                switch report.channelCount {
                case 1: [report.name]
                case 2: [report.name + " L", report.name + " R"]
                default: (1...report.channelCount).map { report.name + " \($0)" }
                }
            }
        }
        if closing {
            let figures = reports.enumerated().map { index, report in
                let drift = index == 0 ? "the take's clock"
                    : report.driftPPM.map { ($0 >= 0 ? "+" : "") + LoudnessTags.fixed($0, 1) + " ppm" + (report.isCorrectingDrift ? " corrected" : "") }
                        ?? "drift not measured"
                return "\(report.name): began \(LoudnessTags.fixed(report.startOffset * 1_000, 2)) ms in, \(drift)"
            }
            metadata.note = [metadata.note, "sources: " + figures.joined(separator: "; ")].filter { !$0.isEmpty }.joined(separator: " / ")
        }
        return metadata
    }
}
