"""The soak run behind scripts/soak: see there. Prints the RSS samples and a verdict; exits 1 on failure."""
import os, subprocess, sys, tempfile, time, json

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
player = recorder = None
try:
    # Endless noise into the sink (sox generates it; pacat plays it).
    noise = subprocess.Popen(["sox", "-q", "-n", "-r", "44100", "-c", "1", "-b", "16", "-e", "signed", "-t", "raw",
                              "-", "synth", str(seconds + 60), "whitenoise", "vol", "0.5"], stdout=subprocess.PIPE)
    player = subprocess.Popen(["pacat", "--playback", "-d", "soak", "--format=s16le", "--rate=44100",
                               "--channels=1"], stdin=noise.stdout, env=env)
    path = f"{private}/soak.aiff"
    levels = open(f"{private}/levels.jsonl", "w")
    recorder = subprocess.Popen([".build/release/recorder", "record", path, "--duration", str(seconds),
                                 "--source", "soak.monitor", "--levels-json"], stdout=levels,
                                stderr=subprocess.PIPE, env=env, text=True)
    start = time.monotonic()
    samples = []
    while recorder.poll() is None:
        try:
            with open(f"/proc/{recorder.pid}/status") as status:
                rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
            samples.append((time.monotonic() - start, rss))
        except (OSError, StopIteration):
            pass
        time.sleep(5)
    stderr = recorder.stderr.read()
    levels.close()
    frames = int(subprocess.run(["soxi", "-s", path], capture_output=True, text=True).stdout)
    lines = sum(1 for _ in open(f"{private}/levels.jsonl"))
    print("elapsed_s  rss_kib")
    for elapsed, rss in samples:
        print(f"{elapsed:9.0f}  {rss:7d}")
    after_first_minute = [rss for elapsed, rss in samples if elapsed >= 60]
    baseline = after_first_minute[0] if after_first_minute else samples[-1][1]
    growth = max(after_first_minute or [baseline]) - baseline
    print(f"recorder: {stderr.strip()}")
    print(f"frames in file: {frames} (expected {seconds * 44100}); JSON level lines: {lines}")
    print(f"RSS at 1 min: {baseline} KiB; largest growth after it: {growth} KiB; peak {max(r for _, r in samples)} KiB")
    ok = (recorder.returncode == 0 and frames == seconds * 44100 and "dropped 0 frames" in stderr
          and growth <= 512)
    print("soak: PASS" if ok else "soak: FAIL")
    sys.exit(0 if ok else 1)
finally:
    for process in (recorder, player):
        if process and process.poll() is None:
            process.kill()
    subprocess.run(["pactl", "exit"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run(["rm", "-rf", private])
