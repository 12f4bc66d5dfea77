/* The photo overlay shared by the table, the score pad and the replay: outlines of what was
   recognised, short labels that never overlap and keep their size on screen whatever the
   zoom, a tap that says what a piece is and what to do, and zoom and pan.

   CompanionOverlay.attach(stage, {names, advice}) returns a view with
   show(recognition, {bad, focus}), onTap(fn) and redraw(). Text is only ever set with
   textContent. Other table modes (a "where can this go?" hint) draw through view.extra. */
"use strict";

const CompanionOverlay = (() => {
  const LABEL_PX = 14;        // label size on screen, in CSS pixels, at every zoom
  const MAX_LABEL = 16;       // characters of a name on the photo; the rest is on tap
  const STYLES = {
    ok: { stroke: "#16a34a", dash: [] },
    bad: { stroke: "#e11d48", dash: [], wide: true },
    focus: { stroke: "#facc15", dash: [], wide: true },
    unreadable: { stroke: "#f59e0b", dash: [3, 2] },
    foreign: { stroke: "#cbd5e1", dash: [1, 1.5] },
    facedown: { stroke: "#38bdf8", dash: [2, 1] },
    dup: { stroke: "#ef4444", dash: [2, 1], wide: true },
    doubt: { stroke: "#c084fc", dash: [1, 1] },
  };

  const box = ([x, y], size) => {
    const r = size / 2;
    return [[x - r, y - r], [x + r, y - r], [x + r, y + r], [x - r, y + r]];
  };
  function pointsOf(item) {
    const raw = item.image_corners || item.corners || item.quad || null;
    if (Array.isArray(raw) && raw.length >= 3) return raw.map((p) => [Number(p[0]), Number(p[1])]);
    const c = item.image_centre || item.centre;
    if (Array.isArray(c)) return box(c, Number(item.size_px || 40));
    return null;
  }
  const listOf = (rec, key) => (rec && Array.isArray(rec[key]) ? rec[key] : []);
  const short = (text) => (text.length > MAX_LABEL ? `${text.slice(0, MAX_LABEL - 1)}…` : text);

  /* Every shape the recognition holds, with its style, label and what a tap says. */
  function shapes(rec, names, opts) {
    const out = [];
    const bad = opts.bad || new Set(), focus = opts.focus || new Set();
    for (const item of listOf(rec, "components")) {
      const pts = pointsOf(item); if (!pts) continue;
      const id = item.component || item.id;
      const name = names[id] || item.name || "a piece";
      const style = focus.has(id) ? "focus" : (bad.has(id) ? "bad" : "ok");
      out.push({ pts, style, id, label: short(name), kind: style === "bad" ? "bad" : "ok", name });
    }
    for (const item of listOf(rec, "unreadable")) {
      const pts = pointsOf(item); if (pts) out.push({ pts, style: "unreadable", label: "?", kind: "unreadable", name: "A code that could not be read" });
    }
    for (const item of listOf(rec, "foreign")) {
      const pts = pointsOf(item); if (pts) out.push({ pts, style: "foreign", label: "", kind: "foreign", name: "Not a piece of this game" });
    }
    for (const item of listOf(rec, "face_down")) {
      const pts = pointsOf(item); if (pts) out.push({ pts, style: "facedown", label: "face down", kind: "facedown", name: "A card lying face down" });
    }
    for (const item of listOf(rec, "duplicated")) {
      const id = item.component || item.id || "";
      for (const c of item.image_centres || []) {
        out.push({ pts: box(c, 60), style: "dup", label: "twice", kind: "dup", id, name: `${names[id] || "This piece"}, seen twice` });
      }
    }
    for (const item of listOf(rec, "disagreements")) {
      for (const c of item.image_centres || []) out.push({ pts: box(c, 40), style: "doubt", label: "?", kind: "doubt", name: "A code read two different ways" });
    }
    return out;
  }

  function bounds(pts) {
    const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  }
  const overlaps = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

  function inside(pts, x, y) {
    let hit = false;
    for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
      const [xi, yi] = pts[i], [xj, yj] = pts[j];
      if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) hit = !hit;
    }
    return hit;
  }

  function attach(stage, config) {
    const viewport = stage.querySelector(".viewport");
    const canvas = stage.querySelector("canvas.overlay");
    const ctx = canvas.getContext("2d");
    const media = () => [...viewport.querySelectorAll("img, video")].find((m) => !m.hidden);
    let rec = null, opts = {}, drawn = [], zoom = 1, pan = [0, 0], tapHandler = null, labelBoxes = [];
    const view = { extra: [] };

    function frameSize() {
      // The scanner reads a large photo scaled down: its outlines are in the size it read.
      const read = rec && Array.isArray(rec.image_size) ? rec.image_size : null;
      if (read && read[0] > 0 && read[1] > 0) return [read[0], read[1]];
      const m = media();
      if (m && m.videoWidth) return [m.videoWidth, m.videoHeight];
      if (m && m.naturalWidth) return [m.naturalWidth, m.naturalHeight];
      return [canvas.width || 1280, canvas.height || 720];
    }

    function redraw() {
      const [w, h] = frameSize();
      if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
      ctx.clearRect(0, 0, w, h);
      drawn = [];
      if (!rec) return;
      const shown = canvas.getBoundingClientRect().width || viewport.clientWidth || w;
      const perCss = w / Math.max(1, shown);      // image pixels per CSS pixel on screen now
      const lw = Math.max(2, 2.5 * perCss);
      const font = LABEL_PX * perCss;
      const placed = [];
      const all = shapes(rec, config.names || {}, opts);
      // Problems and focus first: their labels win the room.
      const rank = { focus: 0, bad: 1, dup: 2, unreadable: 3, facedown: 4, doubt: 5, foreign: 6, ok: 7 };
      all.sort((a, b) => rank[a.style] - rank[b.style]);
      for (const s of all) {
        const st = STYLES[s.style];
        ctx.save();
        ctx.globalAlpha = opts.focus && opts.focus.size && s.style === "ok" ? 0.45 : 1;
        ctx.lineWidth = st.wide ? lw * 2 : lw;
        ctx.strokeStyle = st.stroke;
        ctx.setLineDash(st.dash.map((d) => d * lw));
        ctx.beginPath();
        s.pts.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
        ctx.closePath(); ctx.stroke(); ctx.restore();
        drawn.push(s);
      }
      ctx.font = `600 ${font}px system-ui, sans-serif`;
      const focused = (opts.focus && opts.focus.size) || 0;
      for (const s of all) {
        if (!s.label) continue;
        const [x0, y0, x1, y1] = bounds(s.pts);
        const important = s.style !== "ok" && s.style !== "foreign";
        // Asked about something: only its names. Otherwise a piece too small on screen to
        // carry its name keeps just its outline until the players zoom in (or tap it).
        if (focused && s.style !== "focus") continue;
        if (!important && Math.max(x1 - x0, y1 - y0) / perCss < 26) continue;
        const tw = ctx.measureText(s.label).width + font * 0.6, th = font * 1.35;
        const cx = (x0 + x1) / 2;
        const spots = [[cx - tw / 2, y0 - th - lw], [cx - tw / 2, (y0 + y1) / 2 - th / 2], [cx - tw / 2, y1 + lw]];
        const spot = spots.map(([x, y]) => [x, y, x + tw, y + th]).find((r) => !placed.some((p) => overlaps(p, r)));
        if (!spot) continue;       // no room: the outline stays, the name is one tap away
        placed.push(spot);
        ctx.fillStyle = "rgba(17,24,39,0.82)";
        ctx.fillRect(spot[0], spot[1], tw, th);
        ctx.fillStyle = "#ffffff";
        ctx.fillText(s.label, spot[0] + font * 0.3, spot[1] + font * 1.05);
      }
      for (const draw of view.extra) draw(ctx, { perCss, lw });
      labelBoxes = placed;
    }

    function applyTransform() {
      viewport.style.transform = `translate(${pan[0]}px, ${pan[1]}px) scale(${zoom})`;
      stage.classList.toggle("zoomed", zoom > 1);
      redraw();
    }
    function setZoom(z, about) {
      const rect = stage.getBoundingClientRect();
      const [ax, ay] = about || [rect.width / 2, rect.height / 2];
      const nz = Math.min(6, Math.max(1, z));
      pan = [ax - ((ax - pan[0]) * nz) / zoom, ay - ((ay - pan[1]) * nz) / zoom];
      zoom = nz;
      clampPan(); applyTransform();
    }
    function clampPan() {
      const w = stage.clientWidth, h = viewport.clientHeight;
      pan = [Math.min(0, Math.max(w - w * zoom, pan[0])), Math.min(0, Math.max(h - h * zoom, pan[1]))];
    }

    // Zoom and pan: buttons, the wheel, a drag, two fingers.
    const pointers = new Map();
    let dragged = false, pinch = null;
    stage.addEventListener("wheel", (e) => {
      if (!rec) return;
      e.preventDefault();
      const rect = stage.getBoundingClientRect();
      setZoom(zoom * (e.deltaY < 0 ? 1.25 : 0.8), [e.clientX - rect.left, e.clientY - rect.top]);
    }, { passive: false });
    stage.addEventListener("pointerdown", (e) => { pointers.set(e.pointerId, [e.clientX, e.clientY]); dragged = false; });
    stage.addEventListener("pointermove", (e) => {
      if (!pointers.has(e.pointerId)) return;
      const [px, py] = pointers.get(e.pointerId);
      pointers.set(e.pointerId, [e.clientX, e.clientY]);
      if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        const d = Math.hypot(a[0] - b[0], a[1] - b[1]);
        if (pinch) setZoom(zoom * (d / pinch));
        pinch = d; dragged = true; return;
      }
      if (zoom > 1 && Math.hypot(e.clientX - px, e.clientY - py) > 0) {
        pan = [pan[0] + e.clientX - px, pan[1] + e.clientY - py];
        dragged = dragged || Math.abs(e.clientX - px) + Math.abs(e.clientY - py) > 2;
        clampPan(); viewport.style.transform = `translate(${pan[0]}px, ${pan[1]}px) scale(${zoom})`;
      }
    });
    const release = (e) => { pointers.delete(e.pointerId); if (pointers.size < 2) pinch = null; };
    stage.addEventListener("pointerup", release);
    stage.addEventListener("pointercancel", release);
    stage.addEventListener("click", (e) => {
      if (dragged || !rec || !tapHandler || e.target.closest("button")) return;
      const rect = canvas.getBoundingClientRect();
      const x = ((e.clientX - rect.left) / rect.width) * canvas.width;
      const y = ((e.clientY - rect.top) / rect.height) * canvas.height;
      const hits = drawn.filter((s) => inside(s.pts, x, y));
      tapHandler(hits.length ? hits[hits.length - 1] : null);
    });
    const zoomIn = stage.querySelector("[data-zoom=in]"), zoomOut = stage.querySelector("[data-zoom=out]"), fit = stage.querySelector("[data-zoom=fit]");
    if (zoomIn) zoomIn.addEventListener("click", () => setZoom(zoom * 1.5));
    if (zoomOut) zoomOut.addEventListener("click", () => setZoom(zoom / 1.5));
    if (fit) fit.addEventListener("click", () => { zoom = 1; pan = [0, 0]; applyTransform(); });
    window.addEventListener("resize", () => { clampPan(); redraw(); });
    viewport.querySelectorAll("img").forEach((img) => img.addEventListener("load", redraw));

    Object.assign(view, {
      show(recognition, options = {}) { rec = recognition; opts = options; redraw(); },
      clear() { rec = null; redraw(); },
      redraw,
      onTap(fn) { tapHandler = fn; },
      zoomBy(f) { setZoom(zoom * f); },
      shapes: () => drawn.slice(),
      /* Where the labels went, in photo pixels (for checking that none overlaps another). */
      labelBoxes: () => labelBoxes.slice(),
    });
    Object.defineProperty(view, "zoom", { get: () => zoom });
    return view;
  }

  return { attach, pointsOf };
})();
