// Issue 12, point 6: a day of 48 kHz stereo through the recorder's readout (the core level meter, level
// readings, and the five standard meters: peak, VU, PPM I and II, loudness), at full speed, without a
// server. Resident memory must not grow by 2 MB or more after the first minute, and the live loudness
// meter's integrated value (libebur128 histograms) must be within 0.1 LU of block mode's.
//
//   recorder-longrun [HOURS]    (default 24; built in release by the test command)
//
// Prints what it measured as one JSON object; exits 1 (with the reason on stderr) if a check fails.
// The audio is a 60 s programme (noise whose level changes every 0.7 s, so the gates and the loudness
// range have work to do) played over and over. Being periodic, its block-mode integrated loudness over
// a day is its value over whole periods: computed here over 10 and 20 minutes (they must agree), since
// block mode over the day would keep the very blocks this check is about.
import Dispatch
import Glibc
import RecorderKit

/// Writes `message` as one line on stderr and exits with `status`.
func exit(_ status: Int32, saying message: String) -> Never {
    let line = Array("recorder-longrun: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

let hours = CommandLine.arguments.count > 1 ? Double(CommandLine.arguments[1]) ?? -1 : 24
guard hours.isFinite, hours > 0, hours <= 48 else {
    exit(64, saying: "invalid hours '\(CommandLine.arguments[1])': use a number above 0, up to 48")
}

let rate = 48_000, channels = 2
let format = try StreamFormat(sampleRate: rate, channelCount: channels)
let bufferFrames = rate / 10
let period = 60 * rate  // frames in the programme that repeats

/// The programme as interleaved signed 16-bit big-endian bytes: xorshift noise, level changing every 0.7 s.
func programme() -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: period * channels * 2)
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    let levels = [0.02, 0.1, 0.05, 0.3, 0.01, 0.2, 0.0005]
    for frame in 0..<period {
        let level = levels[(frame / (7 * rate / 10)) % levels.count]
        for channel in 0..<channels {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            let uniform = Double(state >> 11) / Double(1 << 53) * 2 - 1
            let sample = Int16((uniform * level * (channel == 0 ? 1 : 0.7) * 32_767).rounded())
            let index = (frame * channels + channel) * 2
            bytes[index] = UInt8(truncatingIfNeeded: UInt16(bitPattern: sample) >> 8)
            bytes[index + 1] = UInt8(truncatingIfNeeded: UInt16(bitPattern: sample))
        }
    }
    return bytes
}

/// Resident set size now, bytes (/proc/self/statm's second field, in pages).
func residentBytes() -> Int {
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    guard fgets(&line, Int32(line.count), file) != nil else { return 0 }
    let fields = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: " ")
    guard fields.count >= 2, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Counts what a stream yields and keeps the last element; signals `caughtUp` at every checkpoint frame
/// and `done` when the stream has ended.
final class Consumer<Element: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `last` and `count` are written by the consuming task only, and read by the
    // feeder only after waiting for `done`, which the task signals after its last write.
    var last: Element?
    var count = 0
    let caughtUp = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)

    init(_ stream: AsyncStream<Element>, checkpointEvery: Int64, endFrame: @escaping @Sendable (Element) -> Int64) {
        Task.detached { [self] in
            for await element in stream {
                last = element
                count += 1
                if endFrame(element) % checkpointEvery == 0 { caughtUp.signal() }
            }
            done.signal()
        }
    }
}

let readout = Readout(format: format)
let checkpointFrames = Int64(10 * rate)  // every 10 s of audio the feeder waits for the readers
let levelConsumer = Consumer(readout.levelReadings(), checkpointEvery: checkpointFrames) { $0.endFrame }
let meterConsumers = try MeterKind.allCases.map { kind in
    Consumer(try readout.meterReadings(kind), checkpointEvery: checkpointFrames) { $0.endFrame }
}
func waitForReaders() {
    levelConsumer.caughtUp.wait()
    for consumer in meterConsumers { consumer.caughtUp.wait() }
}

