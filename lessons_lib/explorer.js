// The browser half of lessons_lib.explorer.Explorer (an anywidget module).
//
// Draws the structure's regions and boxes on a canvas (world y upwards, as in
// the matplotlib figures), turns mouse gestures into messages for Python
// (model.send), and redraws when Python has updated the synchronised traits
// (model.on("change:version")). Every number shown comes from Python; the only
// computation here is a brute-force scan of the synced boxes for the query
// window, shown beside the structure's hits as an independent check.
//
// Test hooks: the root element has class "lessons-explorer" and data-*
// attributes (data-version, data-boxes, data-pairs, data-regions, data-hits,
// data-brute-hits, data-error, data-latency-ms, data-changed, data-view).

const CANVAS_W = 560;
const CLICK_PX = 4; // a mouse movement shorter than this is a click, not a drag
const DEPTH_COLORS = ["#440154", "#3b528b", "#21918c", "#5ec962", "#9c8a12", "#b5367a", "#555555"];

function f64(dv) {
  if (!dv || !dv.byteLength) return new Float64Array(0);
  return new Float64Array(dv.buffer.slice(dv.byteOffset, dv.byteOffset + dv.byteLength));
}
function u8(dv) {
  if (!dv || !dv.byteLength) return new Uint8Array(0);
  return new Uint8Array(dv.buffer.slice(dv.byteOffset, dv.byteOffset + dv.byteLength));
}
function make(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
const STYLE = `
.lessons-explorer { font: 13px sans-serif; color: #222; }
.lessons-explorer .lx-bar { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; margin: 4px 0; }
.lessons-explorer button { padding: 2px 10px; }
.lessons-explorer .lx-main { display: flex; gap: 12px; align-items: flex-start; }
.lessons-explorer canvas { border: 1px solid #999; cursor: crosshair; touch-action: none; }
.lessons-explorer .lx-info { margin: 2px 0; }
.lessons-explorer .lx-error { color: #b00020; min-height: 1.2em; font-weight: bold; }
.lessons-explorer .lx-arrays { font: 11px monospace; max-width: 520px; overflow-x: auto; }
.lessons-explorer .lx-arrays table { border-collapse: collapse; margin-bottom: 6px; }
.lessons-explorer .lx-arrays td { border: 1px solid #ccc; padding: 0 3px; text-align: right; min-width: 1.6em; }
.lessons-explorer .lx-arrays td.lx-idx { color: #888; border: none; font-size: 9px; }
.lessons-explorer .lx-arrays td.lx-changed { background: #ffd54f; font-weight: bold; }
.lessons-explorer .lx-arrays .lx-name { font-weight: bold; margin-top: 4px; }
.lessons-explorer .lx-arrays .lx-meaning { color: #555; font-family: sans-serif; }
`;

function render({ model, el }) {
  const root = make("div", "lessons-explorer");
  root.appendChild(make("style", "", STYLE));
  const title = make("div", "lx-title");
  title.style.fontWeight = "bold";
  const bar = make("div", "lx-bar");
  const modeName = "lx-mode-" + Math.random().toString(36).slice(2);
  const modes = {};
  for (const [value, label] of [["insert", "Boxes: click adds or removes, drag adds"],
                                ["query", "Query: drag a window (or shift-drag)"]]) {
    const lab = make("label");
    const radio = make("input");
    radio.type = "radio"; radio.name = modeName; radio.value = value;
    radio.checked = value === "insert";
    modes[value] = radio;
    lab.append(radio, " " + label);
    bar.appendChild(lab);
  }
  const buttons = {};
  for (const name of ["cleanup", "undo", "reset"]) {
    const b = make("button", "lx-" + name, name[0].toUpperCase() + name.slice(1));
    b.title = {cleanup: "call the structure's cleanup()", undo: "undo the last add or remove",
               reset: "back to the starting boxes"}[name];
    b.addEventListener("click", () => send({event: "button", name: name}));
    buttons[name] = b;
    bar.appendChild(b);
  }
  const info = make("div", "lx-info");
  const query = make("div", "lx-info lx-query");
  const error = make("div", "lx-error");
  const main = make("div", "lx-main");
  const canvas = make("canvas");
  const arrays = make("div", "lx-arrays");
  main.append(canvas, arrays);
  root.append(title, bar, info, query, error, main);
  el.appendChild(root);
  const ctx = canvas.getContext("2d");

  // World -> canvas mapping (y upwards), with a 3% margin around the world.
  let view = [0, 0, 1, 1], H = 400;
  function setView() {
    const w = model.get("world");
    const px = 0.03 * (w[2] - w[0]), py = 0.03 * (w[3] - w[1]);
    view = [w[0] - px, w[1] - py, w[2] + px, w[3] + py];
    H = Math.max(120, Math.round(CANVAS_W * (view[3] - view[1]) / (view[2] - view[0])));
    canvas.width = CANVAS_W; canvas.height = H;
    canvas.style.width = CANVAS_W + "px"; canvas.style.height = H + "px";
    root.dataset.view = view.join(",");
  }
  const sx = (x) => (x - view[0]) / (view[2] - view[0]) * CANVAS_W;
  const sy = (y) => H - (y - view[1]) / (view[3] - view[1]) * H;
  const clampX = (x) => Math.max(-10, Math.min(CANVAS_W + 10, sx(x)));
  const clampY = (y) => Math.max(-10, Math.min(H + 10, sy(y)));
  function toWorld(evt) {
    const r = canvas.getBoundingClientRect();
    const px = (evt.clientX - r.left) * CANVAS_W / r.width, py = (evt.clientY - r.top) * H / r.height;
    return [view[0] + px / CANVAS_W * (view[2] - view[0]), view[1] + (H - py) / H * (view[3] - view[1]), px, py];
  }

  // The picture without the rubber band, kept to redraw quickly while dragging.
  let picture = null;
  function draw() {
    ctx.clearRect(0, 0, CANVAS_W, H);
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, CANVAS_W, H);
    const w = model.get("world");
    ctx.setLineDash([2, 3]); ctx.strokeStyle = "#999"; ctx.lineWidth = 1;
    ctx.strokeRect(sx(w[0]), sy(w[3]), sx(w[2]) - sx(w[0]), sy(w[1]) - sy(w[3]));
    ctx.setLineDash([]);
    const rg = f64(model.get("regions")), dp = f64(model.get("depths"));
    ctx.lineWidth = 1;
    for (let i = 0; i < dp.length; i++) {
      ctx.strokeStyle = DEPTH_COLORS[Math.min(dp[i], DEPTH_COLORS.length - 1)];
      const x0 = clampX(rg[4 * i]), y1 = clampY(rg[4 * i + 1]), x1 = clampX(rg[4 * i + 2]), y0 = clampY(rg[4 * i + 3]);
      ctx.strokeRect(x0 + 0.5, y0 + 0.5, x1 - x0, y1 - y0);
    }
    const bx = f64(model.get("boxes")), fl = u8(model.get("flags"));
    const n = fl.length;
    for (let pass = 0; pass < 3; pass++) { // plain boxes, then boxes in pairs, then hits on top
      for (let i = 0; i < n; i++) {
        const hit = fl[i] & 2, pair = fl[i] & 1; // bit 2 (just inserted) is drawn after the passes
        if ((hit ? 2 : pair ? 1 : 0) !== pass) continue;
        const x0 = sx(bx[4 * i]), y0 = sy(bx[4 * i + 3]);
        const ww = Math.max(1, sx(bx[4 * i + 2]) - x0), hh = Math.max(1, sy(bx[4 * i + 1]) - y0);
        ctx.fillStyle = hit ? "rgba(214,39,40,0.75)" : "rgba(31,119,180,0.3)";
        ctx.fillRect(x0, y0, ww, hh);
        ctx.strokeStyle = hit ? "#8b0000" : pair ? "#ff7f0e" : "#1f77b4";
        ctx.lineWidth = pair ? 2 : 1;
        ctx.strokeRect(x0, y0, ww, hh);
      }
    }
    for (let i = 0; i < n; i++) { // the box just inserted
      if (!(fl[i] & 4)) continue;
      ctx.strokeStyle = "#2ca02c"; ctx.lineWidth = 3;
      ctx.strokeRect(sx(bx[4 * i]) - 2, sy(bx[4 * i + 3]) - 2,
                     sx(bx[4 * i + 2]) - sx(bx[4 * i]) + 4, sy(bx[4 * i + 1]) - sy(bx[4 * i + 3]) + 4);
    }
    const q = model.get("query");
    if (q && q.length === 4) {
      ctx.setLineDash([6, 4]); ctx.strokeStyle = "#2ca02c"; ctx.lineWidth = 2;
      ctx.strokeRect(sx(q[0]), sy(q[3]), sx(q[2]) - sx(q[0]), sy(q[1]) - sy(q[3]));
      ctx.setLineDash([]);
    }
    picture = ctx.getImageData(0, 0, CANVAS_W, H);
  }

  // A brute-force scan of the synced boxes: the browser's own check of the hits.
  function bruteHits(q) {
    const bx = f64(model.get("boxes")), ids = f64(model.get("ids")), out = [];
    for (let i = 0; i < ids.length; i++) {
      if (bx[4 * i] <= q[2] && q[0] <= bx[4 * i + 2] && bx[4 * i + 1] <= q[3] && q[1] <= bx[4 * i + 3]) out.push(ids[i]);
    }
    return out.sort((a, b) => a - b);
  }

  function drawArrays() {
    arrays.textContent = "";
    const rows = model.get("arrays") || [];
    let changed = 0;
    if (rows.length) arrays.appendChild(make("div", "lx-name", "Arrays (yellow: changed by the last operation)"));
    for (const r of rows) {
      changed += r.changed.length + r.more;
      arrays.appendChild(make("div", "lx-name", `${r.name} (${r.length} ${r.length === 1 ? "entry" : "entries"})`));
      arrays.appendChild(make("div", "lx-meaning", r.meaning));
      const table = make("table"), idx = make("tr"), val = make("tr");
      const set = new Set(r.changed);
      r.values.forEach((v, k) => {
        idx.appendChild(make("td", "lx-idx", String(r.start + k)));
        val.appendChild(make("td", set.has(r.start + k) ? "lx-changed" : "", String(v)));
      });
      if (r.start + r.values.length < r.length) val.appendChild(make("td", "lx-idx", "..."));
      table.append(idx, val);
      arrays.appendChild(table);
      if (r.more) arrays.appendChild(make("div", "lx-meaning", `${r.more} more changed entries outside this window`));
    }
    root.dataset.changed = String(changed);
  }

  function update() {
    const inf = model.get("info") || {};
    title.textContent = model.get("title");
    info.textContent = `${inf.structure}: ${inf.boxes} boxes, ${inf.pairs} overlapping pairs, ` +
                       `${inf.regions} ${inf.region_word}s. Last: ${inf.message}`;
    buttons.undo.disabled = !inf.undo;
    const q = model.get("query"), hits = model.get("hits") || [];
    if (q && q.length === 4) {
      const brute = bruteHits(q);
      const agree = brute.length === hits.length && brute.every((v, k) => v === hits[k]);
      query.textContent = `Query window [${q.map((v) => v.toFixed(1)).join(", ")}]: ${hits.length} hits (red); ` +
                          `browser brute force ${agree ? "agrees" : "DISAGREES"} (${brute.length}).`;
      root.dataset.bruteHits = brute.join(",");
    } else {
      query.textContent = "";
      root.dataset.bruteHits = "";
    }
    error.textContent = model.get("error") ? "Refused: " + model.get("error") : "";
    root.dataset.hits = hits.join(",");
    root.dataset.boxes = String(inf.boxes);
    root.dataset.pairs = String(inf.pairs);
    root.dataset.regions = String(inf.regions);
    root.dataset.structure = String(inf.structure);
    root.dataset.error = model.get("error");
    draw();
    drawArrays();
    root.dataset.version = String(model.get("version"));
    const ack = model.get("ack");
    if (pending[ack] !== undefined) {
      const ms = performance.now() - pending[ack];
      delete pending[ack];
      root.dataset.latencyMs = ms.toFixed(2);
      latencies.push(ms);
      root.dataset.latencies = latencies.map((v) => v.toFixed(2)).join(",");
    }
  }

  // Gestures -> messages. seq numbers let a redraw be matched with its gesture (latency).
  let seq = 0, start = null;
  const pending = {}, latencies = [];
  function send(msg) {
    seq += 1;
    msg.seq = seq;
    pending[seq] = performance.now();
    model.send(msg);
  }
  function onDown(evt) {
    if (evt.button !== 0) return;
    evt.preventDefault();
    start = toWorld(evt);
    start.push(evt.shiftKey);
  }
  function onMove(evt) {
    if (!start || !picture) return;
    const p = toWorld(evt);
    ctx.putImageData(picture, 0, 0);
    const query = modes.query.checked || start[4];
    ctx.setLineDash([6, 4]); ctx.lineWidth = 2; ctx.strokeStyle = query ? "#2ca02c" : "#1f77b4";
    ctx.strokeRect(Math.min(start[2], p[2]), Math.min(start[3], p[3]), Math.abs(p[2] - start[2]), Math.abs(p[3] - start[3]));
    ctx.setLineDash([]);
  }
  function onUp(evt) {
    if (!start) return;
    const s = start;
    start = null;
    const p = toWorld(evt);
    const query = modes.query.checked || s[4];
    if (Math.hypot(p[2] - s[2], p[3] - s[3]) < CLICK_PX) {
      if (query) { draw(); return; } // a click in query mode does nothing
      send({event: "click", x: s[0], y: s[1]});
    } else {
      send({event: "drag", x0: s[0], y0: s[1], x1: p[0], y1: p[1], mode: query ? "query" : "insert"});
    }
  }
  canvas.addEventListener("mousedown", onDown);
  canvas.addEventListener("mousemove", onMove);
  window.addEventListener("mouseup", onUp);

  setView();
  update();
  model.on("change:version", update);
  model.on("change:world", () => { setView(); update(); });
  return () => {
    window.removeEventListener("mouseup", onUp);
    model.off("change:version", update);
  };
}

export default { render };
