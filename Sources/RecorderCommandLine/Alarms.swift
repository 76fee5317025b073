// `record --alarm-…`: a logger's alarms (dead air, clipping, a source lost, the disk nearly full, a file not written), each one that starts and each one that ends.
import Glibc
import RecorderKit
import Synchronization

/// Watches a take for what a logger's keeper must hear about: dead air (the level below a threshold for
/// a while), clipping, a source lost, the disk nearly full, a file that could not be written (which ends
/// the take, so it has no end of its own). Fed the readings (one per buffer) and the
/// recorder's events, from any thread; returns each alarm that starts or ends, with its line and its
/// event. Times are frames of the recorder; the command places them in the take.
package final class Alarms: Sendable {
    /// What to watch.
    package struct Settings: Sendable, Equatable {
        /// Dead air: below `threshold` dBFS (every channel's peak) for `seconds`.
        package var silence: (seconds: Double, threshold: Double)?
        /// Clipping: a buffer with a full-scale sample; over once `clipHold` seconds pass without one.
        package var clipping = false
        /// The disk holding `folder` with less free than this.
        package var diskFree: RetentionPolicy.FreeSpace?
        package var folder = "."

        package init() {}

        package static func == (a: Settings, b: Settings) -> Bool {
            a.silence?.seconds == b.silence?.seconds && a.silence?.threshold == b.silence?.threshold
                && a.clipping == b.clipping && a.diskFree == b.diskFree && a.folder == b.folder
        }
    }

    /// An alarm that started (`on`) or ended.
    package struct Change: Sendable, Equatable {
        package let kind: String
        package let on: Bool
        /// The recorder frame it is placed at (where the buffer that showed it ends).
        package let frame: Int64
        /// What the line and the marker say.
        package let message: String

        package init(kind: String, on: Bool, frame: Int64, message: String) {
            self.kind = kind
            self.on = on
            self.frame = frame
            self.message = message
        }
    }

    static let clipHold = 2.0
    /// How often (seconds of audio) the disk is looked at.
    static let diskEvery = 1.0

    private struct State {
        var quietSince: Int64?
        var silent = false
        var clipping = false
        var lastClip: Int64 = 0
        var clipBuffers = 0
        var clipSince: Int64 = 0
        var lostAt: Int64?
        var diskLow = false
        var diskCheckedAt: Int64?
    }

    package let settings: Settings
    private let rate: Double
    private let state = Mutex(State())
    private let space: @Sendable (String) -> (free: Int64, total: Int64)?

    package init(_ settings: Settings, sampleRate: Int,
                 space: @escaping @Sendable (String) -> (free: Int64, total: Int64)? = SegmentRetention.diskSpace) {
        self.settings = settings
        rate = Double(max(1, sampleRate))
        self.space = space
    }

    /// One buffer's reading: its frames end at `endFrame`; `peak` the loudest channel's peak (dBFS).
    package func reading(endFrame: Int64, frameCount: Int, peak: Float) -> [Change] {
        let start = endFrame - Int64(frameCount)
        var changes: [Change] = []
        let checkDisk = state.withLock { state -> Bool in
            if let silence = settings.silence {
                if Double(peak) < silence.threshold {
                    let since = state.quietSince ?? start
                    state.quietSince = since
                    if !state.silent, Double(endFrame - since) >= silence.seconds * rate {
                        state.silent = true
                        changes.append(Change(kind: "silence", on: true, frame: endFrame,
                                              message: "dead air: below \(format(silence.threshold, 1)) dBFS for \(format(silence.seconds, 1)) s"))
                    }
                } else {
                    if state.silent, let since = state.quietSince {
                        changes.append(Change(kind: "silence", on: false, frame: endFrame,
                                              message: "sound back after \(format(Double(start - since) / rate, 1)) s of dead air"))
                    }
                    state.silent = false
                    state.quietSince = nil
                }
            }
            if settings.clipping {
                // A full-scale sample: 32 767 of 32 768 reads −0.0003 dBFS.
                if peak >= -0.001 {
                    if !state.clipping {
                        state.clipping = true
                        state.clipBuffers = 0
                        state.clipSince = start
                        changes.append(Change(kind: "clipping", on: true, frame: endFrame, message: "clipping: a full-scale sample"))
                    }
                    state.clipBuffers += 1
                    state.lastClip = endFrame
                } else if state.clipping, Double(endFrame - state.lastClip) >= Self.clipHold * rate {
                    state.clipping = false
                    changes.append(Change(kind: "clipping", on: false, frame: endFrame,
                                          message: "clipping over: \(state.clipBuffers) buffer\(state.clipBuffers == 1 ? "" : "s") clipped in "
                                            + "\(format(Double(state.lastClip - state.clipSince) / rate, 1)) s"))
                }
            }
            guard settings.diskFree != nil,
                  state.diskCheckedAt.map({ Double(endFrame - $0) >= Self.diskEvery * rate }) ?? true else { return false }
            state.diskCheckedAt = endFrame
            return true
        }
        if checkDisk, let wanted = settings.diskFree, let disk = space(settings.folder), disk.total > 0 {
            let margin = switch wanted {
            case .fraction(let share): Int64(Double(disk.total) * share)
            case .bytes(let bytes): bytes
            }
            state.withLock { state in
                // On below the margin; off again above it with 1 % of the disk to spare, so it does not flap.
                if !state.diskLow, disk.free < margin {
                    state.diskLow = true
                    changes.append(Change(kind: "disk", on: true, frame: endFrame,
                                          message: "the disk is nearly full: \(Self.size(disk.free)) free in \(settings.folder)"))
                } else if state.diskLow, disk.free >= margin + disk.total / 100 {
                    state.diskLow = false
                    changes.append(Change(kind: "disk", on: false, frame: endFrame,
                                          message: "the disk has room again: \(Self.size(disk.free)) free in \(settings.folder)"))
                }
            }
        }
        return changes
    }

    /// A recorder event: a source lost or back; a take that ended because its file could not be written
    /// (or the next file of a take cut into files could not be made).
    package func event(_ event: RecorderEvent) -> [Change] {
        state.withLock { state in
            switch event {
            case .captureInterrupted(let error, let frame):
                guard state.lostAt == nil else { return [] }
                state.lostAt = frame
                return [Change(kind: "source", on: true, frame: frame, message: "source lost: \(error.message)")]
            case .captureResumed(let gap, let frame, _):
                guard let lost = state.lostAt else { return [] }
                state.lostAt = nil
                let away = max(Double(gap), Double(frame - lost)) / rate
                return [Change(kind: "source", on: false, frame: frame, message: "source back after \(format(away, 1)) s")]
            case .sourceLost(let source, let frames, let frame, let reason, _) where reason != .dropped:
                // A source of several, reported once its loss ended: lost and back at once.
                let seconds = format(Double(frames) / rate, 1)
                return [Change(kind: "source", on: true, frame: frame, message: "source '\(source)' lost (\(reason.rawValue))"),
                        Change(kind: "source", on: false, frame: frame + frames, message: "source '\(source)' back after \(seconds) s")]
            case .recordingFinished(let summary):
                guard let error = summary.error, error.code == .writeFailed || error.code == .cannotCreateFile else { return [] }
                return [Change(kind: "file", on: true, frame: summary.startFrame + summary.frameCount,
                               message: "file could not be written: \(error.message)")]
            default:
                return []
            }
        }
    }

    static func size(_ bytes: Int64) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes), unit = 0
        while value >= 1_024, unit < units.count - 1 {
            value /= 1_024
            unit += 1
        }
        return unit == 0 ? "\(bytes) bytes" : "\(format(value, 1)) \(units[unit])"
    }
}
