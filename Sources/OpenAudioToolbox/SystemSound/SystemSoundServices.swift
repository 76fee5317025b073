// System Sound Services (AudioServicesCreateSystemSoundID, AudioServicesPlaySystemSound…) over
// RecorderKit's SoundCache: each sound ID is a sound kept by the server, each play its own stream there.
import Foundation
import Locking
import RecorderKit

/// The process's system sounds: one connection to the server, made by the first sound created, and the
/// sounds and completion routines by ID. Any thread.
final class SystemSounds: @unchecked Sendable {
    // @unchecked Sendable: everything mutable is in `state`, behind its lock.
    static let shared = SystemSounds()

    struct Completion {
        let runLoop: CFRunLoop
        let mode: RunLoop.Mode
        let routine: AudioServicesSystemSoundCompletionProc
        let clientData: UnsafeMutableRawPointer?
    }

    struct Sound {
        let name: String
        var isUISound: UInt32 = 1
        var completePlaybackIfAppDies: UInt32 = 0
    }

    private struct State {
        var cache: SoundCache?
        /// IDs from 0x2000 up: clear of Apple's predefined sounds (1000 to 1351) and of 0xFFE to 0x1000.
        var nextID: SystemSoundID = 0x2000
        var sounds: [SystemSoundID: Sound] = [:]
        var completions: [SystemSoundID: Completion] = [:]
    }

    private let state = Locked(State())

    /// Uploads the file as a new sound; its ID, or the status that says why not.
    func create(_ url: URL) -> (SystemSoundID?, OSStatus) {
        let cache: SoundCache
        do throws(RecorderError) {
            cache = try state.withLock { state throws(RecorderError) in
                if let cache = state.cache { return cache }
                let made = try SoundCache()
                state.cache = made
                return made
            }
        } catch {
            return (nil, kAudioServicesSystemSoundClientTimedOutError)  // no server answered
        }
        let id: SystemSoundID = state.withLock { state in
            defer { state.nextID &+= 1 }
            return state.nextID
        }
        let name = "recorder-system-sound-\(getpid())-\(id)"
        do throws(RecorderError) {
            try cache.add(file: url.path, as: name)
        } catch {
            return (nil, error.code == .invalidFormat ? kAudioServicesSystemSoundExceededMaximumDurationError
                                                      : kAudioServicesSystemSoundUnspecifiedError)
        }
        state.withLock { $0.sounds[id] = Sound(name: name) }
        return (id, kAudioServicesNoError)
    }

    /// Forgets the sound and removes it from the server; plays under way go on.
    func dispose(_ id: SystemSoundID) -> OSStatus {
        let removed: (SoundCache?, Sound?) = state.withLock { state in
            state.completions[id] = nil
            return (state.cache, state.sounds.removeValue(forKey: id))
        }
        guard let sound = removed.1 else { return kAudioServicesSystemSoundUnspecifiedError }
        removed.0?.remove(sound.name)
        return kAudioServicesNoError
    }

    /// Plays the sound; when it has played (or could not), the ID's completion routine runs on its run
    /// loop and `block` on a queue of the cache's. An ID this process did not create (Apple's predefined
    /// sounds, the vibrator, the alert and flash of macOS) has no sound here: `block` runs at once.
    func play(_ id: SystemSoundID, _ block: (@Sendable () -> Void)?) {
        let found: (SoundCache, Sound)? = state.withLock { state in
            guard let cache = state.cache, let sound = state.sounds[id] else { return nil }
            return (cache, sound)
        }
        guard let (cache, sound) = found else {
            if let block { DispatchQueue.global().async(execute: block) }
            return
        }
        // While a routine waits for this play, its run loop has something to wait on (as the sound is a
        // source of the loop on Apple's systems): a loop run until the routine stops it does not return first.
        let waiting = state.withLock { $0.completions[id] }.map { ($0.runLoop, $0.mode, $0.runLoop.retainLoop(in: $0.mode)) }
        cache.play(sound.name) { [self] _ in
            block?()
            if let completion = state.withLock({ $0.completions[id] }) {
                // The routine and its data are the caller's, called on the loop it named as on Apple's systems.
                nonisolated(unsafe) let data = completion.clientData
                let routine = completion.routine
                completion.runLoop.perform(in: completion.mode) { routine(id, data) }
            }
            if let (runLoop, mode, keepAlive) = waiting { runLoop.release(keepAlive, in: mode) }
        }
    }

