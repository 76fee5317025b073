// The hub's promises, without a network: no peak lost between two messages however many buffers fall
// between them, at most ten levels messages a second, events in order and none dropped silently.
import Foundation
import Locking
@testable import RecorderServer
import Testing
import TestSupport

@Suite struct LevelHubTests {
    /// The JSON object of the `levels` event in a message (the last one).
    private func levels(_ message: [UInt8]) throws -> [String: Any] {
        let text = String(decoding: message, as: UTF8.self)
        let line = try #require(text.split(separator: "\n").last { $0.hasPrefix("data: {\"t\"") })
        return try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any])
    }

    @Test func aPeakBetweenTwoMessagesIsInTheSecond() async throws {
        let hub = LevelHub(stallLimit: 3) { _ in }
        let client = hub.register(peer: ClientPeer(address: "127.0.0.1", port: 1))
        defer { hub.unregister(client) }
        hub.publish(levels: "{\"t\": 0.1, \"peak_db\": [-20.0, -30.0]}", peaks: [-20, -30])
        let first = try levels(try #require(await hub.next(client)))
        #expect(first["peak_since_last_db"] as? [Double] == [-20, -30])
        // Forty buffers before the client pulls again, one of them with a spike on each channel, one
        // at full scale on the second.
        for index in 0..<40 {
            let spike: [Float] = index == 17 ? [-1.5, -6] : index == 31 ? [-25, 0] : [-20, -30]
            hub.publish(levels: "{\"t\": \(0.2 + Double(index) / 10), \"peak_db\": [-20.0, -30.0]}", peaks: spike)
        }
        let second = try levels(try #require(await hub.next(client)))
        #expect(second["peak_since_last_db"] as? [Double] == [-1.5, 0])
        #expect(second["clipped_since_last"] as? [Bool] == [false, true])
        #expect(second["t"] as? Double == 4.1, "the newest buffer's line")
        // Emptied: the next message covers only what came after.
        hub.publish(levels: "{\"t\": 4.2, \"peak_db\": [-40.0, -50.0]}", peaks: [-40, -50])
        let third = try levels(try #require(await hub.next(client)))
        #expect(third["peak_since_last_db"] as? [Double] == [-40, -50])
        #expect(third["clipped_since_last"] as? [Bool] == [false, false])
    }

    @Test func levelsComeAtMostTenTimesASecondAndEventsAtOnceInOrder() async throws {
        let hub = LevelHub(stallLimit: 3) { _ in }
        let client = hub.register(peer: ClientPeer(address: "127.0.0.1", port: 2))
        defer { hub.unregister(client) }
        // A publisher far faster than 10 Hz, for one second.
        let publisher = Task.detached {
            let start = Date()
            var index = 0
            while Date().timeIntervalSince(start) < 1 {
                hub.publish(levels: "{\"t\": \(index)}", peaks: [-10])
                if index % 50 == 0 { hub.publish(event: "{\"event\": \"marker\", \"n\": \(index)}") }
                index += 1
                try? await Task.sleep(nanoseconds: 1_000_000)
            }
        }
        // The client's writer, until the hub ends its stream.
        // Each levels message's call to `next`, as (asked, returned) times: the hub stamps a message between
        // the two, so two stamps 0.1 s apart put the later return at least 0.1 s after the earlier ask,
        // however late this task is scheduled (timing the returns alone measured the scheduler: 0.0978 s
        // seen under ThreadSanitizer beside other work).
        let consumer = Task { () -> ([(asked: Date, returned: Date)], [Int]) in
            var levelsTimes: [(asked: Date, returned: Date)] = [], events: [Int] = []
            while true {
                let asked = Date()
                guard let message = await hub.next(client) else { break }
                let text = String(decoding: message, as: UTF8.self)
                if text.contains("event: levels") { levelsTimes.append((asked, Date())) }
                for line in text.split(separator: "\n") where line.hasPrefix("data: {\"event\": \"marker\"") {
                    events.append(Int(line.split(separator: " ").last!.dropLast())!)
                }
            }
            return (levelsTimes, events)
        }
        await publisher.value
        try await Task.sleep(nanoseconds: 200_000_000)
        hub.finish()
        let (levelsTimes, events) = await consumer.value
        // However fast the publisher (or slow, on a loaded machine), never more than ten a second.
        #expect(!levelsTimes.isEmpty)
        if let first = levelsTimes.first, let last = levelsTimes.last {
            #expect(Double(levelsTimes.count - 1) <= last.returned.timeIntervalSince(first.asked) * 10 + 0.01,
                    "\(levelsTimes.count) levels messages")
        }
        for (earlier, later) in zip(levelsTimes, levelsTimes.dropFirst()) {
            #expect(later.returned.timeIntervalSince(earlier.asked) >= 0.099)
        }
        #expect(!events.isEmpty && events == events.sorted() && Set(events).count == events.count)
        #expect(events.allSatisfy { $0 % 50 == 0 } && events.count == (events.last! / 50) + 1, "\(events)")
    }

    @Test func eventsPastTheLimitAreCountedAndSaid() async throws {
        let hub = LevelHub(stallLimit: 3) { _ in }
        let client = hub.register(peer: ClientPeer(address: "127.0.0.1", port: 3))
        defer { hub.unregister(client) }
        for index in 0..<(LevelHub.maxEvents + 25) { hub.publish(event: "{\"event\": \"gap\", \"n\": \(index)}") }
        let text = String(decoding: try #require(await hub.next(client)), as: UTF8.self)
        #expect(text.components(separatedBy: "event: recorder\ndata: {\"event\": \"gap\"").count - 1 == LevelHub.maxEvents)
        #expect(text.contains("{\"event\": \"left-out\", \"count\": 25}"))
    }

    @Test func aClientThatStopsPullingIsDroppedAndOneThatWaitsIsNot() async throws {
        let dropped = Locked<[ClientPeer]>([])
        let hub = LevelHub(stallLimit: 0.5) { peer in dropped.withLock { $0.append(peer) } }
        let stalled = hub.register(peer: ClientPeer(address: "127.0.0.1", port: 4))
        let waiting = hub.register(peer: ClientPeer(address: "127.0.0.1", port: 5))
        // The stalled client's writer took one message and never asks again; the waiting one's is parked
        // in `next` (its socket took everything), before the watchdog starts.
        hub.publish(state: "{\"n\": 1}")
        _ = await hub.next(stalled)
        _ = await hub.next(waiting)
        // Its writer pulls until the stream ends; while it waits it may get nothing but keep-alive
        // comments (every 15 s of waiting: a machine loaded enough can take that long here).
        let idle = Task { () -> [String] in
            var messages: [String] = []
            while let message = await hub.next(waiting) { messages.append(String(decoding: message, as: UTF8.self)) }
            return messages
        }
        try await waitFor("the waiting client parked") { hub.isWaiting(waiting) }
        let watcher = Task { await hub.watch() }
        try await waitFor("the stalled client dropped") { !dropped.withLock { $0.isEmpty } }
        #expect(dropped.withLock { $0 } == [ClientPeer(address: "127.0.0.1", port: 4)])
        #expect(await hub.next(stalled) == nil, "a dropped client's stream ends")
        hub.finish()
        let idled = await idle.value
        #expect(idled.allSatisfy { $0 == ": keep-alive\n\n" }, "\(idled)")
        watcher.cancel()
        await watcher.value
        #expect(hub.stalledCount == 1)
    }
}
