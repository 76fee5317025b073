// The one public error type of RecorderKit: a stable code plus a one-line message that says what to do.

/// An error thrown or reported by RecorderKit.
///
/// `code` is stable and meant for programs (a CLI maps it to an exit status); `message` is one line
/// for people: what failed, the server/source/path involved, the library's reason, and what to do.
public struct RecorderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case invalidFormat, serverUnreachable, sourceNotFound, streamFailed
            case fileExists, cannotCreateFile, unsupportedFileType, writeFailed, invalidState, cannotReadFile
            case fileInUse, sinkNotFound, readFailed, invalidChannel, loudnessUnreachable
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// Rate, channel count or buffer settings the recorder cannot use.
        public static let invalidFormat = Code(.invalidFormat)
        /// No PulseAudio (or pipewire-pulse) server answered at the address tried.
        public static let serverUnreachable = Code(.serverUnreachable)
        /// The server has no capture source of the requested name.
        public static let sourceNotFound = Code(.sourceNotFound)
        /// The server has no playback sink of the requested name.
        public static let sinkNotFound = Code(.sinkNotFound)
        /// Reading a file being played failed part-way (a damaged or cut compressed stream).
        public static let readFailed = Code(.readFailed)
        /// The record or playback stream could not be created, or failed while running.
        public static let streamFailed = Code(.streamFailed)
        /// The output file exists and overwriting was not asked for.
        public static let fileExists = Code(.fileExists)
        /// The output file is being written by another recording (this process's or another's): it holds
        /// the file's lock, and the file was left untouched.
        public static let fileInUse = Code(.fileInUse)
        /// The output file could not be created (missing directory, permission, a directory at the path...).
        public static let cannotCreateFile = Code(.cannotCreateFile)
        /// The file name's extension names no container RecorderKit writes.
        public static let unsupportedFileType = Code(.unsupportedFileType)
        /// Writing audio to the file failed (disk full, I/O error), or the file was deleted while recording.
        public static let writeFailed = Code(.writeFailed)
        /// A file to analyze could not be opened or read.
        public static let cannotReadFile = Code(.cannotReadFile)
        /// The call does not fit the recorder's state (already recording, already stopped).
        public static let invalidState = Code(.invalidState)
        /// A channel number the stream does not have (channels count from 0).
        public static let invalidChannel = Code(.invalidChannel)
        /// No one gain brings the file to the loudness asked: its true peak would pass the ceiling, or it
        /// is silent (`Normalization`).
        public static let loudnessUnreachable = Code(.loudnessUnreachable)

        /// The code's name.
        public var description: String { "\(kind)" }
    }

    /// The C library's own code behind the failure, when there is one.
    public struct UnderlyingError: Hashable, Sendable, CustomStringConvertible {
        /// Which library's codes `code` is.
        public enum Domain: String, Hashable, Sendable {
            /// A POSIX `errno` value (`strerror` words it).
            case posix
            /// A libpulse error (`pa_context_errno`, `PA_ERR_*`; `pa_strerror` words it).
            case pulseAudio
            /// A libsndfile error (`sf_error`, `SF_ERR_*`; `sf_error_number` words it), or, for system
            /// errors libsndfile reports as text, the `errno` it saw (domain `.posix`).
            case sndfile
        }
        /// Which library the code is from.
        public let domain: Domain
        /// The library's own number.
        public let code: Int32

        /// `code` of `domain`.
        public init(_ domain: Domain, _ code: Int32) {
            self.domain = domain
            self.code = code
        }

        /// e.g. "posix error 28".
        public var description: String { "\(domain.rawValue) error \(code)" }
    }

    /// What kind of failure: stable, for programs.
    public let code: Code
    /// One line for people: what failed, with what, and what to do.
    public let message: String
    /// The errno, libpulse or libsndfile code the failure came from (nil for RecorderKit's own checks).
    public let underlyingError: UnderlyingError?

    /// An error of `code` saying `message`, with the C library's code behind it if any.
    public init(_ code: Code, _ message: String, underlying: UnderlyingError? = nil) {
        self.code = code
        self.message = message
        underlyingError = underlying
    }

    /// The message.
    public var description: String { message }
}

/// Seconds for a message: whole numbers without a fraction.
func seconds(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
}