    func addCompletion(_ id: SystemSoundID, _ completion: Completion) -> OSStatus {
        state.withLock { state in
            guard state.sounds[id] != nil else { return kAudioServicesSystemSoundUnspecifiedError }
            state.completions[id] = completion
            return kAudioServicesNoError
        }
    }

    func removeCompletion(_ id: SystemSoundID) { state.withLock { $0.completions[id] = nil } }

    /// A property of a sound: its flag, or nil for an ID this process did not create.
    func flag(_ id: SystemSoundID, _ property: AudioServicesPropertyID) -> UInt32? {
        state.withLock { state in
            guard let sound = state.sounds[id] else { return nil }
            return property == kAudioServicesPropertyIsUISound ? sound.isUISound : sound.completePlaybackIfAppDies
        }
    }

    func setFlag(_ id: SystemSoundID, _ property: AudioServicesPropertyID, _ value: UInt32) -> Bool {
        state.withLock { state in
            guard state.sounds[id] != nil else { return false }
            if property == kAudioServicesPropertyIsUISound { state.sounds[id]?.isUISound = value }
            else { state.sounds[id]?.completePlaybackIfAppDies = value }
            return true
        }
    }
}

/// Makes a system sound of the file at `inFileURL` (anything libsndfile reads, up to 30 s, as on Apple's
/// systems), kept by the sound server. Statuses: `kAudioServicesSystemSoundClientTimedOutError` when no
/// server answers, `kAudioServicesSystemSoundExceededMaximumDurationError` for a sound over 30 s,
/// `kAudioServicesSystemSoundUnspecifiedError` for a file that cannot be read. Any thread.
@discardableResult
public func AudioServicesCreateSystemSoundID(_ inFileURL: CFURL, _ outSystemSoundID: UnsafeMutablePointer<SystemSoundID>) -> OSStatus {
    let (id, status) = SystemSounds.shared.create(inFileURL)
    if let id { outSystemSoundID.pointee = id }
    return status
}

/// Removes the sound from the server; plays under way finish. Any thread.
@discardableResult
public func AudioServicesDisposeSystemSoundID(_ inSystemSoundID: SystemSoundID) -> OSStatus {
    SystemSounds.shared.dispose(inSystemSoundID)
}

/// Plays the sound on the default sink and returns at once. Apple's predefined IDs and
/// `kSystemSoundID_Vibrate` play nothing here (no such sounds, no vibrator). Any thread.
public func AudioServicesPlaySystemSound(_ inSystemSoundID: SystemSoundID) {
    SystemSounds.shared.play(inSystemSoundID, nil)
}

/// As `AudioServicesPlaySystemSound` (an alert vibrates an iPhone as well: none here).
public func AudioServicesPlayAlertSound(_ inSystemSoundID: SystemSoundID) {
    SystemSounds.shared.play(inSystemSoundID, nil)
}

/// Plays the sound; `inCompletionBlock` runs once it has played to its end (or at once for an ID with
/// no sound), on a queue of the library's, never the caller's thread. Any thread.
public func AudioServicesPlaySystemSoundWithCompletion(_ inSystemSoundID: SystemSoundID, _ inCompletionBlock: (@Sendable () -> Void)?) {
    SystemSounds.shared.play(inSystemSoundID, inCompletionBlock)
}

/// As `AudioServicesPlaySystemSoundWithCompletion`.
public func AudioServicesPlayAlertSoundWithCompletion(_ inSystemSoundID: SystemSoundID, _ inCompletionBlock: (@Sendable () -> Void)?) {
    SystemSounds.shared.play(inSystemSoundID, inCompletionBlock)
}

