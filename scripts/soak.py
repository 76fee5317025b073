"""The soak run behind scripts/soak: see there. Prints the RSS samples and a verdict; exits 1 on failure.

    python3 scripts/soak.py MINUTES            one file, every frame, flat memory
    python3 scripts/soak.py --logger MINUTES   a logger: one-second files on the clock, kept 576 s
"""
import glob, os, subprocess, sys, tempfile, time, json

logger = sys.argv[1] == "--logger"
if logger:
    sys.argv.pop(1)
minutes = float(sys.argv[1])
seconds = int(minutes * 60)
private = tempfile.mkdtemp(prefix="recorder-soak-")
env = dict(os.environ, PULSE_RUNTIME_PATH=private, PULSE_STATE_PATH=private, HOME=private,
           PULSE_SERVER=f"unix:{private}/native")
with open(f"{private}/server.pa", "w") as script:
    script.write(f"load-module module-native-protocol-unix socket={private}/native auth-anonymous=1\n"
                 "load-module module-null-sink sink_name=soak rate=44100 channels=1 format=s16le norewinds=1\n")
subprocess.run(["pulseaudio", "-n", "-F", f"{private}/server.pa", "--daemonize=yes", "--exit-idle-time=-1",
                f"--log-target=file:{private}/log"], env=env, check=True, close_fds=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
player = recorder = peer = None
try:
    # Endless noise into the sink (sox generates it; pacat plays it).
    noise = subprocess.Popen(["sox", "-q", "-n", "-r", "44100", "-c", "1", "-b", "16", "-e", "signed", "-t", "raw",
                              "-", "synth", str(seconds + 60), "whitenoise", "vol", "0.5"], stdout=subprocess.PIPE)
    player = subprocess.Popen(["pacat", "--playback", "-d", "soak", "--format=s16le", "--rate=44100",
                               "--channels=1"], stdin=noise.stdout, env=env)
    path = f"{private}/soak.aiff"
    # A logger: a week of five-minute files kept two days, scaled 300 to one (1 s files, 576 s kept).
    keep = 576
    arguments = ([f"{private}/logger/%Y%m%d/%H%M%S.flac", "--segment", "1s", "--utc", "--keep", f"{keep}s"] if logger
                 else [path])
    levels = open(f"{private}/levels.jsonl", "w")
    # Its stderr to a file: a logger says each file as it begins, more than a pipe read only at the end holds.
    errors = open(f"{private}/stderr.txt", "w")
    recorder = subprocess.Popen([".build/release/recorder", "record"] + arguments + ["--duration", str(seconds),
                                 "--source", "soak.monitor", "--levels-json"], stdout=levels,
                                stderr=errors, env=env, text=True)
    # Beside a logger, the peer: ffmpeg's segment muxer on the same source, one-second FLAC files named by
    # the clock (no retention of its own), its memory and descriptors sampled alike; not judged.
    if logger:
        os.makedirs(f"{private}/ffmpeg")
        peer = subprocess.Popen(["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "pulse", "-i", "soak.monitor", "-t", str(seconds),
                                 "-ac", "1", "-ar", "44100", "-c:a", "flac", "-f", "segment", "-segment_time", "1",
                                 "-segment_atclocktime", "1", "-strftime", "1", f"{private}/ffmpeg/%H%M%S.flac"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def sample(pid):
        """Resident KiB and open descriptors of `pid`, or None once it is gone."""
        try:
            with open(f"/proc/{pid}/status") as status:
                rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
            return rss, len(os.listdir(f"/proc/{pid}/fd"))
        except (OSError, StopIteration):
            return None

    start = time.monotonic()
    samples, peer_samples = [], []
    while recorder.poll() is None:
        elapsed, mine = time.monotonic() - start, sample(recorder.pid)
        if mine:
            samples.append((elapsed,) + mine)
        theirs = sample(peer.pid) if peer and peer.poll() is None else None
        if theirs:
            peer_samples.append((elapsed,) + theirs)
        time.sleep(5)
    levels.close()
    errors.close()
    stderr = open(f"{private}/stderr.txt").read()
    peer_at = {round(elapsed): (rss, fds) for elapsed, rss, fds in peer_samples}
    print("elapsed_s  rss_kib  descriptors" + ("  ffmpeg_rss_kib  ffmpeg_descriptors" if peer else ""))
    for elapsed, rss, descriptors in samples:
        theirs = peer_at.get(round(elapsed))
        print(f"{elapsed:9.0f}  {rss:7d}  {descriptors:11d}" + (f"  {theirs[0]:14d}  {theirs[1]:18d}" if theirs else ""))
    after_first_minute = [(rss, fds) for elapsed, rss, fds in samples if elapsed >= 60] or [samples[-1][1:]]
    baseline = after_first_minute[0][0]
    growth = max(rss for rss, _ in after_first_minute) - baseline
    descriptors = sorted({fds for _, fds in after_first_minute})
    late = [(rss, fds) for elapsed, rss, fds in peer_samples if elapsed >= 60]
    if late:
        print(f"ffmpeg (segment muxer, no retention): RSS at 1 min {late[0][0]} KiB, largest growth after it "
              f"{max(r for r, _ in late) - late[0][0]} KiB; descriptors {min(d for _, d in late)}..{max(d for _, d in late)}; "
              f"files: {len(glob.glob(f'{private}/ffmpeg/*.flac'))}")
    print("recorder: " + "\n".join(line for line in stderr.strip().split("\n") if not line.startswith("recorder: continuing in ")))
    print(f"RSS at 1 min: {baseline} KiB; largest growth after it: {growth} KiB; peak {max(r for _, r, _ in samples)} KiB")
    print(f"descriptors after 1 min: {descriptors[0]}..{descriptors[-1]}")
    if logger:
        events = [json.loads(line) for line in open(f"{private}/levels.jsonl") if line.startswith('{"event"')]
        finished = [event for event in events if event["event"] == "file-finished"]
        removed = [event for event in events if event["event"] == "removed"]
        left = sorted(glob.glob(f"{private}/logger/*/*.flac"))
        total = sum(event["frames"] for event in finished)
        # Each file left holds the frames its event said; each starts on its second (its name).
        said = {event["path"]: event["frames"] for event in finished}
        held = {path: int(subprocess.run(["soxi", "-s", path], capture_output=True, text=True).stdout) for path in left}
        dropped = sum(event.get("frames", 0) for event in events if event["event"] == "dropped")
        print(f"files written: {len(finished)}; removed: {len(removed)}; left: {len(left)} (kept {keep} s of 1 s files)")
        print(f"frames across the files: {total} (expected {seconds * 44100}); dropped, counted: {dropped}")
        # Flat once the lists a logger keeps bounded are full (its newest 1 000 names, the files --keep
        # holds): the run's second half may not grow more than 256 KiB.
        half = [rss for elapsed, rss, _ in samples if elapsed >= samples[-1][0] / 2]
        late_growth = max(half) - half[0]
        print(f"RSS at half-time: {half[0]} KiB; largest growth after it: {late_growth} KiB")
        ok = (recorder.returncode == 0 and total == seconds * 44100 and late_growth <= 256 and descriptors[-1] - descriptors[0] <= 2
              and len(removed) == len(finished) - len(left) and abs(len(left) - min(keep, len(finished))) <= 1
              and all(held[path] == said.get(path) for path in left)
              and f"files: {len(finished)}, from " in stderr)
    else:
        frames = int(subprocess.run(["soxi", "-s", path], capture_output=True, text=True).stdout)
        lines = sum(1 for _ in open(f"{private}/levels.jsonl"))
        print(f"frames in file: {frames} (expected {seconds * 44100}); JSON level lines: {lines}")
        ok = (recorder.returncode == 0 and frames == seconds * 44100 and "dropped 0 frames" in stderr
              and growth <= 512)
    print("soak: PASS" if ok else "soak: FAIL")
    sys.exit(0 if ok else 1)
finally:
    for process in (recorder, peer, player):
        if process and process.poll() is None:
            process.kill()
    subprocess.run(["pactl", "exit"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run(["rm", "-rf", private])
