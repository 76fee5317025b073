// How one source's clock stands against the first source's: a least-squares line through their frame
// difference, measured over time.

/// Observations of one source against the first (the take's clock): at one instant the first source
/// had captured `reference` frames and this one `reference + difference`. The line through the last
/// `window` of them gives where the source stands at any frame of the first (`difference(at:)`) and how
/// fast it runs against it (`slope`: 0 for one clock, 200e-6 for a source 200 ppm fast).
///
/// Storage is allocated once; adding an observation and reading the fit allocate nothing.
struct LaneClock {
    private var references: [Double]
    private var differences: [Double]
    private var next = 0
    private(set) var count = 0
    private(set) var slope = 0.0
    private var meanReference = 0.0
    private var meanDifference = 0.0

    /// How far apart (frames of the first source) observations must be before a slope is claimed.
    private let minimumSpread: Double

    init(window: Int = 120, minimumSpread: Double) {
        self.minimumSpread = minimumSpread
        references = [Double](repeating: 0, count: max(2, window))
        differences = references
    }

    /// Adds one observation and fits the line again.
    mutating func add(reference: Double, difference: Double) {
        guard reference.isFinite, difference.isFinite else { return }
        references[next] = reference
        differences[next] = difference
        next = (next + 1) % references.count
        count = min(count + 1, references.count)
        fit()
    }

    /// The first observations' mean difference (frames), before any drift can show.
    var meanDifferenceSoFar: Double { meanDifference }

    /// The fitted difference at the first source's frame `reference`.
    func difference(at reference: Double) -> Double {
        meanDifference + slope * (reference - meanReference)
    }

    /// The source's rate against the first's, in parts per million (positive: it runs fast).
    var ppm: Double { slope * 1e6 }

    private mutating func fit() {
        var sumX = 0.0, sumY = 0.0
        for index in 0..<count {
            sumX += references[index]
            sumY += differences[index]
        }
        meanReference = sumX / Double(count)
        meanDifference = sumY / Double(count)
        var sxx = 0.0, sxy = 0.0
        for index in 0..<count {
            let x = references[index] - meanReference
            sxx += x * x
            sxy += x * (differences[index] - meanDifference)
        }
        // A line needs observations spread over some audio (ten seconds'); before that, no slope is claimed.
        slope = count >= 3 && sxx > 0 && spread >= minimumSpread ? sxy / sxx : 0
    }

    /// How far apart (frames of the first source) the observations in the window lie.
    var spread: Double {
        var low = Double.infinity, high = -Double.infinity
        for index in 0..<count {
            low = min(low, references[index])
            high = max(high, references[index])
        }
        return high - low
    }
}
