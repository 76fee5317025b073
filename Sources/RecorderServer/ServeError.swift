// The error of the page's server: one line saying what failed and what to do.

/// Something the page's server could not do, in one line that says what to do.
public struct ServeError: Error, Sendable, CustomStringConvertible {
    /// The line: what failed, with what is involved, and what to do.
    public let message: String
    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
