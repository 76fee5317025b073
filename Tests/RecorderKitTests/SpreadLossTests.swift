// The tests' oracle for a loss whose numbers go missing around its silence (NumberedSource.spreadLosses):
// the server's count decides which jumps near the silence are the loss's, not a time window alone.
import Testing
import TestSupport

struct SpreadLossTests {
    /// A take of the numbered feed built piece by piece: `.numbers(k)` the feed's next k frames, `.skip(k)`
    /// k frames of the feed missing with no silence, `.silence(k)` k of them missing as silence, `.zeros(k)`
    /// k frames of silence with nothing missing.
    enum Piece { case numbers(Int), skip(Int), silence(Int), zeros(Int) }

    static func take(_ pieces: [Piece]) -> [Int16] {
        var take: [Int16] = []
        var fed: Int64 = 0
        for piece in pieces {
            switch piece {
            case .numbers(let count):
                take += (0..<Int64(count)).map { NumberedSource.value(fed + $0) }
                fed += Int64(count)
            case .skip(let count): fed += Int64(count)
            case .silence(let count):
                take += Array(repeating: 0, count: count)
                fed += Int64(count)
            case .zeros(let count): take += Array(repeating: 0, count: count)
            }
        }
        return take
    }

    /// The jumps (their numbers missing) that a loss marked at `gap`, reaching 50 ms before it and `after`
    /// frames past it, leaves unexplained.
    static func unexplained(_ take: [Int16], gap: (frame: Int, count: Int), after: Int, slack: Int) -> [Int] {
        let found = NumberedSource.jumps(in: take).jumps
        let spread = NumberedSource.spreadLosses(take, jumps: found, spread: [(gap.frame, gap.count, 2_205, after)], countSlack: slack)
        return found.indices.filter { !spread.explained.contains($0) }.map { found[$0].missing }
    }

    /// As in a loaded run: 245 985 numbers missing across the silence, 223 more 2 354 frames after it with
    /// no silence there; the server counted 246 387, 179 more than went missing (its clock's scatter), and
    /// the silence is that long. Within the queue's 2 s the count takes the late jump; 50 ms would not reach it.
    @Test func aLateJumpNearTheSilenceIsTheLosssWhenTheCountHasRoomForIt() {
        let take = Self.take([.numbers(549_394), .silence(245_985), .zeros(402), .numbers(2_354), .skip(223), .numbers(50_000)])
        let gap = (frame: 549_394, count: 246_387)
        #expect(Self.unexplained(take, gap: gap, after: 88_200, slack: 441).isEmpty)
        #expect(Self.unexplained(take, gap: gap, after: 2_205, slack: 441) == [223], "beyond the reach")
    }

    /// The count has room for so many: the nearest jumps that fit are the loss's, a further one is not,
    /// and a count short of the jumps across and near it leaves the late one unexplained. (The recorder's
    /// silence is always as long as its count.)
    @Test func aJumpTheCountHasNoRoomForIsNotTheLosss() {
        func unexplained(count: Int) -> [Int] {
            let take = Self.take([.numbers(10_000), .silence(45_985), .zeros(count - 45_985), .numbers(2_354), .skip(223),
                                  .numbers(44_100), .skip(300), .numbers(10_000)])
            return Self.unexplained(take, gap: (10_000, count), after: 88_200, slack: 22)
        }
        #expect(unexplained(count: 46_208) == [300])
        #expect(unexplained(count: 46_508).isEmpty, "a count for both")
        #expect(unexplained(count: 45_985) == [223, 300], "a count for the silence alone")
        // Far more than the jumps' total: no set of them makes the count, so none is explained.
        #expect(unexplained(count: 92_000) == [45_985, 223, 300])
    }

    /// A silence longer than the sequence's period: the numbers across it tell the loss modulo 65 535, and
    /// whole periods are added to bring it to the count, the late jump then taken as before.
    @Test func aSilenceLongerThanThePeriodIsCountedInWholePeriods() {
        func unexplained(count: Int) -> [Int] {
            let take = Self.take([.numbers(1_000), .silence(200_000), .zeros(count - 200_000), .numbers(500), .skip(100),
                                  .numbers(1_000)])
            return Self.unexplained(take, gap: (1_000, count), after: 88_200, slack: 22)
        }
        #expect(unexplained(count: 200_100).isEmpty)
        #expect(unexplained(count: 200_000) == [100])
        // Three whole periods of silence read as no jump at all; 48 frames before it, a second of the feed
        // missing (a post from later in the refusal that fit the full queue's last room): with the periods,
        // the count.
        func read(count: Int) -> [Int] {
            let take = Self.take([.numbers(1_000), .skip(44_888), .numbers(48), .silence(196_605), .zeros(count - 196_605),
                                  .numbers(1_000)])
            return Self.unexplained(take, gap: (1_048, count), after: 88_200, slack: 22)
        }
        #expect(read(count: 241_493).isEmpty)
        #expect(read(count: 196_605) == [44_888])
    }
}
