// What an ear (a capture of a sink's monitor) heard, compared with what a player played: the server's
// own accounts decide where silence may stand (the player's reported underruns, the ear's reported
// losses); the test signals never hold 8 zeros in a row, so such a run is the sink playing nothing.
import RecorderKit

/// What an ear heard: its samples (interleaved), and the stretches it lost itself and wrote as silence
/// (its summary's gaps), where what the sink played is unknown.
public struct Heard: Sendable {
    /// Interleaved samples.
    public let samples: [Int16]
    /// Samples per frame.
    public let channels: Int
    /// Frame ranges of `samples` that the ear reported lost.
    public let lost: [Range<Int>]

    public init(samples: [Int16], channels: Int = 1, lost: [Range<Int>] = []) {
        self.samples = samples
        self.channels = max(1, channels)
        self.lost = lost.sorted { $0.lowerBound < $1.lowerBound }
    }

    /// An ear's take and the gaps its summary placed in it.
    public init(samples: [Int16], channels: Int, gaps: [RecordingGap]) {
        self.init(samples: samples, channels: channels,
                  lost: gaps.map { Int($0.startFrame)..<Int($0.startFrame + $0.frameCount) })
    }

    /// One channel of it, with the same losses.
    public func channel(_ index: Int) -> Heard {
        Heard(samples: stride(from: index, to: samples.count, by: channels).map { samples[$0] }, lost: lost)
    }

    /// Frames the ear reported lost.
    public var lostFrames: Int { lost.reduce(0) { $0 + $1.count } }
}

/// How a mono `Heard` compares with what was played.
public struct HeardComparison: Sendable {
    /// Where the heard departs from the played, or nil if it does not.
    public let departure: String?
    /// Runs of 8 or more zeros heard that were not played and that the ear did not lose: the sink
    /// playing nothing while the player was late.
    public let silentGaps: Int
    /// Stretches the ear lost that the comparison had to skip.
    public let earLosses: Int
}

/// Compares what a mono ear heard with `played`: `played` from its first sample on, every sample
/// within `tolerance` of it, nothing repeated or lost, and silent (a run of 8 or more zeros `played`
/// does not hold) only where the player reported an underrun (at most `underruns` such runs), then
/// silence to the end. Where the ear reported a loss (widened by the zeros that touch it), what was
/// played is unknown: the comparison picks up again at the next stretch heard, which must come later in
/// `played` by no more frames than the ear lost.
public func compare(heard: Heard, played: [Int16], underruns: Int, tolerance: Int = 0) -> HeardComparison {
    let samples = heard.samples
    func near(_ a: Int16, _ b: Int16) -> Bool { abs(Int(a) - Int(b)) <= tolerance }
    // The ear's losses widened by adjacent zeros (the silence written for a loss may sit a few frames
    // off the place the ear gave it), clipped to the take, merged; each with the frames the ear said
    // it lost there (the most the sink can have played meanwhile).
    var unknown: [(range: Range<Int>, reported: Int)] = []
    for range in heard.lost {
        var lower = max(0, min(range.lowerBound, samples.count)), upper = max(lower, min(range.upperBound, samples.count))
        while lower > 0, samples[lower - 1] == 0 { lower -= 1 }
        while upper < samples.count, samples[upper] == 0 { upper += 1 }
        if let last = unknown.last, last.range.upperBound >= lower {
            unknown[unknown.count - 1] = (last.range.lowerBound..<max(upper, last.range.upperBound), last.reported + range.count)
        } else {
            unknown.append((lower..<upper, range.count))
        }
    }
    var position = 0, gaps = 0, losses = 0, index = 0, started = false, unheard = 0
    var departure: String?
    // The stretches between the ear's losses, each with the loss before it (nil for the first).
    let stretches = (0...unknown.count).map { number in
        let lower = number == 0 ? 0 : unknown[number - 1].range.upperBound
        let upper = number == unknown.count ? samples.count : unknown[number].range.lowerBound
        return (loss: number == 0 ? nil : unknown[number - 1], range: lower..<upper)
    }
    stretches: for (loss, range) in stretches {
        unheard += loss?.reported ?? 0
        guard let first = samples[range].firstIndex(where: { $0 != 0 }) else { continue }
        // Where this stretch stands in `played`: its first samples (no loss before anything was heard),
        // or where its first 64 samples from the first non-zero one stand after what was compared.
        if !started, loss == nil {
            guard let start = firstIndex(of: Array(played.prefix(1_000)), in: samples[range], near: near) else {
                departure = "the start was not heard"
                break stretches
            }
            index = start
        } else {
            let needle = Array(samples[first..<min(first + 64, range.upperBound)])
            guard let found = firstIndex(of: needle, in: played[position...], near: near) else {
                departure = "heard at frame \(first) what was not played after frame \(position)"
                break stretches
            }
            if found - position > unheard {
                departure = "\(found - position) played frames not heard before frame \(first), where the ear lost \(unheard)"
                break stretches
            }
            losses += 1
            unheard = 0
            position = found
            index = first
        }
        started = true
        var zeros = 0
        while index < range.upperBound {
            let sample = samples[index]
            index += 1
            if sample == 0 { zeros += 1; continue }
            if zeros > 0 {
                // The zeros played here, then any not played: 8 or more are the sink playing nothing.
                var matched = 0
                while matched < zeros, position + matched < played.count, near(0, played[position + matched]) { matched += 1 }
                position += matched
                if zeros - matched >= 8 {
                    gaps += 1
                } else if zeros > matched {
                    departure = "\(zeros - matched) zeros heard at frame \(index - 1 - zeros + matched) that were not played"
                    break stretches
                }
                zeros = 0
            }
            guard position < played.count else {
                departure = "more was heard after it, at frame \(index - 1)"
                break stretches
            }
            guard near(sample, played[position]) else {
                departure = "departs \(position) frames in (frame \(index - 1) heard)"
                break stretches
            }
            position += 1
        }
        // Zeros at the end of what was heard: the played's own last zeros.
        while zeros > 0, position < played.count, near(0, played[position]) { zeros -= 1; position += 1 }
    }
    if departure == nil, position < played.count {
        // Not all of it heard: allowed only where the ear lost the end (as many frames or more).
        if unheard > 0, played.count - position <= unheard {
            losses += 1
        } else {
            departure = "only \(position) of \(played.count) frames heard"
        }
    }
    if departure == nil, gaps > underruns {
        departure = "\(gaps) silent gaps heard, \(underruns) underruns reported (and \(losses) losses by the ear skipped)"
    }
    return HeardComparison(departure: departure, silentGaps: gaps, earLosses: losses)
}

