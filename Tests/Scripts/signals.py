#!/usr/bin/env python3
"""Signal and pipe timings for the CLI tests: what Swift's Process cannot do (set a signal's inherited
disposition, shrink a pipe, busy-wait to the millisecond). Each run prints one JSON line; the Swift tests
judge them and check the files.

  signals.py early RECORDER DIRECTORY SOURCE RUNS OFFSET_MS...
      For SIGINT and SIGTERM, SIGINT inherited as default and as ignored (a background job of a script),
      each offset and RUNS runs: starts `RECORDER record DIRECTORY/NAME.aiff --source SOURCE --quiet`,
      waits until the process catches SIGINT and SIGTERM (its first statement; /proc/PID/status SigCgt),
      sends the signal OFFSET_MS later, and reports the exit status and the milliseconds from the signal
      to the exit, and the milliseconds from spawn to the handlers.
  signals.py early-play RECORDER DIRECTORY FILE SINK RUNS OFFSET_MS...
      The same matrix for `RECORDER play FILE --device SINK --quiet` (DIRECTORY keeps each run's stderr).
  signals.py early-pipe RECORDER DIRECTORY SOURCE RUNS OFFSET_MS...
      The same matrix for `RECORDER record - --source SOURCE --quiet` (AU to standard output, a pipe):
      what came out of the pipe is kept in DIRECTORY/NAME.au, "file" says whether anything did.
  signals.py stalled-reader RECORDER PATH SOURCE
      Records with --levels-json into a 4 KiB pipe nobody reads; once the pipe is full, sends SIGINT and
      reports the status, the milliseconds to the exit, and stderr.
  signals.py stalled-audio-reader RECORDER TYPE SOURCE OUT
      Records `- -t TYPE` (mono 16-bit) into a pipe nobody reads; once the pipe is as full as the recorder
      fills it, sends SIGINT and reports the status, the milliseconds to the exit, the bytes the pipe held
      and stderr; then reads the pipe to its end into OUT.
"""
import fcntl, json, os, signal, subprocess, sys, time

def catches(pid, numbers):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("SigCgt:"):
                    mask = int(line.split()[1], 16)
                    return all(mask & (1 << (n - 1)) for n in numbers)
    except FileNotFoundError:
        return None
    return False

def stop(process, number):
    """Sends `number` and waits (at most 10 s: a hang is killed and reported as "hung"); returns the exit
    status and the milliseconds from the signal to the exit."""
    sent = time.monotonic()
    process.send_signal(number)
    try:
        status = process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        status = "hung"
    return status, (time.monotonic() - sent) * 1000

def early(directory, command, runs, offsets, pipe=False):
    """`command(name)`: the argument list of one run, named `name`; the JSON line's "path" is
    DIRECTORY/NAME.aiff (a record run's file, absent for play), or with `pipe` DIRECTORY/NAME.au: what
    the run wrote to its standard output, a pipe."""
    for number in (signal.SIGINT, signal.SIGTERM):
        for inherited in ("default", "ignored"):
            def prepare(inherited=inherited):
                signal.signal(signal.SIGINT, signal.SIG_IGN if inherited == "ignored" else signal.SIG_DFL)
            for offset in offsets:
                for run in range(runs):
                    name = f"{number.name}-{inherited}-{offset}-{run}"
                    path = os.path.join(directory, name + (".au" if pipe else ".aiff"))
                    with open(os.path.join(directory, name + ".err"), "wb") as errors:
                        spawned = time.monotonic()
                        process = subprocess.Popen(command(path),
                                                   stdin=subprocess.DEVNULL,
                                                   stdout=subprocess.PIPE if pipe else subprocess.DEVNULL,
                                                   stderr=errors, preexec_fn=prepare)
                        while not catches(process.pid, (signal.SIGINT, signal.SIGTERM)):
                            if process.poll() is not None:
                                break
                        ready = time.monotonic()
                        while time.monotonic() < ready + offset / 1000:
                            pass
                        status, exit_ms = stop(process, number)
                        if pipe:
                            # 50 ms of audio at most: the 64 KiB pipe held it all, nothing waited.
                            data = process.stdout.read()
                            process.stdout.close()
                            if data:
                                with open(path, "wb") as out:
                                    out.write(data)
                    print(json.dumps({"signal": number.name, "inherited": inherited, "offset_ms": offset,
                                      "path": path, "status": status,
                                      "exit_ms": exit_ms, "ready_ms": (ready - spawned) * 1000,
                                      "file": os.path.exists(path)}), flush=True)

