// The serving part failing under a take (its listening socket broken, in the same process as the
// recorder): the take goes on and holds every frame; the page is gone, nothing else.
import Foundation
import Glibc
import RecorderKit
import RecorderServer
import Testing
import TestSupport

/// The least a page needs of a take: its state. Reads the recorder; acts on nothing.
private final class Watching: StudioControl {
    let recorder: Recorder
    init(_ recorder: Recorder) { self.recorder = recorder }
    func state() -> String { "{\"recording\": \(recorder.isFileOpen), \"frames\": \(recorder.capturedFrames)}" }
    func sources() -> String { "[]" }
    func perform(_ action: StudioAction) async -> StudioReply { .refused(status: 403, reason: "watching only") }
    func busyFiles() -> Set<String> { [] }
}

/// Shuts down this process's listening socket on `port` (a socket with that local port and no peer).
private func breakListener(port: UInt16) -> Int {
    var broken = 0
    for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
        guard let descriptor = Int32(name) else { continue }
        var address = sockaddr_in(), length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let local = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) == 0 }
        }
        guard local, address.sin_family == sa_family_t(AF_INET), UInt16(bigEndian: address.sin_port) == port else { continue }
        var peer = sockaddr_in(), peerLength = socklen_t(MemoryLayout<sockaddr_in>.size)
        let connected = withUnsafeMutablePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &peerLength) == 0 }
        }
        if !connected && shutdown(descriptor, Int32(SHUT_RDWR)) == 0 { broken += 1 }
    }
    return broken
}

@Suite struct ServingFailureTests {
    @Test func theTakeGoesOnWhenTheServingPartFails() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let numbered = try await NumberedSource(server: server, directory: folder)
            defer { numbered.stop() }
            let recorder = try Recorder(format: StreamFormat(sampleRate: NumberedSource.sampleRate, channelCount: 1),
                                        source: NumberedSource.name, server: server.address)
            let web = try WebServer(settings: ServeSettings(address: ServeAddress("127.0.0.1:0")!), control: Watching(recorder), log: { _ in })
            try await web.start()
            let readings = try recorder.meterReadings(.peak)
            let feed = Task {
                for await reading in readings {
                    web.hub.publish(levels: "{\"t\": \(reading.time)}", peaks: reading.levels.map(\.peakPower))
                }
            }
            try recorder.record(to: folder + "/take.wav")
            let url = "http://127.0.0.1:\(web.port)/"
            let watcher = try RunningProcess("/usr/bin/curl", ["-sN", url + "api/events"], environment: ProcessInfo.processInfo.environment)
            try await waitFor("the watcher's first levels") { web.hub.clientCount == 1 }
            try await waitFor("a second recorded") { recorder.currentTime >= 1 }
            #expect(breakListener(port: web.port) == 1)
            try await waitFor("the page to be gone") { (try? runProcess("curl", ["-s", "--max-time", "2", url + "api/state"]).status) != 0 }
            let failedAt = recorder.currentTime
            try await waitFor("a second more recorded") { recorder.currentTime >= failedAt + 1 }
            let summary = try #require(try await recorder.stopRecording())
            await recorder.stop()
            await feed.value
            watcher.send(SIGKILL)  // (signals the tests block are blocked in their children too)
            _ = await watcher.wait()
            await web.stop()
            // Every frame of the feed, or its loss counted and placed (a failing page must not cost audio;
            // a loaded machine may, and must say where).
            let file = try readSoundFile(folder + "/take.wav")
            #expect(Int64(file.frames) == summary.frameCount)
            let check = try await numbered.check(file.samples, gaps: summary.gaps)
            #expect(check.unexplained.isEmpty && check.bySource.isEmpty, "\(check)")
            #expect(Double(check.numbered) >= (failedAt + 1) * Double(NumberedSource.sampleRate) - 4_410, "\(check)")
        }
    }
}
