// How one source's clock stands against the first source's: a least-squares line through their frame
// difference, measured over time, its slope pooled across the stretches between losses.

/// Observations of one source against the first (the take's clock): at one instant the first source
/// had captured `reference` frames and this one `reference + difference`. The line through the last
/// `window` of them gives where the source stands at any frame of the first (`difference(at:)`) and how
/// fast it runs against it (`slope`: 0 for one clock, 200e-6 for a source 200 ppm fast).
///
/// A loss (`breakLine`) may step the difference by what was not accounted for, never the rate: the
/// observations after it start a new stretch with a level of its own, and the slope is the one line
/// fitted to every stretch at once (each about its own mean), so no step is ever read as drift. After a
/// loss the first `leftOutAfterLoss` answers are left out altogether and the next `levelOnlyAfterLoss`
/// place the level but stay out of the line (they come while the server and this process catch up
/// after a stall). The level is the one before the loss until `levelAnswers` have come, then their
/// median, then the new stretch's line once it has `settling` observations of its own.
///
/// Precision: each answer scatters with when the server's threads ran (about 0.1 ms idle, a millisecond
/// or more on a loaded machine); ten answers a second over up to ten minutes put the slope within a ppm.
/// Storage is allocated once; adding an observation and reading the fit allocate nothing.
struct LaneClock {
    private var references: [Double]
    private var differences: [Double]
    private var stretches: [Int]
    /// False for an answer kept for the level only (the first after a loss: see `levelOnlyAfterLoss`).
    private var fitted: [Bool]
    private var next = 0
    private(set) var count = 0
    private var stretch = 0
    private(set) var slope = 0.0
    /// The point the line goes through: the settled newest stretch's means.
    private var meanReference = 0.0
    private var meanDifference = 0.0
    /// Frames of the first source covered by the stretches in the window, added up (gaps between them
    /// left out).
    private(set) var spread = 0.0
    /// Scratch for `placingDifference`'s median, allocated once.
    private var placing = [Double](repeating: 0, count: LaneClock.placingAnswers)
    /// Scratch for the fit: each stretch's means in the first pass (in order), and the absolute
    /// residuals; allocated once, a window's worth.
    private var stretchMeans: [(stretch: Int, x: Double, y: Double)]
    private var stretchCount = 0
    private var residuals: [Double]
    /// The least scatter (frames) an outlier threshold assumes: with answers that agree to a fraction of
    /// this, none is left out for being a few of their scatters off.
    private let scatterFloor: Double

    /// How far apart (frames of the first source) observations must be before a slope is claimed.
    private let minimumSpread: Double
    /// Observations a new stretch needs before its level replaces the one before.
    private let settling: Int
    /// Answers left out after a loss: the first ones after a stall come while the server and this
    /// process catch up, and scatter far more than the rest (half a second's worth, five).
    private let leftOutAfterLoss: Int
    private var leftOut = 0
    /// Answers after those left out that place the new level but stay out of the line (two seconds'
    /// worth, twenty): after a stall they still scatter with a lean while the server and this process
    /// catch up (with them in the line a stalled take beside the test suite's load measured 216 ppm for
    /// 200), but their median places the source far better than the level before the loss.
    private let levelOnlyAfterLoss: Int
    private var levelOnly = 0
    /// Answers a level-only median needs before it replaces the level before the loss.
    private let levelAnswers: Int

    init(window: Int = 6_000, minimumSpread: Double, scatterFloor: Double = 0, settling: Int = 8, leftOutAfterLoss: Int = 5,
         levelOnlyAfterLoss: Int = 20, levelAnswers: Int = 5) {
        self.minimumSpread = minimumSpread
        self.scatterFloor = scatterFloor.isFinite ? max(0, scatterFloor) : 0
        self.settling = max(1, settling)
        self.leftOutAfterLoss = max(0, leftOutAfterLoss)
        self.levelOnlyAfterLoss = max(0, levelOnlyAfterLoss)
        self.levelAnswers = max(1, levelAnswers)
        references = [Double](repeating: 0, count: max(2, window))
        differences = references
        stretches = [Int](repeating: 0, count: references.count)
        fitted = [Bool](repeating: true, count: references.count)
        stretchMeans = [(stretch: Int, x: Double, y: Double)](repeating: (0, 0, 0), count: references.count)
        residuals = [Double](repeating: 0, count: references.count)
    }

