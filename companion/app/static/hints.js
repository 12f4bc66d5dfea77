/* "Where can this go?": the legal spots for the piece in one player's hand, drawn on the photo.

   Off by default; one toggle per player and only one player's hints at a time, so nobody sees
   another player's hints unless that player turns them on. Spots come from the hints API on the
   last accepted state; they are placed on the photo with the positions of the recognised
   components (a grid fitted through their cells, the board a named space is printed on, or the
   component a token lies on). A tap on a spot explains it; a tap on an empty cell asks the rules
   why it is not a spot. It hooks into the table page through window.CompanionTable: each result
   of a frame, and a drawing on the page's overlay (view.extra), so it zooms with the photo. */
"use strict";
(() => {
  const root = document.getElementById("hints");
  const stage = document.getElementById("stage");
  const table = window.CompanionTable;
  if (!root || !stage || !table) return;
  const { request, el, clear } = Companion;
  const $ = (id) => document.getElementById(id);
  const overlay = stage.querySelector("canvas.overlay");

  let player = null, piece = "", frame = null, answer = null, groups = [], picked = null, asked = 0;

  // -- geometry: table cells and board spaces to photo pixels ----------------------------------
  function solve(a, b) {            // Gaussian elimination with partial pivoting; null when singular
    const n = b.length, m = a.map((row, i) => [...row, b[i]]);
    for (let c = 0; c < n; c++) {
      let p = c;
      for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
      if (Math.abs(m[p][c]) < 1e-9) return null;
      [m[c], m[p]] = [m[p], m[c]];
      for (let r = 0; r < n; r++) {
        if (r === c) continue;
        const f = m[r][c] / m[c][c];
        for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
      }
    }
    return m.map((row, i) => row[n] / row[i]);
  }

  function affineFit(pairs) {       // least squares: image = A · [cx, cy, 1]
    if (pairs.length < 3) return null;
    const ata = [[0, 0, 0], [0, 0, 0], [0, 0, 0]], atx = [0, 0, 0], aty = [0, 0, 0];
    for (const [[cx, cy], [ix, iy]] of pairs) {
      const v = [cx, cy, 1];
      for (let i = 0; i < 3; i++) {
        for (let j = 0; j < 3; j++) ata[i][j] += v[i] * v[j];
        atx[i] += v[i] * ix; aty[i] += v[i] * iy;
      }
    }
    const px = solve(ata, atx), py = solve(ata, aty);
    return px && py ? [px, py] : null;
  }

  function homography(src, dst) {   // 4 point pairs -> 3x3 (h33 = 1)
    const a = [], b = [];
    src.forEach(([x, y], i) => {
      const [u, v] = dst[i];
      a.push([x, y, 1, 0, 0, 0, -u * x, -u * y]); b.push(u);
      a.push([0, 0, 0, x, y, 1, -v * x, -v * y]); b.push(v);
    });
    const h = solve(a, b);
    return h ? [...h, 1] : null;
  }

  const applyH = (h, [x, y]) => {
    const w = h[6] * x + h[7] * y + h[8];
    return [(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w];
  };

  const seenComponents = () => (frame && frame.recognition && Array.isArray(frame.recognition.components))
    ? frame.recognition.components.filter((c) => Array.isArray(c.image_centre)) : [];

  function gridOf(area) {            // cell [x, y] of an area -> photo pixels, and back
    const mine = seenComponents().filter((c) => c.area === area && Array.isArray(c.cell));
    const fit = affineFit(mine.map((c) => [c.cell, c.image_centre]));
    let forward = null;
    if (fit) {
      const [px, py] = fit;
      forward = ([x, y]) => [px[0] * x + px[1] * y + px[2], py[0] * x + py[1] * y + py[2]];
    } else if (mine.length && Array.isArray(mine[0].image_corners)) {
      const c = mine[0], k = (4 - ((c.rotation || 0) % 4)) % 4;       // the corner at the table's top-left
      const q = [0, 1, 2, 3].map((i) => c.image_corners[(i + k) % 4]);
      const ex = [q[1][0] - q[0][0], q[1][1] - q[0][1]], ey = [q[3][0] - q[0][0], q[3][1] - q[0][1]];
      forward = ([x, y]) => [c.image_centre[0] + (x - c.cell[0]) * ex[0] + (y - c.cell[1]) * ey[0],
        c.image_centre[1] + (x - c.cell[0]) * ex[1] + (y - c.cell[1]) * ey[1]];
    }
    if (!forward) return null;
    const o = forward([0, 0]), ux = forward([1, 0]), uy = forward([0, 1]);
    const a = ux[0] - o[0], b = uy[0] - o[0], c = ux[1] - o[1], d = uy[1] - o[1], det = a * d - b * c;
    const back = ([ix, iy]) => {
      const dx = ix - o[0], dy = iy - o[1];
      return [Math.round((d * dx - b * dy) / det), Math.round((-c * dx + a * dy) / det)];
    };
    return { forward, back, size: Math.sqrt(Math.abs(det)) };
  }

  function boardPoint(board) {
    const seen = seenComponents().find((c) => c.component === board.component && Array.isArray(c.image_corners));
    if (!seen) return null;
    const [w, h] = board.size_mm;
    const hm = homography([[0, 0], [w, 0], [w, h], [0, h]], seen.image_corners);
    return hm ? applyH(hm, board.at_mm) : null;
  }

  function spotPoint(spot) {
    const p = spot.placement;
    if (!p) return null;
    if (p.on) {
      const target = seenComponents().find((c) => c.component === p.on);
      if (target) return [target.image_centre[0] + ((p.slot || 1) - 2) * 18, target.image_centre[1]];
    }
    if (Array.isArray(p.cell)) {
      const grid = gridOf(p.area);
      return grid ? grid.forward(p.cell) : null;
    }
    return spot.board ? boardPoint(spot.board) : null;
  }

  // -- drawing --------------------------------------------------------------------------------
  function colour(total, lo, hi) {   // grey for the fewest points, green for the most
    const t = hi > lo ? (total - lo) / (hi - lo) : 1;
    const mix = (a, b) => Math.round(a + (b - a) * t);
    return `rgb(${mix(100, 21)}, ${mix(116, 128)}, ${mix(139, 61)})`;
  }

  function discRadius(width) {        // a third of a grid cell where the table is a grid, else a fixed share
    const spot = answer && answer.spots && answer.spots[0];
    const grid = spot && spot.placement && Array.isArray(spot.placement.cell) ? gridOf(spot.placement.area) : null;
    const fallback = Math.max(16, Math.round(width / 60));
    return grid ? Math.max(14, Math.min(Math.round(grid.size / 3), width / 25)) : fallback;
  }

  function layout() {                // spots grouped by where they fall on the photo
    groups = [];
    if (!player || !answer || !answer.spots) return;
    const byKey = new Map();
    for (const spot of answer.spots) {
      const at = spotPoint(spot);
      if (!at) continue;
      const key = `${Math.round(at[0] / 6)},${Math.round(at[1] / 6)}`;
      if (!byKey.has(key)) byKey.set(key, { at, spots: [] });
      byKey.get(key).spots.push(spot);
    }
    groups = [...byKey.values()];
  }

  function paint(ctx) {               // view.extra: drawn on the overlay after the outlines
    if (!player || !groups.length) return;
    const totals = answer.spots.map((s) => s.total);
    const lo = Math.min(...totals), hi = Math.max(...totals);
    const r = discRadius(overlay.width);
    ctx.save();
    ctx.font = `bold ${Math.round(r * 0.9)}px system-ui, sans-serif`;
    ctx.textAlign = "center"; ctx.textBaseline = "middle";
    for (const g of groups) {
      const best = Math.max(...g.spots.map((s) => s.total));
      ctx.beginPath(); ctx.arc(g.at[0], g.at[1], r, 0, 2 * Math.PI);
      ctx.fillStyle = colour(best, lo, hi); ctx.fill();
      ctx.lineWidth = g === picked ? r / 4 : r / 10; ctx.strokeStyle = "#fff"; ctx.setLineDash([]); ctx.stroke();
      ctx.fillStyle = "#fff";
      ctx.fillText(`${best >= 0 ? "+" : ""}${best}`, g.at[0], g.at[1]);
    }
    ctx.restore();
  }
  table.view.extra.push(paint);

  function draw() {
    layout();
    table.view.redraw();
    root.dataset.spotsDrawn = String(player ? groups.length : 0);
    if (!player || !answer || !answer.spots) return;
    const held = root.dataset.held === piece ? "Held up to the camera: " : "";
    $("hints-status").textContent = held + (answer.spots.length
      ? `${answer.spots.length} legal spot(s); best ${answer.best >= 0 ? "+" : ""}${answer.best}.`
        + (groups.length ? " Tap a spot on the photo." : " (Show a photo of the table to see them on it.)")
      : "Nowhere legal for this piece now.");
  }

  // -- lists and explanations -----------------------------------------------------------------
  const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);   // a label begins a line
  const gainsText = (s) => (s.gains || []).map((g) => `${g.rule} ${g.points >= 0 ? "+" : ""}${g.points}`).join(", ") || "no points now";

  function showList() {
    const list = $("hints-list"); clear(list);
    for (const spot of (answer && answer.spots) || []) {
      const li = el("li", { "data-key": spot.key });
      li.append(el("span", { class: "pts" }, `${spot.total >= 0 ? "+" : ""}${spot.total}`), cap(spot.label),
        el("span", { class: "muted" }, ` (${gainsText(spot)})`));
      li.addEventListener("click", () => explainGroup(groups.find((g) => g.spots.includes(spot)) || { spots: [spot] }));
      list.append(li);
    }
  }

  function explainGroup(group) {
    picked = group.at ? group : null;
    const box = $("hints-explain"); clear(box); box.hidden = false; box.className = "hints-explain";
    const spots = [...group.spots].sort((a, b) => b.total - a.total);
    box.append(el("strong", {}, spots.length > 1 ? `${spots.length} ways to play it here:` : "Legal here:"));
    for (const s of spots.slice(0, 8)) box.append(el("p", {}, `${s.total >= 0 ? "+" : ""}${s.total} · ${s.label} (${gainsText(s)})`));
    if (spots.length > 8) box.append(el("p", { class: "muted" }, `… and ${spots.length - 8} more`));
    document.querySelectorAll("#hints-list li").forEach((li) => li.classList.toggle("picked", spots.some((s) => s.key === li.dataset.key)));
    draw();
  }

  async function explainCell(area, cell) {
    const first = answer.spots[0] || answer.refused && answer.refused[0];
    const at = { cell, rotation: first && first.placement ? first.placement.rotation || 0 : 0 };
    const r = await request(`${root.dataset.url}?${new URLSearchParams({ player, component: piece, at: JSON.stringify(at) })}`);
    const box = $("hints-explain"); clear(box); box.hidden = false;
    if (!r.ok) { box.className = "hints-explain refused"; box.append(el("p", {}, (r.body && r.body.message) || "Cannot ask about that place.")); return; }
    const v = r.body.verdict;
    box.className = v.legal ? "hints-explain" : "hints-explain refused";
    box.append(el("strong", {}, `${cap(v.label)}: ${v.legal ? "legal" : "not allowed"}`));
    if (v.legal) box.append(el("p", {}, `${v.total >= 0 ? "+" : ""}${v.total} (${gainsText(v)})`));
    for (const x of v.violations || []) box.append(el("p", { "data-code": x.code }, x.message));
  }

  // A tap on the photo while hints are on: a spot is explained, an empty cell is asked about.
  stage.addEventListener("click", (event) => {
    if (!player || !answer || event.target.closest("button")) return;
    const rect = overlay.getBoundingClientRect();
    const x = (event.clientX - rect.left) * (overlay.width / rect.width);
    const y = (event.clientY - rect.top) * (overlay.height / rect.height);
    const r = discRadius(overlay.width) * 1.4;
    let best = null, dist = Infinity;
    for (const g of groups) {
      const d = Math.hypot(g.at[0] - x, g.at[1] - y);
      if (d < dist) { dist = d; best = g; }
    }
    const spot = answer.spots[0];
    const area = spot && spot.placement && Array.isArray(spot.placement.cell) ? spot.placement.area : null;
    const grid = area ? gridOf(area) : null;
    if (best && dist <= r) explainGroup(best);
    else if (grid) explainCell(area, grid.back([x, y]));
    else return;
    event.stopImmediatePropagation();   // the hint answers this tap, not the piece under it
  }, true);

  // -- asking the server ----------------------------------------------------------------------
  async function ask(query) {
    const mine = ++asked;
    const r = await request(`${root.dataset.url}?${new URLSearchParams(query)}`);
    if (mine !== asked) return null;            // a newer question is on its way
    if (!r.ok) { $("hints-status").textContent = (r.body && r.body.message) || "No hints now."; return null; }
    return r.body;
  }

  async function loadPieces() {
    const doc = await ask({ player, market: "1" });
    const select = $("hints-piece"); clear(select);
    select.append(el("option", { value: "" }, "Choose…"));
    if (!doc) return;
    // The printed name, and for same-named pieces what tells them apart; the id stays the value.
    for (const c of doc.holdable) select.append(el("option", { value: c.id }, c.label || c.name || c.id));
    const market = $("hints-market"); clear(market);
    for (const m of doc.market || []) {
      const held = doc.holdable.find((c) => c.id === m.component);
      const name = (held && held.label) || (table.page.names || {})[m.component] || "A piece";
      const li = el("li", { "data-component": m.component }, `${name}: ${m.reason}`);
      li.addEventListener("click", () => { select.value = m.component; choose(m.component); });
      market.append(li);
    }
    $("hints-market-box").hidden = !(doc.market || []).length;
    $("hints-status").textContent = doc.holdable.length ? "Choose the piece in your hand." : "Nothing to hold now.";
    if (piece && doc.holdable.some((c) => c.id === piece)) { select.value = piece; choose(piece); }
  }

  async function choose(component) {
    piece = component; answer = null; picked = null;
    $("hints-explain").hidden = true;
    if (!piece) { showList(); draw(); return; }
    $("hints-status").textContent = "Looking for spots…";
    answer = await ask({ player, component: piece });
    showList(); draw();
  }

  function setPlayer(next) {
    player = next; answer = null; picked = null; piece = "";
    document.querySelectorAll(".hints-toggle").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.player === player)));
    $("hints-panel").hidden = !player;
    $("hints-explain").hidden = true;
    showList(); draw();
    if (player) loadPieces();
  }

  document.querySelectorAll(".hints-toggle").forEach((b) => b.addEventListener("click", () => setPlayer(player === b.dataset.player ? null : b.dataset.player)));
  $("hints-piece").addEventListener("change", (e) => choose(e.target.value));
  // A piece held up to the camera (read, but on no space of the table) becomes the piece in hand.
  function heldUp(result) {
    const seen = (result && result.recognition && result.recognition.components) || [];
    const loose = seen.filter((c) => c.component && !c.area);
    return loose.length === 1 ? loose[0].component : null;
  }

  function hold(component) {
    const select = $("hints-piece");
    if (![...select.options].some((o) => o.value === component)) {
      const name = (table.page.names || {})[component];
      select.append(el("option", { value: component }, name || "the piece held up"));
    }
    select.value = component;
    root.dataset.held = component;
    choose(component);
  }

  table.hooks.results.push((result) => {
    const moved = !frame || frame.based_on !== result.based_on;
    frame = result;
    const held = heldUp(result);
    if (player && held && held !== piece) hold(held);
    else if (player && moved) loadPieces();
    else draw();
  });
  frame = table.current();
})();