/// `compare(heard:played:underruns:tolerance:)`'s departure.
public func departure(ofHeard heard: Heard, from played: [Int16], underruns: Int, tolerance: Int = 0) -> String? {
    compare(heard: heard, played: played, underruns: underruns, tolerance: tolerance).departure
}

/// The same for an ear that reports no losses (a reference capture).
public func departure(ofHeard heard: [Int16], from played: [Int16], underruns: Int) -> String? {
    departure(ofHeard: Heard(samples: heard), from: played, underruns: underruns)
}

/// What a mono ear heard of a signal with no silence in it, from its first sample to its last, with
/// the silent runs (8 or more zeros) and the ear's losses left out; nil if there were more silent runs
/// than the `underruns` the player reported.
public func heardSignal(_ heard: Heard, underruns: Int) -> [Int16]? {
    let samples = heard.samples
    var lost = [Bool](repeating: false, count: samples.count)
    for range in heard.lost { for frame in range.clamped(to: 0..<samples.count) { lost[frame] = true } }
    guard let first = samples.firstIndex(where: { $0 != 0 }), let last = samples.lastIndex(where: { $0 != 0 }) else { return [] }
    var joined: [Int16] = [], zeros = 0, gaps = 0, touchesLoss = false
    for index in first...last {
        if lost[index] { zeros = 0; touchesLoss = true; continue }
        let sample = samples[index]
        if sample == 0 { zeros += 1; continue }
        if zeros >= 8, !touchesLoss { gaps += 1 } else if !touchesLoss { joined += repeatElement(0, count: zeros) }
        zeros = 0
        touchesLoss = false
        joined.append(sample)
    }
    return gaps <= underruns ? joined : nil
}

/// Where `needle` first stands contiguously in `haystack`, every sample `near` its own, as an index of
/// `haystack`; nil if nowhere.
func firstIndex(of needle: [Int16], in haystack: ArraySlice<Int16>, near: (Int16, Int16) -> Bool) -> Int? {
    guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
    for start in haystack.startIndex...(haystack.endIndex - needle.count) where near(haystack[start], needle[0]) {
        if zip(haystack[start..<(start + needle.count)], needle).allSatisfy({ near($0, $1) }) { return start }
    }
    return nil
}