    /// Adds one observation and fits the line again.
    mutating func add(reference: Double, difference: Double) {
        guard reference.isFinite, difference.isFinite else { return }
        if leftOut > 0 {
            leftOut -= 1
            return
        }
        answersSinceBreak += 1
        references[next] = reference
        differences[next] = difference
        stretches[next] = stretch
        fitted[next] = levelOnly == 0
        if levelOnly > 0 { levelOnly -= 1 }
        next = (next + 1) % references.count
        count = min(count + 1, references.count)
        fit()
    }

    /// A loss in this source or the first: what follows may stand at another level.
    mutating func breakLine() {
        if count > 0 { stretch += 1 }
        leftOut = leftOutAfterLoss
        levelOnly = levelOnlyAfterLoss
        isSettled = false
        answersSinceBreak = 0
    }

    /// Observations kept since the last break (its left-out answers not counted).
    private(set) var answersSinceBreak = 0

    /// True once the stretch since the last break has `settling` observations: the level is its own.
    private(set) var isSettled = false

    /// Where the source stands against the first (frames) to place it on the take: the median of the
    /// newest stretch's last `placingAnswers` observations (the line's level before any observation).
    /// Not their mean: one answer that came late on a loaded machine (ten milliseconds and more, where
    /// they scatter by a tenth of one) would move a mean of eight by more than a millisecond; the median
    /// moves by one answer's scatter at most while fewer than half are late.
    var placingDifference: Double {
        mutating get {
            let capacity = references.count
            var taken = 0
            var newestStretch: Int?
            for back in 0..<count where taken < placing.count {
                let index = (next - 1 - back + 2 * capacity) % capacity
                if newestStretch == nil { newestStretch = stretches[index] }
                guard stretches[index] == newestStretch else { break }
                // Insertion into the sorted prefix (at most `placingAnswers` values: no allocation).
                var slot = taken
                while slot > 0 && placing[slot - 1] > differences[index] {
                    placing[slot] = placing[slot - 1]
                    slot -= 1
                }
                placing[slot] = differences[index]
                taken += 1
            }
            guard taken > 0 else { return meanDifference }
            return taken % 2 == 1 ? placing[taken / 2] : (placing[taken / 2 - 1] + placing[taken / 2]) / 2
        }
    }

    /// Observations the placing median takes (a second and a half of timing rounds).
    static let placingAnswers = 15

    /// The fitted difference at the first source's frame `reference`.
    func difference(at reference: Double) -> Double {
        meanDifference + slope * (reference - meanReference)
    }

    /// The source's rate against the first's, in parts per million (positive: it runs fast).
    var ppm: Double { slope * 1e6 }

    /// The line through the window: fitted once, then again without the answers whose residual is more
    /// than `outlierScatters` robust scatters (1.4826 × the median absolute residual, at least
    /// `scatterFloor`) off it. A late answer on a loaded machine (ten milliseconds and more, where the rest
    /// scatter by a tenth of one) weighs by its distance from the stretch's middle: a handful of them at a
    /// stretch's end moved the slope of a stalled take's second source by 12 ppm. Fewer than
    /// `rejectionMinimum` fitted answers: the plain fit.
    private mutating func fit() {
        let first = line(within: nil)
        var chosen = first
        if first.fitted >= Self.rejectionMinimum, let threshold = residualThreshold(first) {
            chosen = line(within: (first, threshold))
        }
        spread = chosen.covered
        isSettled = chosen.fittedSinceBreak >= settling
        var anchor = chosen.anchor
        if chosen.fittedSinceBreak < settling, chosen.levelOnlyCount >= levelAnswers {
            // The line has not settled since the loss: the level is the median of the answers since.
            anchor = (chosen.levelOnlyCount, chosen.levelOnlyX, placingDifference)
        }
        meanReference = anchor.x + chosen.base
        meanDifference = anchor.y
        // A line needs observations spread over some audio (ten seconds'); before that, no slope is claimed.
        slope = count >= 3 && chosen.pooledXX > 0 && spread >= minimumSpread ? chosen.pooledXY / chosen.pooledXX : 0
    }

    /// Fitted answers below which no answer is left out as late (two seconds of rounds).
    static let rejectionMinimum = 20
    /// Robust scatters beyond which an answer is left out of the second fit.
    static let outlierScatters = 4.0

    /// One fit of the window.
    private struct Line {
        var base = 0.0
        var pooledXX = 0.0, pooledXY = 0.0, covered = 0.0
        var fitted = 0
        var fittedSinceBreak = 0
        var anchor = (n: 0, x: 0.0, y: 0.0)
        var levelOnlyX = 0.0, levelOnlyCount = 0
        var slope: Double { pooledXX > 0 ? pooledXY / pooledXX : 0 }
    }

