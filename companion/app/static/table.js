/* The live table: frames in, overlay and move proposals out.

   Sources: the browser's camera (getUserMedia, a few frames a second, one request in
   flight), an uploaded photo, a bundled sample photo, or the host camera. Every text
   that comes from a scan is shown with textContent, never as HTML. */
"use strict";
(() => {
  const page = JSON.parse(document.getElementById("page-data").textContent);
  const $ = (id) => document.getElementById(id);
  const { el, clear } = Companion;

  const FRAME_INTERVAL_MS = 250;     // at most 4 frames a second from the browser's camera
  const JPEG_QUALITY = 0.85;

  const video = $("video"), still = $("still"), canvas = $("overlay"), ctx = canvas.getContext("2d");
  let stream = null, mode = null, inflight = false, lastSent = 0;
  let accepted = page.current ? page.current.seq : 0;
  let pinned = null;          // the proposal on screen until the players decide
  let lastKey = null, dismissedKey = null;
  let lastResult = null;

  // -- recognition shapes -------------------------------------------------------------
  const asPoints = (item) => {
    const raw = item.image_corners || item.corners || item.quad || null;
    if (Array.isArray(raw) && raw.length >= 3) {
      return raw.map((p) => [Number(p[0]), Number(p[1])]);
    }
    const c = item.image_centre || item.centre;
    if (Array.isArray(c)) return box(c, Number(item.size_px || 40));
    return null;
  };
  const box = ([x, y], size) => {
    const r = size / 2;
    return [[x - r, y - r], [x + r, y - r], [x + r, y + r], [x - r, y + r]];
  };
  const componentOf = (item) => item.component || item.id || null;
  const listOf = (rec, key) => Array.isArray(rec && rec[key]) ? rec[key] : [];

  // -- overlay --------------------------------------------------------------------------
  function frameSize() {
    if (mode === "camera" && video.videoWidth) return [video.videoWidth, video.videoHeight];
    if (still.naturalWidth) return [still.naturalWidth, still.naturalHeight];
    return [canvas.width || 1280, canvas.height || 720];
  }

  function badComponents(result) {
    const bad = new Set();
    const cells = new Set();
    for (const v of (pinned ? pinned.violations : []) || []) {
      for (const c of v.components || []) bad.add(c);
      for (const cell of v.cells || []) cells.add(`${v.area}|${JSON.stringify(cell)}`);
    }
    for (const p of (result.state && result.state.placements) || []) {
      const cell = p.cell === undefined ? null : p.cell;
      if (cells.has(`${p.area}|${JSON.stringify(cell)}`)) bad.add(p.component);
    }
    return bad;
  }

  function drawShape(points, stroke, width, dash, label) {
    ctx.save();
    ctx.lineWidth = width; ctx.strokeStyle = stroke; ctx.setLineDash(dash);
    ctx.beginPath();
    points.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.closePath(); ctx.stroke();
    if (label) {
      const fs = Math.max(14, Math.round(canvas.width / 90));
      ctx.font = `bold ${fs}px system-ui, sans-serif`;
      const [x, y] = points[0];
      const w = ctx.measureText(label).width + 8;
      ctx.fillStyle = "rgba(0,0,0,0.7)"; ctx.fillRect(x, y - fs - 6, w, fs + 6);
      ctx.fillStyle = "#fff"; ctx.fillText(label, x + 4, y - 5);
    }
    ctx.restore();
  }

  function drawOverlay(result) {
    const [w, h] = frameSize();
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
    ctx.clearRect(0, 0, w, h);
    if (!result) return;
    const rec = result.recognition || {};
    const bad = badComponents(result);
    const lw = Math.max(3, Math.round(w / 400));
    for (const item of listOf(rec, "components")) {
      const pts = asPoints(item); if (!pts) continue;
      const id = componentOf(item);
      const name = page.names[id] || item.name || id;
      drawShape(pts, bad.has(id) ? "#e11d48" : "#22c55e", bad.has(id) ? lw * 2 : lw, [], `${name}`);
    }
    for (const item of listOf(rec, "unreadable")) {
      const pts = asPoints(item); if (pts) drawShape(pts, "#f59e0b", lw, [lw * 3, lw * 2], "?");
    }
    for (const item of listOf(rec, "foreign")) {
      const pts = asPoints(item); if (pts) drawShape(pts, "#94a3b8", lw, [lw, lw], "not ours");
    }
    for (const item of listOf(rec, "face_down")) {  // a card back: its kind, never which card
      const pts = asPoints(item);
      if (pts) drawShape(pts, "#38bdf8", lw, [lw * 2, lw], `face-down ${String(item.kind || "card")}`);
    }
    for (const item of listOf(rec, "duplicated")) {
      const id = componentOf(item) || "";
      for (const c of item.image_centres || []) {
        drawShape(box(c, Math.max(40, w / 30)), "#dc2626", lw * 2, [lw * 2, lw], `twice: ${page.names[id] || id}`);
      }
    }
    for (const item of listOf(rec, "disagreements")) {
      for (const c of item.image_centres || []) drawShape(box(c, Math.max(30, w / 40)), "#a855f7", lw, [lw, lw], "?");
    }
  }

  // -- lists ----------------------------------------------------------------------------
  function placeText(p) {
    const cell = p.cell === null || p.cell === undefined ? "" : ` ${Array.isArray(p.cell) ? p.cell.join(",") : p.cell}`;
    return `${p.area}${cell}`;
  }

  function showSeen(result) {
    const list = $("seen"); clear(list);
    const rec = result.recognition || {};
    const seen = listOf(rec, "components");
    const rows = seen.length ? seen : ((result.state && result.state.placements) || []);
    for (const p of rows) {
      const id = componentOf(p);
      const li = el("li", { "data-component": id, class: p.area === null ? "unplaced" : null });
      const where = p.area === null || p.area === undefined ? "not on a space" : placeText(p);
      li.append(el("strong", {}, page.names[id] || id), " ", el("span", { class: "muted" }, `${id} · ${where}`));
      list.append(li);
    }
    if (!rows.length) list.append(el("li", { class: "muted" }, "No component recognised."));
    for (const pr of listOf(rec, "problems")) {
      if (pr && pr.message) list.append(el("li", { class: "warn", "data-problem": pr.code || "" }, pr.message));
    }
    const placements = rows;
    const pr = result.problems || {};
    const parts = [];
    if (pr.unreadable) parts.push(`${pr.unreadable} unreadable`);
    if (pr.duplicated) parts.push(`${pr.duplicated} duplicated`);
    if (pr.foreign) parts.push(`${pr.foreign} not ours`);
    if (pr.not_in_view) parts.push(`${pr.not_in_view} player(s) not in view`);
    $("problems").textContent = parts.length ? `Look again: ${parts.join(", ")}.` : `${placements.length} component(s) recognised.`;
    $("problems").className = parts.length ? "warn" : "muted";
  }

  const label = (id) => page.names[id] && page.names[id] !== id ? `${page.names[id]} (${id})` : id;

  function moveItems(move) {
    const items = [];
    if (!move) return items;
    for (const p of move.added) items.push(`+ ${label(p.component)} → ${placeText(p)}`);
    for (const p of move.removed) items.push(`− ${label(p.component)} left ${placeText(p)}`);
    for (const m of move.moved) items.push(`→ ${label(m.to.component)}: ${placeText(m.from)} → ${placeText(m.to)}`);
    return items;
  }

  function showProposal() {
    const box = $("proposal");
    if (!pinned) { box.hidden = true; return; }
    box.hidden = false;
    $("proposal-title").textContent = pinned.setup ? "Starting position" : (pinned.violations.length ? "This move breaks a rule" : "Legal move");
    box.className = "card " + (pinned.violations.length ? "illegal" : "legal");
    const ml = $("move-list"); clear(ml);
    const items = moveItems(pinned.move);
    if (!items.length) ml.append(el("li", { class: "muted" }, "No component on a space of the table."));
    for (const t of items.slice(0, 30)) ml.append(el("li", {}, t));
    if (items.length > 30) ml.append(el("li", { class: "muted" }, `… and ${items.length - 30} more`));
    const vl = $("violation-list"); clear(vl);
    for (const v of pinned.violations) {
      const li = el("li", { "data-code": v.code }, v.message);
      const where = [v.area, ...(v.cells || []).map((c) => Array.isArray(c) ? `(${c.join(",")})` : c)].filter(Boolean);
      if (where.length) li.append(" ", el("span", { class: "muted" }, `[${where.join(" ")}]`));
      vl.append(li);
    }
    $("violations").hidden = !pinned.violations.length;
    $("accept").hidden = pinned.violations.length > 0;
    $("accept-anyway").hidden = pinned.violations.length === 0;
    $("state-error").hidden = true;
  }

  const keyOf = (result) => JSON.stringify(((result.state && result.state.placements) || [])
    .map((p) => JSON.stringify(p)).sort());

  function handle(result, { still: single }) {
    lastResult = result;
    // A new photo replaces the last one: its proposal, not the previous photo's, is on screen.
    if (single && pinned) { pinned = null; showProposal(); }
    showSeen(result);
    drawOverlay(result);
    if (result.state_error) {
      $("state-error").textContent = result.state_error;
      $("state-error").hidden = false;
      $("status").textContent = `The table does not make a valid position yet: ${result.state_error}`;
      return;
    }
    const key = keyOf(result);
    const stable = single || key === lastKey;
    lastKey = key;
    if (result.based_on !== accepted) { accepted = result.based_on; $("accepted-count").textContent = String(accepted); }
    if (!result.changed) {            // the table shows the accepted state again
      if (pinned) { pinned = null; showProposal(); }
      dismissedKey = null;
      return;
    }
    if (stable && !pinned && (single || key !== dismissedKey)) {
      pinned = { key, state: result.state, based_on: result.based_on, setup: result.setup,
        move: result.move, violations: result.violations || [], problems: result.problems, source: mode };
      showProposal();
      drawOverlay(result);
    }
  }

  // -- sending frames -------------------------------------------------------------------
  /* A photo that could not be read leaves nothing of the previous one behind: no outlines,
     no list, no proposal the players could accept for a picture no longer on screen. */
  function forgetPhoto(message) {
    lastResult = null; lastKey = null; pinned = null; dismissedKey = null;
    showProposal();
    still.hidden = true; still.removeAttribute("src");
    drawOverlay(null);
    clear($("seen"));
    $("problems").textContent = ""; $("problems").className = "muted";
    $("status").textContent = message;
  }

  async function send(form, opts) {
    inflight = true;
    const t0 = performance.now();
    try {
      const r = await Companion.postForm(page.urls.frames, form);
      const ms = Math.round(performance.now() - t0);
      if (!r.ok) {
        const why = ((r.body && r.body.message) || `the scan failed (${r.status})`).replace(/\.$/, "");
        if (opts.still) forgetPhoto(`This photo could not be read: ${why}.`);
        else $("status").textContent = `This frame could not be read: ${why}.`;
        return;
      }
      $("status").textContent = `Frame read in ${ms} ms (recognition ${r.body.elapsed_ms} ms).`;
      handle(r.body, opts);
    } catch (e) {
      if (opts.still) forgetPhoto("The companion did not answer: try the photo again.");
      else $("status").textContent = "The companion did not answer; retrying.";
    } finally { inflight = false; }
  }

  const grab = document.createElement("canvas");
  function tick() {
    if (mode !== "camera") return;
    const now = performance.now();
    if (!inflight && now - lastSent >= FRAME_INTERVAL_MS && video.readyState >= 2 && video.videoWidth) {
      lastSent = now;
      grab.width = video.videoWidth; grab.height = video.videoHeight;
      grab.getContext("2d").drawImage(video, 0, 0);
      grab.toBlob((blob) => {
        if (!blob) return;
        const form = new FormData(); form.append("image", blob, "frame.jpg");
        send(form, { still: false });
      }, "image/jpeg", JPEG_QUALITY);
    }
    requestAnimationFrame(tick);
  }

  async function listCameras() {
    const pick = $("camera-pick");
    const devices = (await navigator.mediaDevices.enumerateDevices()).filter((d) => d.kind === "videoinput");
    const current = stream && stream.getVideoTracks()[0] && stream.getVideoTracks()[0].getSettings().deviceId;
    clear(pick);
    devices.forEach((d, i) => pick.append(el("option", { value: d.deviceId, selected: d.deviceId === current }, d.label || `Camera ${i + 1}`)));
    pick.hidden = devices.length < 2;
  }

  async function startCamera(deviceId) {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      $("status").textContent = "This browser gives no camera access here: upload a photo instead.";
      return;
    }
    stopCamera();
    const video_c = deviceId ? { deviceId: { exact: deviceId } } : { facingMode: { ideal: "environment" } };
    Object.assign(video_c, { width: { ideal: 1920 }, height: { ideal: 1080 } });
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: video_c, audio: false });
    } catch (e) {
      $("status").textContent = `No camera (${e.name}): upload a photo or use a sample instead.`;
      return;
    }
    mode = "camera";
    video.srcObject = stream; video.hidden = false; still.hidden = true;
    await video.play().catch(() => {});
    $("camera-stop").hidden = false;
    $("status").textContent = "Camera on: hold it over the table.";
    await listCameras();
    requestAnimationFrame(tick);
  }

  function stopCamera() {
    if (stream) stream.getTracks().forEach((t) => t.stop());
    stream = null;
    if (mode === "camera") mode = null;
    video.hidden = true; $("camera-stop").hidden = true;
  }

  function showStill(url) {
    stopCamera();
    still.hidden = false;
    still.src = url;
  }

  // -- host camera ----------------------------------------------------------------------
  let hostTimer = null;
  async function pollHost() {
    if (mode !== "host") return;
    const t0 = performance.now();
    const r = await Companion.request(page.urls.host).catch(() => null);
    if (r && r.ok) {
      await new Promise((resolve) => { still.onload = resolve; still.onerror = resolve; still.src = r.body.frame.url; });
      handle(r.body, { still: false });
      const live = r.body.live ? `${r.body.live.message} ` : "";
      $("status").textContent = `${live}Table camera frame ${r.body.frame.seq} in ${Math.round(performance.now() - t0)} ms.`;
    } else if (r) {
      $("status").textContent = (r.body && r.body.message) || "The table camera is not ready.";
    }
    hostTimer = setTimeout(pollHost, 200);
  }

  // -- decisions ------------------------------------------------------------------------
  async function accept(anyway) {
    if (!pinned) return;
    const r = await Companion.postJSON(page.urls.moves, {
      state: pinned.state, based_on: pinned.based_on, accept_violations: anyway,
      problems: pinned.problems, source: pinned.source === "host" ? "host-camera" : (pinned.source || "manual"),
    });
    if (r.status === 201) {
      accepted = r.body.accepted.seq;
      $("accepted-count").textContent = String(accepted);
      $("status").textContent = `Move accepted (state ${accepted}).`;
      dismissedKey = null; pinned = null; showProposal();
      if (lastResult) { lastResult.changed = false; drawOverlay(lastResult); }
    } else {
      $("status").textContent = (r.body && r.body.message) || `Not accepted (${r.status}).`;
      if (r.body && r.body.violations && pinned) { pinned.violations = r.body.violations; showProposal(); }
      if (r.status === 409 && r.body && r.body.error === "stale") { pinned = null; showProposal(); }
    }
  }

  $("accept").addEventListener("click", () => accept(false));
  $("accept-anyway").addEventListener("click", () => accept(true));
  $("dismiss").addEventListener("click", () => { if (pinned) dismissedKey = pinned.key; pinned = null; showProposal(); if (lastResult) drawOverlay(lastResult); });
  $("undo").addEventListener("click", async () => {
    const r = await Companion.postJSON(page.urls.undo, {});
    if (r.ok) {
      accepted = r.body.current ? r.body.current.seq : 0;
      $("accepted-count").textContent = String(accepted);
      $("status").textContent = accepted ? `Back to state ${accepted}.` : "Back to the empty table.";
      pinned = null; dismissedKey = null; lastKey = null; showProposal();
    } else {
      $("status").textContent = r.body && r.body.error === "nothing_to_undo"
        ? "Nothing to undo: no move has been accepted yet."
        : (r.body && r.body.message) || `Undo failed (${r.status}).`;
    }
  });

  $("camera-start").addEventListener("click", () => { if (hostTimer) clearTimeout(hostTimer); startCamera(); });
  $("camera-stop").addEventListener("click", () => { stopCamera(); $("status").textContent = "Camera off."; });
  $("camera-pick").addEventListener("change", (e) => startCamera(e.target.value));
  if ($("host-start")) $("host-start").addEventListener("click", () => { stopCamera(); mode = "host"; still.hidden = false; pollHost(); });

  $("upload").addEventListener("change", (e) => {
    const file = e.target.files && e.target.files[0];
    if (!file) return;
    mode = "upload";
    showStill(URL.createObjectURL(file));
    const form = new FormData(); form.append("image", file, file.name || "photo.jpg");
    $("status").textContent = "Reading the photo…";
    send(form, { still: true });
  });

  function useSample(index) {
    mode = "sample";
    showStill(page.game.samples[index]);
    const form = new FormData(); form.append("sample", String(index));
    $("status").textContent = "Reading the sample photo…";
    send(form, { still: true });
  }
  document.querySelectorAll(".sample-btn").forEach((b) => b.addEventListener("click", () => useSample(Number(b.dataset.sample))));
  still.addEventListener("load", () => { if (lastResult) drawOverlay(lastResult); });
  if (page.sample !== null && page.sample !== undefined && page.game.samples.length) useSample(Number(page.sample) || 0);
})();
