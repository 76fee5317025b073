// A source or sink named as people name them: its name, its index, or its description.
import ArgumentParser
import RecorderKit

enum DeviceMatch {
    /// The device name for `given`: a name as it is; an index ("3"); a description, exact or a unique
    /// beginning, any case; a unique beginning of a name. A name that matches nothing is returned as it
    /// is, so the library's "no such source" error (with the list to choose from) applies.
    /// - Throws: a usage error when `given` begins several descriptions or names.
    static func resolve(_ given: String, among devices: [(index: Int, name: String, description: String)],
                        kind: String) throws -> String {
        if devices.contains(where: { $0.name == given }) { return given }
        if let index = Int(given), let device = devices.first(where: { $0.index == index }) { return device.name }
        if let device = devices.first(where: { $0.description == given }) { return device.name }
        let lowered = given.lowercased()
        if let exact = devices.filter({ $0.description.lowercased() == lowered }).first { return exact.name }
        let begun = devices.filter { $0.description.lowercased().hasPrefix(lowered) || $0.name.lowercased().hasPrefix(lowered) }
        guard !given.isEmpty, begun.count > 1 else { return begun.first?.name ?? given }
        writeError("recorder: '\(given)' begins the names of several \(kind)s: "
                   + begun.map { "\($0.name) (\($0.description))" }.joined(separator: ", ")
                   + "; give more of it (see 'recorder \(kind)s')\n")
        throw ExitCode(ExitStatus.usage)
    }
}
