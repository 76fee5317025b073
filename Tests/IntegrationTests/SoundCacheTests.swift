// RecorderKit's SoundCache against a private server: sounds kept and played there, each play's end
// reported once, and every way a sound cannot be kept or played said at once, never a hang or a trap.
import Foundation
import RecorderKit
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct SoundCacheTests {
    /// Waits for `count` answers from `finished` handlers; the ceiling (60 s) only a hang reaches.
    final class Answers: @unchecked Sendable {
        // @unchecked Sendable: `values` only under `lock`.
        private let lock = NSLock()
        private var values: [Bool] = []

        func add(_ value: Bool) { lock.withLock { values.append(value) } }

        func wait(for count: Int) async throws -> [Bool] {
            try await waitFor("\(count) plays to be answered") { lock.withLock { values.count >= count } }
            return lock.withLock { values }
        }
    }

    @Test func soundsPlayToTheirEndAndEveryRefusalIsSaid() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let short = directory + "/short.wav", long = directory + "/long.wav"
            try writeWAV(short, samples: sineSamples(frames: 4_410, frequency: 880, amplitudes: [0.3]), channels: 1)
            try writeWAV(long, samples: sineSamples(frames: 441_000, frequency: 440, amplitudes: [0.3]), channels: 1)
            let cache = try SoundCache(server: server.address)
            try cache.add(file: short, as: "short")
            // Two plays at once, one at a volume no one should pass (NaN: taken as 1), one below 0 (silent):
            // both played to their end; a sound the server does not have, and a sink it does not have, false.
            let answers = Answers()
            cache.play("short", volume: .nan) { answers.add($0) }
            cache.play("short", volume: -5) { answers.add($0) }
            #expect(try await answers.wait(for: 2) == [true, true])
            cache.play("nothing such") { answers.add($0) }
            #expect(try await answers.wait(for: 3).last == false)
            cache.play("short", sink: "no_such_sink") { answers.add($0) }
            #expect(try await answers.wait(for: 4).last == false)
            // Too long for the limit asked, a file that is not there: one line each, naming the file.
            #expect {
                try cache.add(file: long, as: "long", maximumSeconds: 1)
            } throws: { error in
                let failure = error as? RecorderError
                return failure?.code == .invalidFormat && failure?.message.contains("lasts 10.0 s") == true
            }
            #expect {
                try cache.add(file: directory + "/missing.wav", as: "missing")
            } throws: { error in
                (error as? RecorderError)?.code == .cannotReadFile && "\(error)".contains("missing.wav")
            }
            // A play under way when the cache closes is told false, once; a play after it, false too.
            try cache.add(file: long, as: "long")
            let closing = Answers()
            cache.play("long") { closing.add($0) }
            try await waitFor("the long sound to be playing") {
                try server.run("pactl", ["list", "short", "sink-inputs"]).stdout.contains("\t")
            }
            cache.close()
            cache.play("short") { closing.add($0) }
            #expect(try await closing.wait(for: 2) == [false, false])
            cache.close()
        }
    }
}