def stalled_reader(recorder, path, source):
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, 1031, 4096)  # F_SETPIPE_SZ: the smallest pipe, full in seconds
    process = subprocess.Popen([recorder, "record", path, "--source", source, "--levels-json"],
                               stdin=subprocess.DEVNULL, stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    started = time.monotonic()
    buffered = bytearray(4)
    while time.monotonic() < started + 30:
        fcntl.ioctl(read_end, 0x541B, buffered)  # FIONREAD: bytes waiting in the pipe
        if int.from_bytes(buffered, sys.byteorder) > 4096 - 200:
            break
        time.sleep(0.05)
    waiting = int.from_bytes(buffered, sys.byteorder)
    time.sleep(0.5)  # the writer is now blocked and more lines are queued behind it
    filled = time.monotonic() - started
    status, exit_ms = stop(process, signal.SIGINT)
    errors = process.stderr.read().decode()
    os.close(read_end)
    print(json.dumps({"status": status, "exit_ms": exit_ms, "pipe_bytes": waiting,
                      "filled_s": filled, "stderr": errors}), flush=True)

def stalled_audio_reader(recorder, kind, source, out):
    read_end, write_end = os.pipe()
    process = subprocess.Popen([recorder, "record", "-", "-t", kind, "--source", source],
                               stdin=subprocess.DEVNULL, stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    # The recorder passes the stream on a page (4096 bytes) at a time once the pipe has room for one:
    # it waits once the pipe's last page is taken.
    started = time.monotonic()
    buffered = bytearray(4)
    capacity, full = 0, 0
    while time.monotonic() < started + 30:
        capacity = fcntl.fcntl(read_end, 1032)  # F_GETPIPE_SZ
        full = capacity - 4096
        fcntl.ioctl(read_end, 0x541B, buffered)  # FIONREAD: bytes waiting in the pipe
        if int.from_bytes(buffered, sys.byteorder) > full:
            break
        time.sleep(0.05)
    waiting = int.from_bytes(buffered, sys.byteorder)
    # A second of audio queues behind the write that waits: more than the pipe's last page can take, even
    # for a FLAC sine (0.3 s was not always: the take then ended with room to spare, exit 0).
    time.sleep(1.0)
    status, exit_ms = stop(process, signal.SIGINT)
    errors = process.stderr.read().decode()
    with open(out, "wb") as kept:
        while True:
            data = os.read(read_end, 65536)
            if not data:
                break
            kept.write(data)
    os.close(read_end)
    print(json.dumps({"status": status, "exit_ms": exit_ms, "pipe_bytes": waiting, "capacity": capacity,
                      "full": full, "stderr": errors}), flush=True)

if __name__ == "__main__":
    # As from a login shell: nothing blocked (the test runner's threads block nearly every signal, and a
    # child would inherit that; a blocked signal waits instead of acting, which would hide the window).
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    if sys.argv[1] == "early":
        recorder, source = sys.argv[2], sys.argv[4]
        early(sys.argv[3], lambda path: [recorder, "record", path, "--source", source, "--quiet"],
              int(sys.argv[5]), [float(x) for x in sys.argv[6:]])
    elif sys.argv[1] == "early-play":
        recorder, sound, sink = sys.argv[2], sys.argv[4], sys.argv[5]
        early(sys.argv[3], lambda path: [recorder, "play", sound, "--device", sink, "--quiet"],
              int(sys.argv[6]), [float(x) for x in sys.argv[7:]])
    elif sys.argv[1] == "early-pipe":
        recorder, source = sys.argv[2], sys.argv[4]
        early(sys.argv[3], lambda path: [recorder, "record", "-", "--source", source, "--quiet"],
              int(sys.argv[5]), [float(x) for x in sys.argv[6:]], pipe=True)
    elif sys.argv[1] == "stalled-audio-reader":
        stalled_audio_reader(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif sys.argv[1] == "stalled-reader":
        stalled_reader(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(f"signals.py: unknown mode {sys.argv[1]!r}")