/// Calls `inCompletionRoutine` with the ID and `inClientData` each time the sound finishes playing, on
/// `inRunLoop` (nil: the main run loop) in `inRunLoopMode` (nil: the common modes), which must run for it
/// to be called. One routine per sound: a second replaces the first. Any thread.
@discardableResult
public func AudioServicesAddSystemSoundCompletion(_ inSystemSoundID: SystemSoundID, _ inRunLoop: CFRunLoop?, _ inRunLoopMode: CFString?,
                                                  _ inCompletionRoutine: AudioServicesSystemSoundCompletionProc,
                                                  _ inClientData: UnsafeMutableRawPointer?) -> OSStatus {
    let completion = SystemSounds.Completion(runLoop: inRunLoop ?? CFRunLoopGetMain(),
                                             mode: RunLoop.Mode(inRunLoopMode ?? CFRunLoopMode.commonModes.rawValue),
                                             routine: inCompletionRoutine, clientData: inClientData)
    return SystemSounds.shared.addCompletion(inSystemSoundID, completion)
}

/// Stops calling the sound's completion routine. Any thread.
public func AudioServicesRemoveSystemSoundCompletion(_ inSystemSoundID: SystemSoundID) {
    SystemSounds.shared.removeCompletion(inSystemSoundID)
}

/// The size of a property's value: 4 bytes for `kAudioServicesPropertyIsUISound` and
/// `kAudioServicesPropertyCompletePlaybackIfAppDies` (a UInt32 flag), both writable. Any thread.
@discardableResult
public func AudioServicesGetPropertyInfo(_ inPropertyID: AudioServicesPropertyID, _ inSpecifierSize: UInt32, _ inSpecifier: UnsafeRawPointer?,
                                         _ outPropertyDataSize: UnsafeMutablePointer<UInt32>?,
                                         _ outWritable: UnsafeMutablePointer<DarwinBoolean>?) -> OSStatus {
    guard inPropertyID == kAudioServicesPropertyIsUISound || inPropertyID == kAudioServicesPropertyCompletePlaybackIfAppDies else {
        return kAudioServicesUnsupportedPropertyError
    }
    outPropertyDataSize?.pointee = 4
    outWritable?.pointee = true
    return kAudioServicesNoError
}

/// A sound's flag (the specifier is its SystemSoundID). Any thread.
@discardableResult
public func AudioServicesGetProperty(_ inPropertyID: AudioServicesPropertyID, _ inSpecifierSize: UInt32, _ inSpecifier: UnsafeRawPointer?,
                                     _ ioPropertyDataSize: UnsafeMutablePointer<UInt32>, _ outPropertyData: UnsafeMutableRawPointer?) -> OSStatus {
    guard inPropertyID == kAudioServicesPropertyIsUISound || inPropertyID == kAudioServicesPropertyCompletePlaybackIfAppDies else {
        return kAudioServicesUnsupportedPropertyError
    }
    guard inSpecifierSize == 4, let inSpecifier else { return kAudioServicesBadSpecifierSizeError }
    guard ioPropertyDataSize.pointee >= 4, let outPropertyData else { return kAudioServicesBadPropertySizeError }
    guard let value = SystemSounds.shared.flag(inSpecifier.loadUnaligned(as: SystemSoundID.self), inPropertyID) else {
        return kAudioServicesSystemSoundUnspecifiedError
    }
    outPropertyData.storeBytes(of: value, as: UInt32.self)
    ioPropertyDataSize.pointee = 4
    return kAudioServicesNoError
}

/// Sets a sound's flag (kept and read back; the server plays every sound alike). Any thread.
@discardableResult
public func AudioServicesSetProperty(_ inPropertyID: AudioServicesPropertyID, _ inSpecifierSize: UInt32, _ inSpecifier: UnsafeRawPointer?,
                                     _ inPropertyDataSize: UInt32, _ inPropertyData: UnsafeRawPointer) -> OSStatus {
    guard inPropertyID == kAudioServicesPropertyIsUISound || inPropertyID == kAudioServicesPropertyCompletePlaybackIfAppDies else {
        return kAudioServicesUnsupportedPropertyError
    }
    guard inSpecifierSize == 4, let inSpecifier else { return kAudioServicesBadSpecifierSizeError }
    guard inPropertyDataSize == 4 else { return kAudioServicesBadPropertySizeError }
    let id = inSpecifier.loadUnaligned(as: SystemSoundID.self)
    return SystemSounds.shared.setFlag(id, inPropertyID, inPropertyData.loadUnaligned(as: UInt32.self))
        ? kAudioServicesNoError : kAudioServicesSystemSoundUnspecifiedError
}
