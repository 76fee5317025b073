// The body of `/api/events`: Server-Sent Events pulled from the hub only when the socket took the last
// message, so what waits for a slow client is its accumulator, never a queue of messages.
import FlyingSocks

/// An endless response body for one client; its iterator asks the hub for each message as the server's
/// writer is ready for it. Sendable: the hub is, and the registration is a constant.
struct EventStreamBody: AsyncBufferedSequence, Sendable {
    typealias Element = UInt8
    let registration: Registration

    /// One client's place in the hub, given up when the response ends (the last iterator released).
    final class Registration: Sendable {
        let hub: LevelHub
        let id: Int
        init(hub: LevelHub, peer: ClientPeer) {
            self.hub = hub
            id = hub.register(peer: peer)
        }
        deinit { hub.unregister(id) }
    }

    func makeAsyncIterator() -> Iterator { Iterator(registration: registration) }

    struct Iterator: AsyncBufferedIteratorProtocol {
        let registration: Registration
        /// What is left of the current message for a writer that asked for fewer bytes.
        var pending: ArraySlice<UInt8> = []

        mutating func next() async throws -> UInt8? {
            guard let buffer = try await nextBuffer(suggested: 1) else { return nil }
            return buffer.first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> ArraySlice<UInt8>? {
            if pending.isEmpty {
                guard let message = await registration.hub.next(registration.id) else { return nil }
                pending = message[...]
            }
            let part = pending.prefix(Swift.max(1, count))
            pending = pending.dropFirst(part.count)
            return part
        }
    }
}
