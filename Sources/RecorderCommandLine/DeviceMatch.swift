// A source or sink named as people name them: its name, its index, or its description.
import ArgumentParser
import RecorderKit

enum DeviceMatch {
    /// The device name for `given`: a name as it is; an index ("3"); a description, exact or a unique
    /// beginning, any case; a unique beginning of a name. A name that matches nothing is returned as it
    /// is, so the library's "no such source" error (with the list to choose from) applies.
    /// - Throws: a usage error when `given` is empty, is the description of several devices, or begins
    ///   several descriptions or names (never a silent choice between them).
    /// `given` resolved among the devices `list` gives (nil when none was given); a failure to list them is
    /// reported in one line and exits.
    static func resolve(_ given: String?, kind: String,
                        list: () throws(RecorderError) -> [DeviceInfo]) throws -> String? {
        guard let given else { return nil }
        do {
            return try resolve(given, among: list().map { ($0.index, $0.name, $0.description) }, kind: kind)
        } catch let error as RecorderError {
            throw fail(error)
        }
    }

    static func resolve(_ given: String, among devices: [(index: Int, name: String, description: String)],
                        kind: String) throws -> String {
        if devices.contains(where: { $0.name == given }) { return given }
        guard !given.isEmpty else {
            writeError("recorder: an empty \(kind) name: give a name, an index or a description (see 'recorder \(kind)s')\n")
            throw ExitCode(ExitStatus.usage)
        }
        if let index = Int(given), let device = devices.first(where: { $0.index == index }) { return device.name }
        let lowered = given.lowercased()
        let described = devices.filter { $0.description.lowercased() == lowered }
        let matching = !described.isEmpty ? described
            : devices.filter { $0.description.lowercased().hasPrefix(lowered) || $0.name.lowercased().hasPrefix(lowered) }
        guard matching.count > 1 else { return matching.first?.name ?? given }
        writeLine("recorder: '\(given)' \(described.isEmpty ? "begins the names" : "is the description") of several \(kind)s: "
                  + matching.map { "\($0.name) (\($0.description))" }.joined(separator: ", ")
                  + "; \(described.isEmpty ? "give more of it, or" : "give") the name or index (see 'recorder \(kind)s')")
        throw ExitCode(ExitStatus.usage)
    }
}
