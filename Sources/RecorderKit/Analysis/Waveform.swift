// A waveform's pixel columns: each channel's lowest and highest sample and mean square over consecutive
// runs of frames, as pictures and peak files (audiowaveform's) draw a sound.

/// One column's values for every channel, lowest and highest sample (full scale ±1) and RMS (linear).
public struct WaveformColumn: Sendable, Hashable {
    /// Per channel.
    public var minimum: [Float]
    /// Per channel.
    public var maximum: [Float]
    /// Per channel: the square root of the mean square (0 for a column of silence).
    public var rms: [Float]
}

/// A whole file's columns: `columns.count` of them, column `c` covering `frames(ofColumn: c)`.
public struct Waveform: Sendable, Hashable {
    /// Frames the columns cover.
    public let frames: Int64
    /// Channels in each column.
    public let channelCount: Int
    /// The columns, first to last.
    public let columns: [WaveformColumn]

    /// The frames column `column` covers: the file's frames split into `columns.count` runs as even as
    /// whole frames allow (a file shorter than its picture has empty columns).
    public func frames(ofColumn column: Int) -> Range<Int64> {
        WaveformColumns.span(column: column, columns: columns.count, frames: frames)
    }
}

/// Folds interleaved frames into columns and hands each column to `emit` as it completes: either a fixed
/// number of columns over a known length (a picture) or a fixed number of frames per column (a peak
/// file, which may grow). Not thread-safe; allocates only at creation.
public final class WaveformColumns {
    /// Channels of the frames added.
    public let channelCount: Int
    private let columnCount: Int?
    private let totalFrames: Int64
    private let framesPerColumn: Int64
    private let emit: (Int, WaveformColumn) -> Void
    private var column = 0
    private var columnEnd: Int64
    private var position: Int64 = 0
    private var minimum: [Float]
    private var maximum: [Float]
    private var squares: [Double]
    private var filled: Int64 = 0

    /// `columns` columns over `frames` frames (a picture `columns` pixels wide); at least one column.
    public init(channelCount: Int, frames: Int64, columns: Int, emit: @escaping (Int, WaveformColumn) -> Void) {
        self.channelCount = max(1, channelCount)
        columnCount = max(1, columns)
        totalFrames = max(0, frames)
        framesPerColumn = 0
        self.emit = emit
        minimum = [Float](repeating: 0, count: self.channelCount)
        maximum = minimum
        squares = [Double](repeating: 0, count: self.channelCount)
        columnEnd = 0
        columnEnd = Self.span(column: 0, columns: max(1, columns), frames: totalFrames).upperBound
        reset()
    }

    /// A column every `framesPerColumn` frames, for as long as frames come (at least 1 per column).
    public init(channelCount: Int, framesPerColumn: Int, emit: @escaping (Int, WaveformColumn) -> Void) {
        self.channelCount = max(1, channelCount)
        columnCount = nil
        totalFrames = 0
        self.framesPerColumn = Int64(max(1, framesPerColumn))
        self.emit = emit
        minimum = [Float](repeating: 0, count: self.channelCount)
        maximum = minimum
        squares = [Double](repeating: 0, count: self.channelCount)
        columnEnd = self.framesPerColumn
        reset()
    }

    /// Frames `column` of `columns` covers over `frames` frames.
    static func span(column: Int, columns: Int, frames: Int64) -> Range<Int64> {
        guard columns > 0, column >= 0, column < columns else { return frames..<frames }
        let lower = frames.multipliedFullWidth(by: Int64(column))
        let upper = frames.multipliedFullWidth(by: Int64(column + 1))
        let divisor = Int64(columns)
        let start = divisor.dividingFullWidth(lower).quotient
        let end = divisor.dividingFullWidth(upper).quotient
        return start..<end
    }

    private func reset() {
        for channel in 0..<channelCount {
            minimum[channel] = .infinity
            maximum[channel] = -.infinity
            squares[channel] = 0
        }
        filled = 0
    }

    private func complete() {
        // A column with no finite sample (empty, or all NaN) is drawn as silence.
        let count = Double(max(filled, 1))
        let values = WaveformColumn(
            minimum: zip(minimum, maximum).map { $0 <= $1 ? $0 : 0 },
            maximum: zip(minimum, maximum).map { $0 <= $1 ? $1 : 0 },
            rms: squares.map { Float(($0 / count).squareRoot()) })
        emit(column, values)
        column += 1
        reset()
        if let columnCount {
            columnEnd = Self.span(column: column, columns: columnCount, frames: totalFrames).upperBound
        } else {
            columnEnd += framesPerColumn
        }
    }

    /// Adds `samples.count / channelCount` interleaved frames. Non-finite samples are passed over (a
    /// column's RMS is over all its frames, a non-finite one counting as 0).
    /// Frames past a fixed-count picture's length are ignored.
    public func add(interleaved samples: UnsafeBufferPointer<Float>) {
        let frames = samples.count / channelCount
        var index = 0
        while index < frames {
            if let columnCount, column >= columnCount { return }
            let take = Int(min(Int64(frames - index), columnEnd - position))
            for channel in 0..<channelCount {
                var low = minimum[channel], high = maximum[channel], square = 0.0
                var at = index * channelCount + channel
                for _ in 0..<take {
                    let value = samples[at]
                    at += channelCount
                    guard value.isFinite else { continue }
                    low = min(low, value)
                    high = max(high, value)
                    square += Double(value) * Double(value)
                }
                minimum[channel] = low
                maximum[channel] = high
                squares[channel] += square
            }
            filled += Int64(take)
            position += Int64(take)
            index += take
            if position == columnEnd {
                complete()
            }
        }
    }

    /// Frames from now to the end of the current column, at least 1 (`Int64.max` once a fixed-count
    /// picture is full); columns that hold no frame (a picture wider than its file) are emitted first.
    func framesToColumnEnd() -> Int64 {
        while columnEnd == position {
            if let columnCount, column >= columnCount { break }
            complete()
        }
        if let columnCount, column >= columnCount { return .max }
        return columnEnd - position
    }

    /// Adds `frames` frames that lie within the current column (at most `framesToColumnEnd`), measured by
    /// the caller in the pass it makes anyway: per channel their lowest and highest finite sample
    /// (+∞ and −∞ when none is) and the sum of their squares. Completes the column at its end.
    func add(frames: Int, minimum runMinimum: UnsafeBufferPointer<Float>, maximum runMaximum: UnsafeBufferPointer<Float>,
             squares runSquares: UnsafeBufferPointer<Double>) {
        guard frames > 0, framesToColumnEnd() != .max else { return }
        let take = Int64(min(Int64(frames), columnEnd - position))
        for channel in 0..<channelCount {
            minimum[channel] = min(minimum[channel], runMinimum[channel])
            maximum[channel] = max(maximum[channel], runMaximum[channel])
            squares[channel] += runSquares[channel]
        }
        filled += take
        position += take
        if position == columnEnd { complete() }
    }

    /// Emits the column in progress (a peak file's last, partial pixel; a picture of a file that ended
    /// early: its remaining columns, empty).
    public func finish() {
        if let columnCount {
            while column < columnCount { complete() }
        } else if filled > 0 {
            complete()
        }
    }
}
