// Shared libraries loaded the first time they are needed, not at start: TagLib (through this package's
// small C++ library over it), SoundTouch, FluidSynth, espeak-ng, and the pictures' cairo and KissFFT,
// which a plain take never uses.
import Glibc
import Locking

/// A shared library `dlopen`ed on first use, its functions looked up by name. A plain recording maps
/// neither TagLib (and its C++ shim) nor SoundTouch: each costs resident memory at start (TagLib 0.7 MB
/// of relocated pages) and start-up time, for takes that do not tag or stretch.
///
/// Any thread: the first use loads under a lock; what it found (or why it failed) is kept.
package final class LazyLibrary: Sendable {
    private let names: [String]
    private let what: String
    private let debian: String
    /// The handle (its address: a handle is not Sendable, its number is), or the reason it could not be
    /// had; nil before the first use.
    private let loaded = Locked<Result<UInt, RecorderError>?>(nil)

    /// `names`: file names tried in order (a bare name goes through the dynamic linker's search; each is
    /// also tried next to the running executable and in its `../lib/recorder`). `what` names it in errors,
    /// and `debian` the Debian package that holds it (the recorder package recommends or suggests it), which
    /// the error says to install.
    package init(_ names: [String], what: String, debian: String) {
        self.names = names
        self.what = what
        self.debian = debian
    }

    /// TagLib, through `librecorder-tags.so` (the package's `RecorderTags` product: `rk_tags_set`,
    /// `rk_tags_get`).
    static let tags = LazyLibrary(["librecorder-tags.so"], what: "TagLib (librecorder-tags.so)", debian: "libtag1v5")
    /// SoundTouch's C interface.
    static let soundTouch = LazyLibrary(["libSoundTouchDll.so.1", "libSoundTouchDll.so"], what: "SoundTouch (libSoundTouchDll)", debian: "libsoundtouch1")

    /// The function `name` as `type` (a `@convention(c)` function type).
    /// - Throws: `.invalidState` saying what could not be loaded and what to do.
    package func function<T>(_ name: String, as type: T.Type) throws(RecorderError) -> T {
        let handle = UnsafeMutableRawPointer(bitPattern: try load())
        guard let symbol = dlsym(handle, name) else {
            throw RecorderError(.invalidState, "\(what) has no function \(name): reinstall recorder (scripts/install)")
        }
        return unsafeBitCast(symbol, to: type)
    }

    /// The function `name` as the type the caller stores it in (a `@convention(c)` function type).
    /// - Throws: `.invalidState` saying what could not be loaded and what to do.
    package func function<T>(_ name: String) throws(RecorderError) -> T {
        try function(name, as: T.self)
    }

    private func load() throws(RecorderError) -> UInt {
        let result = loaded.withLock { loaded -> Result<UInt, RecorderError> in
            if let loaded { return loaded }
            let found = open()
            loaded = found
            return found
        }
        return try result.get()
    }

    private func open() -> Result<UInt, RecorderError> {
        var reason = ""
        for candidate in candidates() {
            if let handle = dlopen(candidate, RTLD_NOW | RTLD_LOCAL) { return .success(UInt(bitPattern: handle)) }
            if reason.isEmpty, let error = dlerror() { reason = String(cString: error) }
        }
        return .failure(RecorderError(.invalidState,
            "cannot load \(what): \(reason.isEmpty ? "not found" : reason); install it (apt-get install \(debian)), "
            + "or in a source tree run scripts/setup and build or install recorder whole (swift build, scripts/install)"))
    }

    /// Each name next to the executable, in its `../lib/recorder`, then as the dynamic linker finds it.
    private func candidates() -> [String] {
        let folders = Self.installedFolders()
        return names.flatMap { name in folders.map { $0 + "/" + name } + [name] }
    }

    /// Where the package's own files are looked for: the running executable's folder (a build), then its
    /// `../lib/recorder` (an install: `scripts/install`); empty when /proc/self/exe cannot be read.
    private static func installedFolders() -> [String] {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &path, Int(PATH_MAX))
        guard length > 0 else { return [] }
        let executable = String(decoding: path.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = executable.lastIndex(of: "/") else { return [] }
        let folder = String(executable[..<slash])
        return [folder, folder + "/../lib/recorder"]
    }
}
