// Recorder.meterReadings against a real private server: one reading per buffer, each meter's value of
// the 1 kHz sine source (peak −6.02 dBFS), and the streams' end at stop().
import RecorderKit
import Testing
import TestSupport

/// The readings of `stream` until its meter has been fed `seconds` of audio.
private func readings(_ stream: AsyncStream<MeterReading>, until seconds: Double) async throws -> [MeterReading] {
    var result = [MeterReading]()
    for await reading in stream {
        result.append(reading)
        if reading.time - result[0].time + Double(result[0].frameCount) / 44_100 >= seconds { return result }
    }
    throw TestFailure("the meter stream ended at \(result.last?.time ?? 0) s")
}

@Suite(.timeLimit(.minutes(3)))
struct MeterReadingTests {
    /// Silence has one spelling in the dB API: −160, in the core levels, every standard meter's values
    /// and the AVAudioRecorder-style calls; the loudness of silence is undefined: nil.
    @Test func silenceReadsMinus160EverywhereInTheAPI() async throws {
        try await withPrivateServer { server in
            let recorder = try Recorder(source: PrivateServer.monoSink + ".monitor", server: server.address)
            defer { recorder.stop() }
            recorder.isMeteringEnabled = true
            for kind in MeterKind.allCases {
                let stream = try recorder.meterReadings(kind)
                let seen = try await readings(stream, until: 0.5)
                #expect(seen.allSatisfy { $0.values == [-160] && $0.levels == [LevelMeterState(averagePower: -160, peakPower: -160)] },
                        "\(kind): \(seen.map(\.values))")
                if kind == .loudness {
                    #expect(seen.allSatisfy { $0.loudness?.momentary == nil && $0.loudness?.integrated == nil })
                }
            }
            recorder.updateMeters()
            #expect(recorder.peakPower(forChannel: 0) == -160 && recorder.averagePower(forChannel: 0) == -160)
            #expect(recorder.getPeakPower() == -160)
        }
    }

    @Test func liveMetersReadTheSineOncePerBufferAndEndAtStop() async throws {
        try await withPrivateServer { server in
            let recorder = try Recorder(source: PrivateServer.sineSource, server: server.address)
            defer { recorder.stop() }
            let vu = try recorder.meterReadings(.vu, options: MeterOptions(vuReference: -6.02))
            let ppm = try recorder.meterReadings(.ppm2)
            let loudness = try recorder.meterReadings(.loudness)

            let vuReadings = try await readings(vu, until: 2)
            // One reading per buffer, none skipped, each carrying the core levels too.
            #expect(zip(vuReadings, vuReadings.dropFirst()).allSatisfy { $1.endFrame == $0.endFrame + Int64($1.frameCount) })
            #expect(vuReadings.allSatisfy { $0.kind == .vu && $0.levels.count == 1 && $0.loudness == nil })
            for reading in vuReadings where reading.time - vuReadings[0].time >= 0.9 {
                #expect(abs(reading.values[0]) < 0.15, "0 VU at the sine's level: \(reading.values)")
                #expect(abs(reading.levels[0].peakPower - -6.02) < 0.05)
            }
            // A type II PPM reads a steady 1 kHz sine at its peak level: −6.02 dB.
            let ppmLast = try #require(try await readings(ppm, until: 1).last)
            #expect(abs(ppmLast.values[0] - -6.02) < 0.2, "\(ppmLast.values)")
            // Mono 1 kHz at −6.02 dBFS: −9.03 LUFS (a full-scale sine is −3.01); true peak −6.02 dBTP.
            let loudnessLast = try #require(try await readings(loudness, until: 3.5).last)
            let programme = try #require(loudnessLast.loudness)
            for value in [programme.momentary, programme.shortTerm, programme.integrated] {
                #expect(abs((value ?? 0) - -9.03) < 0.1, "\(programme)")
            }
            #expect(abs(loudnessLast.values[0] - -6.02) < 0.1, "true peak \(loudnessLast.values)")

            // stop() ends every meter stream.
            await recorder.stop()
            for await _ in ppm {}
            for await _ in vu {}
            let late = try recorder.meterReadings(.peak)
            for await _ in late { Issue.record("a stream made after stop() yielded a reading") }
        }
    }
}
