// The browser half of lessons_lib.explorer.Explorer (an anywidget module).
//
// Draws the structure's regions and boxes on a canvas (world y upwards, as in
// the matplotlib figures), turns mouse gestures into messages for Python
// (model.send), and redraws when Python has updated the synchronised traits
// (model.on("change:version")). Every number shown comes from Python; the only
// computation here is a brute-force scan of the synced boxes for the query
// window, shown beside the structure's hits as an independent check.
//
// Layers, bottom to top: tight cells (loose/tight grid), regions, boxes, pair
// outlines; then what the last gesture touched: the boxes overlapping the box
// just added or removed, the query's hits and window, the ghost of the box just
// removed, the box just added. In a crowded picture (info.crowded) boxes and
// pairs are thin and faint, and a white veil fades them when a gesture touched
// something, so that its marks stand out.
//
// Test hooks: the root element has class "lessons-explorer" and data-*
// attributes (data-version, data-boxes, data-pairs, data-regions, data-hits,
// data-brute-hits, data-error, data-latency-ms, data-changed, data-view,
// data-message: the status line's text, data-veiled: "1" when the veil is drawn).

const CANVAS_W = 560;
const CLICK_PX = 4; // a mouse movement shorter than this is a click, not a drag
// Colours come from Python (Explorer's canvas_colors: the course style), one per meaning,
// the same as the still drawn by Explorer.static(); these are only the fallbacks.
const FALLBACK_COLORS = {box: "#0072B2", pair: "#E69F00", query: "#009E73", new: "#CC79A7",
                         regions: ["#1f1f1f", "#616161", "#a3a3a3"], tight_line: "#8f8f8f", tight_fill: "#ececec"};
// The legend's words come from Python too (Explorer's LEGEND_WORDS, shared with the still).
const FALLBACK_WORDS = {box: "box", pair: "box in an overlapping pair", touched: "overlaps the box just added or removed",
                        query: "query window (dashed)", hit: "hit of the query", new: "box just added",
                        ghost: "box just removed (dashed)", tight: "tight cells (dashed; shaded: listing a loose cell)",
                        layered: " (dark: shallow, light: deep)", veil: "faded: what the last action did not touch"};
