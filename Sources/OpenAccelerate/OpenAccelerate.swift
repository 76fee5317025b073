// The module's face: vDSP's C interface (re-exported from COpenAccelerate, declared as Apple's vDSP.h
// declares it) and the Swift overlay's `vDSP` namespace, so that code written with `import Accelerate`
// compiles on Linux with `import OpenAccelerate` instead.
@_exported import COpenAccelerate

/// A vector the overlay reads: anything with contiguous storage of its elements (Apple's protocol).
public protocol AccelerateBuffer {
    associatedtype Element
    var count: Int { get }
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R
}

/// A vector the overlay writes.
public protocol AccelerateMutableBuffer: AccelerateBuffer {
    mutating func withUnsafeMutableBufferPointer<R>(_ body: (inout UnsafeMutableBufferPointer<Element>) throws -> R) rethrows -> R
}

extension Array: AccelerateMutableBuffer {}
extension ContiguousArray: AccelerateMutableBuffer {}
extension ArraySlice: AccelerateMutableBuffer {}

extension UnsafeBufferPointer: AccelerateBuffer {
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R { try body(self) }
}

extension UnsafeMutableBufferPointer: AccelerateMutableBuffer {
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(self))
    }

    public mutating func withUnsafeMutableBufferPointer<R>(_ body: (inout UnsafeMutableBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(&self)
    }
}

/// Apple's Swift overlay of vDSP: the reductions, arithmetic, decibels, windows, conversions and FFT
/// classes that programs use, each calling the C function Apple's calls. Any thread; nothing is shared.
public enum vDSP {}
