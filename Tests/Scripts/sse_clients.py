"""Many watchers of `recorder serve`'s event stream at once, and one that stops reading.

    python3 sse_clients.py URL CLIENTS SECONDS [--closing N]

Opens CLIENTS connections to URL/api/events and reads them for SECONDS, each counting its levels messages,
the longest wait between two, the channels in each, and any "left-out" event. `--closing N`: N of them
close (as a browser tab closed) half-way. Meanwhile one more client sends its request with a 4 KiB receive
buffer and never reads; /api/server is asked every 100 ms until it counts that client dropped. Prints one
JSON object.
"""
import asyncio
import json
import socket
import sys
import time
import urllib.request

url, clients, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
closing = int(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "--closing" else 0
host, port = url.split("//")[1].rstrip("/").rsplit(":", 1)
port = int(port)
request = ("GET /api/events HTTP/1.1\r\nHost: %s:%d\r\nAccept: text/event-stream\r\n\r\n" % (host, port)).encode()


async def watch(index, until):
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(request)
    await writer.drain()
    seen = {"levels": 0, "longest_gap": 0.0, "channels": set(), "left_out": 0, "first": None}
    last = None
    event = None
    started = time.monotonic()
    try:
        while time.monotonic() < until:
            try:
                line = await asyncio.wait_for(reader.readline(), timeout=max(0.01, until - time.monotonic()))
            except asyncio.TimeoutError:
                break
            if not line:
                break
            text = line.decode(errors="replace").rstrip("\r\n")
            if text.startswith("event: "):
                event = text[7:]
            elif text.startswith("data: {") and event == "levels":
                now = time.monotonic()
                message = json.loads(text[6:])
                seen["levels"] += 1
                seen["channels"].add(len(message["peak_since_last_db"]))
                if last is None:
                    seen["first"] = now - started
                else:
                    seen["longest_gap"] = max(seen["longest_gap"], now - last)
                last = now
            elif text.startswith("data: {") and event == "recorder" and '"left-out"' in text:
                seen["left_out"] += 1
    finally:
        writer.close()
    seen["channels"] = sorted(seen["channels"])
    return seen


def server_counts():
    with urllib.request.urlopen(url + "api/server", timeout=10) as response:
        return json.loads(response.read())


async def stalled(until):
    """A client that asks and never reads: how long until the server counts it dropped."""
    before = (await asyncio.to_thread(server_counts))["dropped_stalled"]
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, port))
    sock.sendall(request)
    began = time.monotonic()
    while time.monotonic() < until + 30:
        counts = await asyncio.to_thread(server_counts)
        if counts["dropped_stalled"] > before:
            sock.close()
            return time.monotonic() - began
        await asyncio.sleep(0.1)
    sock.close()
    return None


async def main():
    until = time.monotonic() + seconds
    half = time.monotonic() + seconds / 2
    watchers = [watch(index, half if index < closing else until) for index in range(clients)]
    results = await asyncio.gather(stalled(until), *watchers)
    print(json.dumps({"stalled_dropped_after": results[0], "clients": results[1:]}))


asyncio.run(main())
