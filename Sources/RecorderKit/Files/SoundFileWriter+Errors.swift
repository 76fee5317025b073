// What a sound file's creation or a write into it failed on, said in one line with what to do.
import CSndFile
import Glibc

extension SoundFileWriter {
    static func creationError(path: String, errno code: Int32) -> RecorderError {
        var status = stat()
        let isDirectory = lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
        if isDirectory {
            return RecorderError(.cannotCreateFile, "cannot create '\(path)': it is a directory; give a file name",
                                 underlying: .init(.posix, code))
        }
        if code == EEXIST {
            return RecorderError(.fileExists,
                "'\(path)' already exists and was left untouched; choose another name or allow overwriting",
                underlying: .init(.posix, code))
        }
        if code == ELOOP {
            return RecorderError(.cannotCreateFile,
                "cannot create '\(path)': it is a symbolic link (or a loop of them), which is not followed; "
                + "give the real path", underlying: .init(.posix, code))
        }
        let reason = String(cString: strerror(code))
        let hint = code == ENOENT ? "create the directory first"
            : code == EACCES || code == EPERM || code == EROFS ? "choose a writable location"
            : "choose another path"
        return RecorderError(.cannotCreateFile, "cannot create '\(path)': \(reason); \(hint)",
                             underlying: .init(.posix, code))
    }

    func writeError() -> RecorderError {
        let systemError = errno
        // The system's reason when the descriptor refused the bytes. libsndfile's FLAC encoder reports a
        // failed write as a problem "with initialization of the flac decoder", and its errno is gone.
        let reason = [ENOSPC, EPIPE, EIO, EBADF, EFBIG, EDQUOT].contains(systemError) ? String(cString: strerror(systemError))
            : fileType == .flac ? "the FLAC encoder could not write its output (libsndfile gives no reason: a full disk or device?)"
            : sndfileReason(file)
        if isStandardOutput {
            let gone = systemError == EPIPE
            return RecorderError(.writeFailed,
                gone ? "standard output was closed by its reader after \(framesWritten) frames; the recording ended there"
                     : "writing to standard output failed after \(framesWritten) frames: \(reason); the recording ended there",
                underlying: systemError != 0 ? .init(.posix, systemError) : .init(.sndfile, sf_error(file)))
        }
        return RecorderError(.writeFailed,
            "writing '\(path)' failed after \(framesWritten) frames: \(reason); the file was closed with "
            + "what was written; free space or choose another disk",
            underlying: systemError != 0 ? .init(.posix, systemError) : .init(.sndfile, sf_error(file)))
    }
}
