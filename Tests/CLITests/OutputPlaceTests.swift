// Every place `record` can be told to write that is not a new file: standard output closed, full,
// opened for appending or part-way into a file, and a FIFO or character device named as OUTPUT.
import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct OutputPlaceTests {
    /// Runs `recorder ARGS` through bash with `redirection` applied to it.
    private func shell(_ arguments: String, _ redirection: String, _ server: PrivateServer) async throws -> ProcessResult {
        let command = "'\(try builtProduct("recorder"))' \(arguments) \(redirection)"
        let environment = server.clientEnvironment
        return try await offThread { try runProcess("bash", ["-c", command], environment: environment) }
    }

    /// Standard output that cannot take the audio is an error before anything is recorded, in one line
    /// with the status docs/command.md gives (74); a stream with a header is refused where its header could
    /// not begin the file (append mode, or a file already part-written), and the file is left as it was.
    @Test func standardOutputThatCannotTakeTheAudioIsOneLineAndNothingIsLost() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let take = "record - -d \(PrivateServer.sineSource) --duration 0.2"
            for type in ["au", "raw", "flac"] {
                let closed = try await shell("\(take) -t \(type)", ">&-", server)
                #expect(closed.status == 74 && closed.stderr == "recorder: standard output is closed: the audio of 'record -' "
                        + "would be lost; redirect it (recorder record - > take.au, or | another program), or give a file name\n",
                        "\(type): \(closed.stderr)")
                // A header fails at once (AU); a stream without one fails at its first write, after which the
                // summary says that nothing was written.
                let full = try await shell("\(take) -t \(type)", "> /dev/full", server)
                let lines = full.stderr.split(separator: "\n")
                #expect(full.status == 74 && lines.last?.hasPrefix("recorder: writing to standard output failed") == true
                        && (lines.last?.contains("No space left on device") == true
                            || (type == "flac" && lines.last?.contains("the FLAC encoder could not write its output") == true))
                        && lines.dropLast().allSatisfy { $0.hasPrefix("recorded standard output: 0.000 s, 0 frames") },
                        "\(type): \(full.stderr)")
            }
            // Appending: every type with a header is refused and the file is untouched; raw appends.
            for type in ["wav", "au", "aiff", "flac", "caf"] {
                let path = directory + "/appended.\(type)"
                try Data("keep".utf8).write(to: URL(fileURLWithPath: path))
                let appended = try await shell("\(take) -t \(type)", ">> '\(path)'", server)
                #expect(appended.status == 64 && appended.stderr == "recorder: cannot write \(type.uppercased()) to standard "
                        + "output opened for appending (>>): its header is rewritten at the file's start as the take grows; "
                        + "redirect with > to a new file, or use -t raw\n", "\(type): \(appended.stderr)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("keep".utf8))
                // Part-way into a file that is not appended to: the same, with the byte it would start at.
                let path2 = directory + "/offset.\(type)"
                let offset = try await shell("\(take) -t \(type)", "> '\(path2)'", server)
                #expect(offset.status == 0, "\(offset.stderr)")
                let prefixed = try await offThread { [environment = server.clientEnvironment] in
                    try runProcess("bash", ["-c", "{ printf abc; '\(try builtProduct("recorder"))' \(take) -t \(type); } > '\(path2)'"],
                                   environment: environment)
                }
                #expect(prefixed.status == 64 && prefixed.stderr.hasPrefix("recorder: cannot write \(type.uppercased()) to standard "
                        + "output at byte 3 of a file"), "\(type): \(prefixed.stderr)")
            }
            let raw = directory + "/appended.raw"
            for _ in 0..<2 {
                let appended = try await shell("\(take) -t raw -q", ">> '\(raw)'", server)
                #expect(appended.status == 0, "\(appended.stderr)")
            }
            #expect(fileSize(raw) == 2 * 8_820 * 2, "two takes of 8820 frames of 16-bit mono, one after the other")
        }
    }

    /// A FIFO or a character device named as OUTPUT is written into as standard output is, with or
    /// without --force (nothing there is replaced): the FIFO's reader gets the whole take; a FIFO nobody
    /// reads, or one given a type that must rewrite its header, is one line.
    @Test func aFIFOOrCharacterDeviceNamedAsOutputIsWrittenInto() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            for force in [[], ["--force"]] {
                let null = try await recorder(["record", "/dev/null", "-t", "au", "-d", PrivateServer.sineSource,
                                               "--duration", "0.2"] + force, server: server)
                #expect(null.status == 0 && null.stderr.hasPrefix("recorded /dev/null: 0.200 s, 8820 frames"), "\(null.stderr)")
            }
            let fifo = directory + "/fifo"
            #expect(mkfifo(fifo, 0o600) == 0)
            let unread = try await recorder(["record", fifo, "-t", "au", "--duration", "0.2"], server: server)
            #expect(unread.status == 73 && unread.stderr == "recorder: cannot write into FIFO '\(fifo)': nothing is reading it; "
                    + "start its reader first\n", "\(unread.stderr)")
            // A reader first, then the take through it.
            let copy = directory + "/copy.au"
            let reader = try RunningProcess("/bin/sh", ["-c", "exec cat '\(fifo)' > '\(copy)'"], environment: server.clientEnvironment)
            try await waitFor("cat to wait in open() for a writer") { isOpeningAFile(reader.pid, program: "cat") }
            let through = try await recorder(["record", fifo, "-t", "au", "-d", PrivateServer.sineSource, "--duration", "0.5"],
                                             server: server)
            #expect(through.status == 0 && through.stderr.hasPrefix("recorded \(fifo): 0.500 s, 22050 frames"), "\(through.stderr)")
            _ = await reader.wait()
            #expect(try decodedFrames(copy).frames == 22_050)
            let wav = try await recorder(["record", fifo, "-t", "wav", "--duration", "0.2"], server: server)
            #expect(wav.status == 64 && wav.stderr.hasPrefix("recorder: cannot write WAV into FIFO '\(fifo)'"), "\(wav.stderr)")
        }
    }
}

/// Whether process `pid` runs `program` and is in openat(2) (a FIFO's reader waits there for a writer,
/// already counted as a reader), from /proc.
private func isOpeningAFile(_ pid: pid_t, program: String) -> Bool {
    let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
    let syscall = (try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8)) ?? ""
    return comm == program + "\n" && syscall.hasPrefix("257 ")
}