function rgba(hex, alpha) { // "#rrggbb" (what canvas_colors sends) with an alpha; anything else as it is
  if (!/^#[0-9a-f]{6}$/i.test(hex)) return hex;
  const v = parseInt(hex.slice(1), 16);
  return `rgba(${(v >> 16) & 255},${(v >> 8) & 255},${v & 255},${alpha})`;
}

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
.lessons-explorer .lx-status { margin: 2px 0; font-weight: bold; }
.lessons-explorer .lx-error { color: #b00020; min-height: 1.2em; font-weight: bold; }
.lessons-explorer .lx-arrays { font: 11px monospace; max-width: 520px; overflow-x: auto; }
.lessons-explorer .lx-arrays table { border-collapse: collapse; margin-bottom: 6px; }
.lessons-explorer .lx-arrays td { border: 1px solid #ccc; padding: 0 3px; text-align: right; min-width: 1.6em; }
.lessons-explorer .lx-arrays td.lx-idx { color: #888; border: none; font-size: 9px; }
.lessons-explorer .lx-arrays td.lx-changed { background: #ffd54f; font-weight: bold; }
.lessons-explorer .lx-arrays .lx-name { font-weight: bold; margin-top: 4px; }
.lessons-explorer .lx-arrays .lx-meaning { color: #555; font-family: sans-serif; }
.lessons-explorer .lx-column { flex: none; width: ${CANVAS_W + 2}px; }
.lessons-explorer .lx-legend { display: flex; gap: 14px; flex-wrap: wrap; margin: 4px 0; font-size: 12px; }
.lessons-explorer .lx-legend span.lx-swatch { display: inline-block; width: 14px; height: 10px; margin-right: 4px;
  vertical-align: middle; border: 2px solid; box-sizing: border-box; }
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
  const status = make("div", "lx-status"); // what the last gesture did (Cleanup: what it changed)
  const query = make("div", "lx-info lx-query");
  const error = make("div", "lx-error");
  const main = make("div", "lx-main");
  const canvas = make("canvas");
  const arrays = make("div", "lx-arrays");
  const legend = make("div", "lx-legend");
  const canvasColumn = make("div", "lx-column"); // the canvas with its legend under it
  canvasColumn.append(canvas, legend);
  main.append(canvasColumn, arrays);
  root.append(title, bar, info, status, query, error, main);
  const colors = () => Object.assign({}, FALLBACK_COLORS, model.get("colors") || {});
  // One swatch per meaning shown now, drawn as the canvas draws it (the still's legend says the same).
  function drawLegend(veiled) {
    const c = colors(), inf = model.get("info") || {}, rc = c.regions;
    const wd = Object.assign({}, FALLBACK_WORDS, inf.words || {});
    const fl = u8(model.get("flags")), q = model.get("query"), g = model.get("ghost");
    let pairs = false, touched = false, added = false;
    for (let i = 0; i < fl.length; i++) { pairs ||= !!(fl[i] & 1); touched ||= !!(fl[i] & 8); added ||= !!(fl[i] & 4); }
    legend.textContent = "";
    const items = [];
    if (model.get("tight") && model.get("tight").byteLength) items.push([wd.tight, c.tight_line, c.tight_fill, "dashed"]);
    if (inf.regions) {
      items.push([`${inf.region_word || "region"}s` + (inf.layered ? wd.layered : ""),
                  rc[0], "transparent", "solid", inf.layered]); // shallow to deep
    }
    items.push([wd.box, c.box, rgba(c.box, 0.3), "solid"]);
    if (pairs) items.push([wd.pair, inf.crowded ? rgba(c.pair, 0.6) : c.pair, "transparent", "solid"]);
    if (touched) items.push([wd.touched, c.pair, rgba(c.box, 0.3), "solid", false, 3]);
    if (q && q.length === 4) items.push([wd.query, c.query, "transparent", "dashed"], [wd.hit, c.query, rgba(c.query, 0.6), "solid"]);
    if (g && g.length === 4) items.push([wd.ghost, c.new, "transparent", "dashed", false, 3]);
    if (added) items.push([wd.new, c.new, "transparent", "solid", false, 3]);
    if (veiled) items.push([wd.veil, "#ccc", "#eee", "solid"]);
    for (const [text, edge, fill, line, ramp, width] of items) {
      const item = make("span");
      const sw = make("span", "lx-swatch");
      sw.style.borderColor = edge; sw.style.background = fill; sw.style.borderStyle = line;
      if (width) sw.style.borderWidth = width + "px";
      if (ramp) {
        sw.style.borderImage = `linear-gradient(to right, ${rc[0]}, ${rc[rc.length - 1]}) 1`;
      }
      item.append(sw, text);
      legend.appendChild(item);
    }
  }
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
    const w = model.get("world"), inf = model.get("info") || {}, crowded = !!inf.crowded;
    ctx.setLineDash([2, 3]); ctx.strokeStyle = "#999"; ctx.lineWidth = 1;
    ctx.strokeRect(sx(w[0]), sy(w[3]), sx(w[2]) - sx(w[0]), sy(w[1]) - sy(w[3]));
    ctx.setLineDash([]);
    const c = colors(), rc = c.regions;
    const rect = (r, i) => { // rectangle i of the flat array r, clamped to the canvas (a path segment)
      const x0 = clampX(r[4 * i]), y1 = clampY(r[4 * i + 1]), x1 = clampX(r[4 * i + 2]), y0 = clampY(r[4 * i + 3]);
      ctx.rect(x0 + 0.5, y0 + 0.5, x1 - x0, y1 - y0);
    };
    // 1. the tight cells (loose/tight grid): those listing a loose cell shaded, all outlined dashed
    const tg = f64(model.get("tight")), tl = u8(model.get("tight_listing"));
    if (tl.length) {
      ctx.beginPath();
      for (let i = 0; i < tl.length; i++) if (tl[i]) rect(tg, i);
      ctx.fillStyle = c.tight_fill; ctx.fill();
      ctx.beginPath();
      for (let i = 0; i < tl.length; i++) rect(tg, i);
      ctx.setLineDash([6, 3]); ctx.strokeStyle = c.tight_line; ctx.lineWidth = 1.5; ctx.stroke(); ctx.setLineDash([]);
    }
    // 2. the regions, one path per colour: thousands of nodes stay quick to draw
    const rg = f64(model.get("regions")), dp = f64(model.get("depths"));
    let top = 1;
    for (let i = 0; i < dp.length; i++) top = Math.max(top, dp[i]);
    ctx.lineWidth = 1.5;
    for (let k = 0; k < rc.length; k++) {
      ctx.beginPath();
      for (let i = 0; i < dp.length; i++) {
        if (Math.round((rc.length - 1) * Math.min(dp[i], top) / top) === k) rect(rg, i);
      }
      ctx.strokeStyle = rc[k];
      ctx.stroke();
    }
    // 3. boxes, then the outlines of boxes in pairs: thin and faint when crowded
    const bx = f64(model.get("boxes")), fl = u8(model.get("flags")), n = fl.length;
    const boxPath = (test, grow = 0) => {
      ctx.beginPath();
      for (let i = 0; i < n; i++) {
        if (!test(fl[i])) continue;
        const x0 = sx(bx[4 * i]), y0 = sy(bx[4 * i + 3]);
        ctx.rect(x0 - grow, y0 - grow, Math.max(1, sx(bx[4 * i + 2]) - x0) + 2 * grow,
                 Math.max(1, sy(bx[4 * i + 1]) - y0) + 2 * grow);
      }
    };
    boxPath(() => true);
    ctx.fillStyle = rgba(c.box, crowded ? 0.15 : 0.3); ctx.fill();
    ctx.strokeStyle = rgba(c.box, crowded ? 0.5 : 1); ctx.lineWidth = crowded ? 0.6 : 1; ctx.stroke();
    boxPath((f) => f & 1);
    ctx.strokeStyle = rgba(c.pair, crowded ? 0.6 : 1); ctx.lineWidth = crowded ? 1 : 2; ctx.stroke();
    // 4. what the last gesture touched, on top (over a veil when crowded)
    const q = model.get("query"), g = model.get("ghost");
    let focus = (q && q.length === 4) || (g && g.length === 4);
    for (let i = 0; i < n && !focus; i++) focus = (fl[i] & 14) !== 0;
    const veiled = crowded && focus;
    if (veiled) { ctx.fillStyle = `rgba(255,255,255,${inf.veil || 0.6})`; ctx.fillRect(0, 0, CANVAS_W, H); }
    root.dataset.veiled = veiled ? "1" : "0";
    const halo = (width) => { ctx.strokeStyle = "#fff"; ctx.lineWidth = width; ctx.stroke(); };
    boxPath((f) => f & 8); // overlapping the box just added or removed: the pairs it made or broke
    ctx.fillStyle = rgba(c.box, 0.3); ctx.fill();
    halo(4); ctx.strokeStyle = c.pair; ctx.lineWidth = 2.5; ctx.stroke();
    boxPath((f) => f & 2); // the query's hits
    ctx.fillStyle = rgba(c.query, 0.6); ctx.fill();
    ctx.strokeStyle = c.query; ctx.lineWidth = 1.5; ctx.stroke();
    boxPath((f) => (f & 3) === 3); // hits that are in a pair keep their pair outline
    ctx.strokeStyle = c.pair; ctx.lineWidth = 2; ctx.stroke();
    if (q && q.length === 4) {
      ctx.beginPath(); ctx.rect(sx(q[0]), sy(q[3]), sx(q[2]) - sx(q[0]), sy(q[1]) - sy(q[3]));
      halo(5); ctx.setLineDash([6, 4]); ctx.strokeStyle = c.query; ctx.lineWidth = 2.5; ctx.stroke(); ctx.setLineDash([]);
    }
    if (g && g.length === 4) { // the box just removed: a dashed ghost where it was
      ctx.beginPath(); ctx.rect(sx(g[0]) - 2, sy(g[3]) - 2, sx(g[2]) - sx(g[0]) + 4, sy(g[1]) - sy(g[3]) + 4);
      halo(6); ctx.setLineDash([5, 3]); ctx.strokeStyle = c.new; ctx.lineWidth = 3; ctx.stroke(); ctx.setLineDash([]);
    }
    boxPath((f) => f & 4, 2); // the box just added
    halo(6); ctx.strokeStyle = c.new; ctx.lineWidth = 3; ctx.stroke();
    picture = ctx.getImageData(0, 0, CANVAS_W, H);
    return veiled;
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
                       `${inf.regions} ${inf.region_word}s.`;
    status.textContent = `Last: ${inf.message}`;
    root.dataset.message = String(inf.message);
    buttons.undo.disabled = !inf.undo;
    const q = model.get("query"), hits = model.get("hits") || [];
    if (q && q.length === 4) {
      const brute = bruteHits(q);
      const agree = brute.length === hits.length && brute.every((v, k) => v === hits[k]);
      query.textContent = `Query window [${q.map((v) => v.toFixed(1)).join(", ")}]: ${hits.length} hits (green); ` +
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
    drawLegend(draw());
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
    ctx.setLineDash([6, 4]); ctx.lineWidth = 2; ctx.strokeStyle = query ? colors().query : colors().box;
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
