// What the take list says of each file besides its name and size: its length and loudness (measured once
// per version of the file, in the background) and its take sheet's marks.
import Dispatch
import Locking
import RecorderKit

/// The measured facts of take files, keyed by name, size and time (a file changed is measured again).
/// Sendable: the cache is behind a lock; measuring runs on one background queue at a time.
final class TakeDetails: Sendable {
    struct Key: Hashable { let name: String, bytes: Int64, modified: Int64 }
    struct Facts: Sendable {
        var seconds: Double?
        var integrated: Double?
        var truePeak: Double?
        var circled = false
        var noGood = false
        var failure: String?
    }

    private let known = Locked<[Key: Facts]>([:])
    private let queued = Locked<Set<Key>>([])
    private let queue = DispatchQueue(label: "recorder.serve.take-details")
    /// Called when a measurement finishes (the list changed).
    let changed: @Sendable () -> Void

    init(changed: @escaping @Sendable () -> Void) { self.changed = changed }

    /// The facts of `entry` if measured; otherwise nil, and its measurement is queued (unless `busy`).
    func facts(_ entry: TakeEntry, in folder: TakeFolder, busy: Bool) -> Facts? {
        let key = Key(name: entry.name, bytes: entry.bytes, modified: entry.modified)
        if let facts = known.withLock({ $0[key] }) { return facts }
        guard !busy, queued.withLock({ $0.insert(key).inserted }) else { return nil }
        let path = folder.file(entry.name)
        queue.async { [self] in
            var facts = Facts()
            do throws(RecorderError) {
                let analysis = try FileAnalysis.analyze(path: path)
                facts.seconds = analysis.duration
                facts.integrated = analysis.integrated
                facts.truePeak = analysis.truePeak.compactMap { $0 }.max()
            } catch {
                facts.failure = error.message
            }
            if let sheet = RecordingMetadata.read(path: path) {
                facts.circled = sheet.circled
                facts.noGood = sheet.noGood
            }
            known.withLock { $0[key] = facts }
            queued.withLock { _ = $0.remove(key) }
            changed()
        }
        return nil
    }
}
