// The page's HTML: the header (state, time, time left), the meters, the controls, the take sheet and the
// take list. Its script and style are in PageScript.swift and PageStyle.swift; nothing is fetched from
// elsewhere, so it works on a box with no internet.

enum PageText {
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>recorder</title>
    <link rel="stylesheet" href="/page.css">
    <script src="/page.js" defer></script>
    </head>
    <body>
    <header>
      <span id="status" class="status stopped">STOPPED</span>
      <span id="elapsed" class="elapsed">00:00:00</span>
      <span id="connection" class="connection">connecting…</span>
    </header>
    <section id="alarms" class="alarms" role="alert" aria-label="alarms" hidden></section>
    <section class="facts">
      <div><span class="label">file</span> <span id="file">–</span></div>
      <div><span class="label">format</span> <span id="format">–</span></div>
      <div><span class="label">disk left</span> <span id="time-left">–</span></div>
      <div><span class="label">losses</span> <span id="losses">none</span></div>
    </section>
    <section id="meters" class="meters" aria-label="levels"></section>
    <section class="loudness" aria-label="loudness">
      <div><span class="label">M</span> <span id="momentary">–</span></div>
      <div><span class="label">S</span> <span id="short-term">–</span></div>
      <div><span class="label">I</span> <span id="integrated">–</span></div>
      <div><span class="label">max TP</span> <span id="true-peak">–</span></div>
      <div id="loudness-note" class="note" hidden></div>
    </section>
    <section id="controls" class="controls">
      <div class="buttons">
        <button id="record" class="record">● Record</button>
        <button id="pause">❚❚ Pause</button>
        <button id="stop">■ Stop</button>
        <button id="next">Next take</button>
      </div>
      <div class="buttons">
        <input id="marker-name" placeholder="marker name" maxlength="200">
        <button id="marker">Marker</button>
        <button id="circle">Circle</button>
        <button id="nogood">No good</button>
      </div>
      <details id="sheet">
        <summary>Source, format and take sheet</summary>
        <label>Source <select id="source"></select></label>
        <label>Format <select id="type">
          <option>wav</option><option>flac</option><option>aiff</option><option>caf</option><option>rf64</option>
          <option>w64</option><option>ogg</option><option>opus</option><option>mp3</option><option>au</option>
        </select></label>
        <label>Rate <input id="rate" type="number" min="8000" max="384000" placeholder="default"></label>
        <label>Channels <input id="channels" type="number" min="1" max="32" placeholder="default"></label>
        <label>Project <input id="project"></label>
        <label>Scene <input id="scene"></label>
        <label>Take <input id="take" type="number" min="1"></label>
        <label>Tape <input id="tape"></label>
        <label>Note <input id="note"></label>
      </details>
      <div id="reply" class="reply" role="status"></div>
    </section>
    <section class="takes">
      <h2>Takes</h2>
      <table id="takes">
        <thead><tr><th>name</th><th>length</th><th>size</th><th>loudness</th><th></th><th></th></tr></thead>
        <tbody></tbody>
      </table>
    </section>
    <section class="log">
      <h2>Events</h2>
      <ol id="events"></ol>
    </section>
    </body>
    </html>
    """#
}
