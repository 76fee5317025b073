// The page's style: one column that fits a phone's width, the bars wide, the state readable at arm's length.

extension PageText {
    static let style = #"""
    :root { color-scheme: dark; --bg: #111; --fg: #eee; --dim: #999; --bar: #3c6; --warn: #fb3; --rec: #e33; }
    * { box-sizing: border-box; }
    body { margin: 0 auto; max-width: 900px; padding: 12px; background: var(--bg); color: var(--fg);
           font: 16px/1.4 system-ui, "DejaVu Sans", sans-serif; }
    header { display: flex; align-items: center; gap: 12px; flex-wrap: wrap; }
    .status { font-weight: bold; padding: 4px 10px; border-radius: 4px; background: #333; }
    .status.recording { background: var(--rec); }
    .status.paused { background: var(--warn); color: #000; }
    .elapsed { font: bold 2em ui-monospace, "DejaVu Sans Mono", monospace; }
    .connection { margin-left: auto; color: var(--dim); font-size: 0.85em; }
    .connection.live { color: var(--bar); }
    .connection.lost { color: var(--warn); }
    .facts, .loudness { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 4px 16px; margin: 10px 0; }
    .label { color: var(--dim); font-size: 0.85em; }
    .warn { color: var(--warn); }
    .alarm { margin: 6px 0; padding: 6px 10px; border-radius: 4px; background: var(--rec); color: #fff; font-weight: bold; }
    .meters { display: flex; flex-direction: column; gap: 6px; margin: 12px 0; }
    .channel { display: grid; grid-template-columns: 4.5em 1fr 3.5em 3.5em; align-items: center; gap: 8px; }
    .channel .name { color: var(--dim); font-size: 0.85em; overflow: hidden; white-space: nowrap; }
    .track { position: relative; height: 18px; background: #222; border-radius: 3px; overflow: hidden; }
    .bar { position: absolute; left: 0; top: 0; bottom: 0; width: 0; background: linear-gradient(90deg, var(--bar) 70%, var(--warn) 90%, var(--rec)); }
    .hold { position: absolute; top: 0; bottom: 0; width: 2px; left: 0; background: var(--fg); }
    .value { font: 0.9em ui-monospace, "DejaVu Sans Mono", monospace; text-align: right; }
    .clip { font-size: 0.7em; padding: 2px; border: 1px solid #444; background: #222; color: #555; border-radius: 3px; }
    .clip.on { background: var(--rec); color: #fff; border-color: var(--rec); }
    .loudness span:not(.label) { font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
    .loudness .note { grid-column: 1 / -1; color: var(--dim); font-size: 0.85em; }
    .controls .buttons { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; }
    button, input, select { font: inherit; padding: 8px 12px; border-radius: 4px; border: 1px solid #444; background: #2a2a2a; color: var(--fg); }
    button:disabled { opacity: 0.4; }
    button.record { color: var(--rec); font-weight: bold; }
    button.on { background: var(--warn); color: #000; }
    #marker-name { flex: 1; min-width: 8em; }
    details label { display: flex; justify-content: space-between; gap: 8px; margin: 6px 0; }
    details input, details select { width: 60%; }
    .reply { min-height: 1.4em; color: var(--dim); }
    table { width: 100%; border-collapse: collapse; font-size: 0.9em; }
    th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid #333; }
    td.circled a::before { content: "◯ "; color: var(--bar); }
    td.nogood a { text-decoration: line-through; }
    a { color: #6af; }
    h2 { font-size: 1em; color: var(--dim); margin: 18px 0 6px; }
    .log ol { list-style: none; padding: 0; margin: 0; font-size: 0.85em; color: var(--dim); max-height: 12em; overflow: auto; }
    @media (max-width: 480px) { .channel { grid-template-columns: 3em 1fr 3em 3em; } .elapsed { font-size: 1.6em; } }
    """#
}
