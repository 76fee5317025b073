// The live objects behind C handles (AudioFileID, ExtAudioFileRef, AudioConverterRef, AudioUnit): a call
// with a closed, disposed or foreign handle finds nothing and is refused with a status, never a crash.
import Locking

/// Objects by handle; a handle is the object's address, never dereferenced (only looked up here).
final class HandleRegistry<Object: AnyObject>: @unchecked Sendable {
    // @unchecked Sendable: the table is only touched under its lock; the objects are the services' own,
    // each guarding its state with its own lock.
    private let objects = Locked<[UInt: Object]>([:])

    /// Registers `object`; its handle.
    func add(_ object: Object) -> OpaquePointer {
        let handle = OpaquePointer(Unmanaged.passUnretained(object).toOpaque())
        objects.withLock { $0[UInt(bitPattern: handle)] = object }
        return handle
    }

    /// The object of `handle`, if it is live.
    func find(_ handle: OpaquePointer?) -> Object? {
        guard let handle else { return nil }
        return objects.withLock { $0[UInt(bitPattern: handle)] }
    }

    /// Runs `body` with the object of `handle`; `kAudio_ParamError` for a handle that is none.
    func with(_ handle: OpaquePointer?, _ body: (Object) -> OSStatus) -> OSStatus {
        guard let object = find(handle) else { return kAudio_ParamError }
        return body(object)
    }

    /// Unregisters and returns the object of `handle`, if it was live.
    func remove(_ handle: OpaquePointer) -> Object? {
        objects.withLock { $0.removeValue(forKey: UInt(bitPattern: handle)) }
    }
}
