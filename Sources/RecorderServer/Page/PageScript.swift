// The page's script: levels and events from /api/events (Server-Sent Events, reconnecting by itself), the
// controls as POSTs, the take list from /api/takes. No framework; every number shown is one the server sent.


extension PageText {
    static let script = #"""
    "use strict";
    const $ = (id) => document.getElementById(id);
    const FLOOR = -60;          // the bars' bottom, dBFS
    const HOLD_MS = 2000;       // a peak tick stays this long
    let channels = [];          // per channel: {bar, hold, value, clip, held, heldAt}
    let state = null;
    let lastTakes = "";

    function db(value, digits = 1) {
      return value === null || value === undefined ? "–" : value.toFixed(digits);
    }
    function clock(seconds) {
      if (seconds === null || seconds === undefined || !isFinite(seconds)) return "–";
      const s = Math.max(0, Math.floor(seconds));
      const pad = (n) => String(n).padStart(2, "0");
      return pad(Math.floor(s / 3600)) + ":" + pad(Math.floor(s / 60) % 60) + ":" + pad(s % 60);
    }
    function bytes(count) {
      const units = ["B", "KiB", "MiB", "GiB", "TiB"];
      let value = count, unit = 0;
      while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++; }
      return (unit === 0 ? value : value.toFixed(1)) + " " + units[unit];
    }
    function fraction(value) {
      if (value === null || value === undefined) return 0;
      return Math.min(1, Math.max(0, (value - FLOOR) / -FLOOR));
    }

    function buildMeters(count, names) {
      const box = $("meters");
      box.textContent = "";
      channels = [];
      for (let index = 0; index < count; index++) {
        const row = document.createElement("div");
        row.className = "channel";
        row.dataset.channel = String(index);
        const name = document.createElement("span");
        name.className = "name";
        name.textContent = names[index] || String(index + 1);
        const track = document.createElement("span");
        track.className = "track";
        const bar = document.createElement("span");
        bar.className = "bar";
        const hold = document.createElement("span");
        hold.className = "hold";
        track.append(bar, hold);
        const value = document.createElement("span");
        value.className = "value";
        value.textContent = "–";
        const clip = document.createElement("button");
        clip.className = "clip";
        clip.textContent = "CLIP";
        clip.title = "a full-scale sample; press to clear";
        clip.addEventListener("click", () => clip.classList.remove("on"));
        row.append(name, track, value, clip);
        box.append(row);
        channels.push({ bar, hold, value, clip, held: null, heldAt: 0 });
      }
    }

    function showLevels(levels) {
      const peaks = levels.peak_since_last_db || levels.peak_db || [];
      if (peaks.length !== channels.length) {
        const names = [];
        (levels.sources || []).forEach((source) => {
          for (let c = 0; c < source.channels; c++) names.push(source.name.split(".").pop() + " " + (c + 1));
        });
        buildMeters(peaks.length, names);
      }
      const now = performance.now();
      peaks.forEach((peak, index) => {
        const meter = channels[index];
        meter.bar.style.width = (fraction(peak) * 100).toFixed(1) + "%";
        meter.value.textContent = db(peak);
        meter.value.dataset.db = peak === null ? "" : String(peak);
        if (peak !== null && (meter.held === null || peak >= meter.held || now - meter.heldAt > HOLD_MS)) {
          meter.held = peak;
          meter.heldAt = now;
        }
        meter.hold.style.left = (fraction(meter.held) * 100).toFixed(1) + "%";
        if (levels.clipped_since_last && levels.clipped_since_last[index]) meter.clip.classList.add("on");
      });
      $("momentary").textContent = db(levels.momentary_lufs) + " LUFS";
      $("short-term").textContent = db(levels.short_term_lufs) + " LUFS";
      $("integrated").textContent = db(levels.integrated_lufs) + " LUFS";
      const truePeaks = (levels.true_peak_dbtp || []).filter((v) => v !== null);
      $("true-peak").textContent = truePeaks.length ? db(Math.max(...truePeaks)) + " dBTP" : "–";
    }

    function showState(next) {
      state = next;
      const status = $("status");
      const label = !next.running ? "NO INPUT" : next.paused ? "PAUSED" : next.recording ? "REC" : "STOPPED";
      status.textContent = label;
      status.className = "status " + (next.paused ? "paused" : next.recording ? "recording" : "stopped");
      $("elapsed").textContent = clock(next.elapsed_s);
      $("file").textContent = next.file || "–";
      $("format").textContent = next.format ? next.format.type + ", " + next.format.rate + " Hz, " + next.format.channels + " ch" : "–";
      $("loudness-note").textContent = next.loudness_note || "";
      $("loudness-note").hidden = !next.loudness_note;
      $("time-left").textContent = next.time_left_s === null ? "–" : clock(next.time_left_s) + " (" + bytes(next.disk_free_bytes) + ")";
      const losses = next.dropped_frames + next.gap_frames;
      $("losses").textContent = losses === 0 ? "none" : next.dropped_frames + " dropped, " + next.gap_frames + " in gaps (frames)";
      $("losses").className = losses === 0 ? "" : "warn";
      $("controls").hidden = !next.control;
      $("circle").classList.toggle("on", !!next.circled);
      $("nogood").classList.toggle("on", !!next.no_good);
      $("record").disabled = next.recording || !next.can_start;
      $("stop").disabled = !next.recording;
      $("pause").disabled = !next.recording || !next.can_pause;
      $("next").disabled = !next.recording || !next.can_start;
      $("pause").textContent = next.paused ? "▶ Resume" : "❚❚ Pause";
      if (next.warning || next.error) say(next.error || next.warning, true);
      showAlarms(next.alarms || []);
      const key = next.take_count + "/" + next.recording;
      if (key !== lastTakes) { lastTakes = key; loadTakes(); }
    }

    // The `record --alarm-…` alarms that are on, each a line: what it says and since when.
    function showAlarms(alarms) {
      const box = $("alarms");
      box.replaceChildren(...alarms.map((alarm) => {
        const line = document.createElement("div");
        line.className = "alarm";
        line.dataset.alarm = alarm.alarm;
        line.textContent = "ALARM " + alarm.message + " (since " + clock(alarm.since_t) + ")";
        return line;
      }));
      box.hidden = alarms.length === 0;
    }

    function addEvent(event) {
      // An alarm's marker: the alarm's own line says it (as on the terminal).
      if (event.event === "marker" && (event.label || "").startsWith("alarm")) return;
      const item = document.createElement("li");
      // A place in the file (pauses left out) where the event has one, else the time since the take began.
      item.textContent = event.event + (event.label ? " “" + event.label + "”" : "") + " at " + clock(event.position_s ?? event.t ?? 0)
        + (event.frames !== undefined ? " (" + event.frames + " frames)" : "") + (event.path ? " " + event.path : "")
        + (event.event === "alarm" ? (event.state === "on" ? ": " : " over: ") + event.message : "");
      if (["dropped", "gap", "source-lost", "interrupted", "suspended", "left-out", "failed"].includes(event.event)
          || (event.event === "alarm" && event.state === "on")) item.className = "warn";
      const list = $("events");
      list.prepend(item);
      while (list.children.length > 50) list.lastChild.remove();
      if (["file", "take-end", "finished"].includes(event.event)) loadTakes();
    }

    function say(text, warn) {
      const reply = $("reply");
      reply.textContent = text;
      reply.className = "reply" + (warn ? " warn" : "");
    }

    async function post(path, body) {
      try {
        const response = await fetch(path, {
          method: "POST", headers: { "Content-Type": "application/json" },
          body: body === undefined ? "" : JSON.stringify(body), credentials: "same-origin",
        });
        const text = await response.text();
        if (!response.ok) { say(text.trim(), true); return null; }
        say("", false);
        return text ? JSON.parse(text) : {};
      } catch (error) {
        say("the recorder did not answer: " + error, true);
        return null;
      }
    }

    function settings() {
      const text = (id) => $(id).value.trim() || undefined;
      const number = (id) => ($(id).value ? Number($(id).value) : undefined);
      return {
        source: text("source"), type: text("type"), rate: number("rate"), channels: number("channels"),
        project: text("project"), scene: text("scene"), take: number("take"), tape: text("tape"), note: text("note"),
      };
    }

    async function loadSources() {
      try {
        const sources = await (await fetch("/api/sources", { credentials: "same-origin" })).json();
        const select = $("source");
        select.textContent = "";
        sources.forEach((source) => {
          const option = document.createElement("option");
          option.value = source.name;
          option.textContent = source.description || source.name;
          option.selected = !!source.current;
          select.append(option);
        });
      } catch (error) { /* the list stays as it was */ }
    }

    async function loadTakes() {
      let list;
      try { list = await (await fetch("/api/takes", { credentials: "same-origin" })).json(); } catch (error) { return; }
      const body = $("takes").tBodies[0];
      body.textContent = "";
      list.takes.forEach((take) => {
        const row = document.createElement("tr");
        row.dataset.name = take.name;
        const cell = (text, className) => {
          const td = document.createElement("td");
          if (text instanceof Node) td.append(text); else td.textContent = text;
          if (className) td.className = className;
          row.append(td);
          return td;
        };
        const link = document.createElement("a");
        link.href = "/takes/" + encodeURIComponent(take.name);
        link.textContent = take.name;
        link.setAttribute("download", take.name);
        link.className = "download";
        cell(link, (take.circled ? "circled" : "") + (take.no_good ? " nogood" : ""));
        cell(take.recording ? "recording" : take.seconds === null ? (take.measured ? "?" : "…") : clock(take.seconds));
        cell(bytes(take.bytes));
        cell(take.integrated_lufs === null ? (take.measured ? "–" : "…") : db(take.integrated_lufs) + " LUFS");
        if (take.plot && !take.recording) {
          const plot = document.createElement("a");
          plot.href = "/takes/" + encodeURIComponent(take.name) + "/plot.svg";
          plot.textContent = "plot";
          plot.target = "_blank";
          cell(plot);
        } else cell("");
        if (state && state.control && !take.recording) {
          const remove = document.createElement("button");
          remove.textContent = "delete";
          remove.className = "delete";
          remove.addEventListener("click", async () => {
            if (!confirm("Delete " + take.name + "? This cannot be undone.")) return;
            const response = await fetch("/takes/" + encodeURIComponent(take.name), { method: "DELETE", credentials: "same-origin" });
            if (!response.ok) say((await response.text()).trim(), true);
            loadTakes();
          });
          cell(remove);
        } else cell("");
        body.append(row);
      });
      if (list.takes.some((take) => !take.measured && !take.recording)) setTimeout(loadTakes, 1000);
    }

    function connect() {
      const events = new EventSource("/api/events");
      events.addEventListener("open", () => { $("connection").textContent = "live"; $("connection").className = "connection live"; });
      events.addEventListener("error", () => { $("connection").textContent = "reconnecting…"; $("connection").className = "connection lost"; });
      events.addEventListener("levels", (message) => showLevels(JSON.parse(message.data)));
      events.addEventListener("state", (message) => showState(JSON.parse(message.data)));
      events.addEventListener("recorder", (message) => addEvent(JSON.parse(message.data)));
    }

    // While a take records, its row's size and the disk's room are read again every 5 s.
    setInterval(() => { if (state && state.recording) loadTakes(); }, 5000);

    document.addEventListener("DOMContentLoaded", () => {
      $("record").addEventListener("click", () => post("/api/record", settings()));
      $("stop").addEventListener("click", () => post("/api/stop"));
      $("pause").addEventListener("click", () => post("/api/pause"));
      $("next").addEventListener("click", () => post("/api/next"));
      $("circle").addEventListener("click", () => post("/api/circle"));
      $("nogood").addEventListener("click", () => post("/api/nogood"));
      $("marker").addEventListener("click", async () => {
        const reply = await post("/api/marker", { name: $("marker-name").value });
        if (reply) { say("marker “" + reply.label + "” at " + clock(reply.position_s), false); $("marker-name").value = ""; }
      });
      loadSources();
      loadTakes();
      connect();
    });
    """#
}