let audio = programme()
let totalFrames = Int64((hours * 3600 * Double(rate)).rounded()) / Int64(bufferFrames) * Int64(bufferFrames)
var scratch = Readout.silentLevels(format)
var position: Int64 = 0
var afterFirstMinute = 0
var largest = 0
var samples: [(minute: Int, resident: Int)] = []
samples.reserveCapacity(Int(hours * 60) + 2)
let clock = ContinuousClock()
let began = clock.now
audio.withUnsafeBytes { all in
    while position < totalFrames {
        let offset = Int(position % Int64(period)) * channels * 2
        let buffer = UnsafeRawBufferPointer(rebasing: all[offset..<(offset + bufferFrames * channels * 2)])
        readout.measure(buffer, into: &scratch)
        position += Int64(bufferFrames)
        readout.publish(buffer, endFrame: position, frameCount: bufferFrames, measured: scratch)
        if position % checkpointFrames == 0 {
            waitForReaders()
            if position % Int64(60 * rate) == 0 {
                let resident = residentBytes()
                samples.append((Int(position / Int64(60 * rate)), resident))
                if position == Int64(60 * rate) { afterFirstMinute = resident }
                largest = max(largest, resident)
            }
        }
    }
}
let elapsed = clock.now - began
readout.finish()
levelConsumer.done.wait()
for consumer in meterConsumers { consumer.done.wait() }

// Block mode over whole periods of the programme: the reference for the integrated value.
func blockIntegrated(minutes: Int) throws -> Double? {
    let meter = try LoudnessMeter(channelCount: channels, sampleRate: rate, truePeak: false)
    audio.withUnsafeBytes { all in
        for _ in 0..<minutes { meter.add(bigEndianS16: all) }
    }
    return meter.integrated
}
let reference10 = try blockIntegrated(minutes: 10)
let reference20 = try blockIntegrated(minutes: 20)

let loudness = meterConsumers.first { $0.last?.kind == .loudness }?.last?.loudness
let integrated = loudness?.integrated
let growth = largest - afterFirstMinute
var failures: [String] = []
if levelConsumer.last?.endFrame != totalFrames || meterConsumers.contains(where: { $0.last?.endFrame != totalFrames }) {
    failures.append("a reader did not see the last buffer")
}
if levelConsumer.count != Int(totalFrames / Int64(bufferFrames)) {
    failures.append("\(levelConsumer.count) level readings for \(totalFrames / Int64(bufferFrames)) buffers")
}
if growth >= 2 << 20 { failures.append("resident memory grew \(growth) bytes after the first minute") }
if let a = reference10, let b = reference20, abs(a - b) > 0.01 { failures.append("block references differ: \(a) vs \(b)") }
if let integrated, let reference = reference20 {
    if abs(integrated - reference) >= 0.1 { failures.append("integrated \(integrated) LUFS vs block mode \(reference)") }
} else {
    failures.append("no integrated loudness (histogram \(String(describing: integrated)), block \(String(describing: reference20)))")
}

let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
print("{\"hours\":\(hours),\"frames\":\(totalFrames),\"buffers\":\(levelConsumer.count),\"seconds\":\(seconds),"
      + "\"rss_after_first_minute\":\(afterFirstMinute),\"rss_largest_after\":\(largest),\"growth\":\(growth),"
      + "\"integrated_histogram\":\(integrated.map { "\($0)" } ?? "null"),"
      + "\"integrated_block_10min\":\(reference10.map { "\($0)" } ?? "null"),"
      + "\"integrated_block_20min\":\(reference20.map { "\($0)" } ?? "null"),"
      + "\"loudness_range\":\(loudness?.loudnessRange.map { "\($0)" } ?? "null"),"
      + "\"rss_by_hour\":[\(samples.filter { $0.minute % 60 == 0 || $0.minute == 1 }.map { "[\($0.minute),\($0.resident)]" }.joined(separator: ","))]}")
if !failures.isEmpty { exit(1, saying: failures.joined(separator: "; ")) }