    /// One pass, oldest first, with each stretch's sums kept about its running means (Welford's way,
    /// and about the oldest reference, so months of frames lose no precision). With `within`, answers
    /// further than its threshold from that line (each about its own stretch's means there) are left out.
    /// Each stretch's means are written to `stretchMeans` in order.
    private mutating func line(within: (line: Line, threshold: Double)?) -> Line {
        let capacity = references.count, oldest = (next - count + capacity) % capacity
        var result = Line()
        result.base = references[oldest]
        var current = (stretch: stretches[oldest], n: 0, x: 0.0, y: 0.0, first: 0.0, last: 0.0)
        var previous: (n: Int, x: Double, y: Double)?
        var stretchIndex = 0
        var meanIndex = 0
        for step in 0..<count {
            let index = (oldest + step) % capacity
            let x = references[index] - result.base, y = differences[index]
            guard fitted[index] else {
                if stretches[index] == stretch {
                    result.levelOnlyCount += 1
                    result.levelOnlyX += (x - result.levelOnlyX) / Double(result.levelOnlyCount)
                }
                continue
            }
            if let within {
                let mean = firstFitMean(of: stretches[index], from: &meanIndex)
                if mean.stretch == stretches[index], abs(y - (mean.y + within.line.slope * (x - mean.x))) > within.threshold { continue }
            }
            if stretches[index] != current.stretch {
                if current.n > 0 {
                    result.covered += current.last - current.first
                    previous = (current.n, current.x, current.y)
                    if within == nil { stretchMeans[stretchIndex] = (current.stretch, current.x, current.y) }
                    stretchIndex += 1
                }
                current = (stretches[index], 0, 0, 0, x, x)
            }
            if current.n == 0 { current.first = x }
            current.n += 1
            result.fitted += 1
            let dx = x - current.x
            current.x += dx / Double(current.n)
            current.y += (y - current.y) / Double(current.n)
            result.pooledXX += dx * (x - current.x)
            result.pooledXY += dx * (y - current.y)
            current.last = x
        }
        if current.n > 0 {
            result.covered += current.last - current.first
            if within == nil { stretchMeans[stretchIndex] = (current.stretch, current.x, current.y) }
            stretchIndex += 1
        }
        if within == nil { stretchCount = stretchIndex }
        result.fittedSinceBreak = current.stretch == stretch ? current.n : 0
        result.anchor = current.n >= settling || previous == nil ? (current.n, current.x, current.y) : previous!
        return result
    }

    /// The first fit's means of `stretch`, looked for from `index` on (stretches come in order, each once,
    /// so a pass over the window moves `index` forward only); another stretch's when it had none.
    private func firstFitMean(of stretch: Int, from index: inout Int) -> (stretch: Int, x: Double, y: Double) {
        while index + 1 < stretchCount, stretchMeans[index].stretch != stretch { index += 1 }
        return stretchMeans[index]
    }

    /// `outlierScatters` robust scatters of the first fit's residuals (at least `scatterFloor` frames),
    /// or nil when every answer is within that already.
    private mutating func residualThreshold(_ first: Line) -> Double? {
        let capacity = references.count, oldest = (next - count + capacity) % capacity
        var taken = 0
        var meanIndex = 0
        for step in 0..<count {
            let index = (oldest + step) % capacity
            guard fitted[index], stretchCount > 0 else { continue }
            let mean = firstFitMean(of: stretches[index], from: &meanIndex)
            guard mean.stretch == stretches[index] else { continue }
            residuals[taken] = abs(differences[index] - (mean.y + first.slope * (references[index] - first.base - mean.x)))
            taken += 1
        }
        guard taken >= Self.rejectionMinimum else { return nil }
        let median = residuals.withUnsafeMutableBufferPointer { Self.select(taken / 2, in: $0.baseAddress!, count: taken) }
        let threshold = max(scatterFloor, Self.outlierScatters * 1.4826 * median)
        var largest = 0.0
        for index in 0..<taken { largest = max(largest, residuals[index]) }
        return largest > threshold ? threshold : nil
    }

    /// The `k`-th smallest of `count` values (reordering them): Hoare's selection, no allocation.
    private static func select(_ k: Int, in values: UnsafeMutablePointer<Double>, count: Int) -> Double {
        var low = 0, high = count - 1
        while low < high {
            let pivot = values[(low + high) / 2]
            var i = low, j = high
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j {
                    (values[i], values[j]) = (values[j], values[i])
                    i += 1
                    j -= 1
                }
            }
            if k <= j { high = j } else if k >= i { low = i } else { return values[k] }
        }
        return values[k]
    }
}
