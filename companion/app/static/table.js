/* The live table: frames in, overlay and move proposals out.

   Sources: the browser's camera (getUserMedia, a few frames a second, one request in
   flight), an uploaded photo, a bundled sample photo, or the host camera. Every text
   that comes from a scan is shown with textContent, never as HTML. Other modes of the
   table page hook in through window.CompanionTable (results, the overlay view). */
"use strict";
(() => {
  const page = JSON.parse(document.getElementById("page-data").textContent);
  const $ = (id) => document.getElementById(id);
  const { el, clear } = Companion;
  const W = CompanionWords;
  W.setAreas(page.areas, page.area_prepositions, page.names);

  const FRAME_INTERVAL_MS = 250;     // at most 4 frames a second from the browser's camera
  const JPEG_QUALITY = 0.85;
  const MANY_REMOVED = 3;            // a move taking more pieces off than this is confirmed

  const video = $("video"), still = $("still");
  const view = CompanionOverlay.attach($("stage"), { names: page.names });
  let stream = null, mode = null, inflight = false, lastSent = 0, lastForm = null;
  let accepted = page.current ? page.current.seq : 0;
  let pinned = null;          // the proposal on screen until the players decide
  let lastKey = null, dismissedKey = null, otherDismissed = null;
  let lastResult = null, focus = new Set();
  const hooks = { results: [] };
  window.CompanionTable = { page, view, hooks, current: () => lastResult };

  const players = () => page.play.players;

  // -- overlay and taps -------------------------------------------------------------------
  function badComponents(result) {
    const bad = new Set(), cells = new Set();
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
  function draw() {
    if (!lastResult) { view.clear(); return; }
    view.show(lastResult.recognition || {}, { bad: badComponents(lastResult), focus });
    const named = view.labelBoxes().length, pieces = view.shapes().filter((s) => s.label).length;
    $("stage-hint").hidden = named >= pieces;
  }

  view.onTap((shape) => {
    const box = $("tap-info");
    clear(box);
    if (!shape) { box.hidden = true; focus = new Set(); draw(); return; }
    box.hidden = false;
    const placement = shape.id && lastResult && ((lastResult.state && lastResult.state.placements) || []).find((p) => p.component === shape.id);
    box.append(el("strong", {}, shape.name));
    if (placement) box.append(el("span", { class: "muted" }, ` · in ${W.area(placement.area, players())}`));
    const tip = W.advice(shape.kind);
    if (tip && shape.kind !== "ok") box.append(el("p", {}, tip));
    focus = shape.id ? new Set([shape.id]) : new Set();
    draw();
  });

  // -- what is on the table ---------------------------------------------------------------
  function problemItems(result) {
    const rec = result.recognition || {};
    const items = [];
    const count = (key) => (Array.isArray(rec[key]) ? rec[key].length : 0);
    if (count("unreadable")) items.push({ kind: "unreadable", text: `${W.plural(count("unreadable"), "code")} could not be read.`, advice: W.advice("unreadable") });
    if (count("face_down")) items.push({ kind: "facedown", text: `${W.plural(count("face_down"), "card")} face down.`, advice: W.advice("facedown") });
    if (count("duplicated")) items.push({ kind: "dup", text: `${W.plural(count("duplicated"), "piece")} seen twice.`, advice: W.advice("dup") });
    if (count("disagreements")) items.push({ kind: "doubt", text: `${W.plural(count("disagreements"), "code")} read two ways.`, advice: W.advice("doubt") });
    for (const pr of rec.problems || []) {
      if (pr && pr.message) items.push({ kind: "problem", code: pr.code, text: W.sentence(pr.message), advice: W.problemAdvice(pr.code), components: pr.components || [] });
    }
    return items;
  }

  function showSeen(result) {
    const rec = result.recognition || {};
    const list = $("seen"); clear(list);
    const seen = Array.isArray(rec.components) ? rec.components : [];
    const where = new Map(((result.state && result.state.placements) || []).map((p) => [p.component, p.area]));
    for (const item of seen) {
      const id = item.component || item.id;
      const li = el("li", { "data-component": id, tabindex: "0", role: "button" });
      li.append(el("strong", {}, page.names[id] || item.name || "a piece"), " ", el("span", { class: "muted" }, W.area(where.get(id), players())));
      // The keyboard's way to the photo: a piece of the list lights up there.
      li.addEventListener("click", () => { focus = new Set([id]); draw(); });
      li.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); li.click(); } });
      list.append(li);
    }
    $("seen-summary").textContent = `Pieces recognised (${seen.length})`;
    const probs = $("problem-list"); clear(probs);
    const items = problemItems(result);
    for (const it of items) {
      const li = el("li", { class: "warn", "data-problem": it.code || it.kind, tabindex: "0", role: "button" });
      li.append(el("span", {}, it.text), " ", el("span", { class: "advice" }, it.advice));
      li.addEventListener("click", () => { focus = new Set(it.components || []); draw(); $("tap-info").hidden = false; clear($("tap-info")); $("tap-info").append(el("strong", {}, it.text), el("p", {}, it.advice)); });
      li.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); li.click(); } });
      probs.append(li);
    }
    const foreign = Array.isArray(rec.foreign) ? rec.foreign.length : 0;
    const extra = foreign ? ` ${W.plural(foreign, "thing")} on the table ${foreign === 1 ? "is" : "are"} not part of this game and ${foreign === 1 ? "is" : "are"} left out.` : "";
    $("problems").textContent = items.length
      ? `${W.plural(seen.length, "piece")} recognised.${extra} Please look at:`
      : `${W.plural(seen.length, "piece")} recognised, nothing to fix.${extra}`;
    $("problems").className = items.length ? "warn" : "muted";
  }

  // -- the proposal -----------------------------------------------------------------------
  function showProposal() {
    const box = $("proposal"), bar = $("decide-bar");
    if (!pinned) { box.hidden = true; bar.hidden = true; document.body.classList.remove("deciding"); return; }
    box.hidden = false; bar.hidden = false; document.body.classList.add("deciding");
    const illegal = pinned.violations.length > 0;
    $("proposal-title").textContent = pinned.setup ? "Starting position" : (illegal ? "This move breaks a rule" : "Legal move");
    box.className = "card " + (illegal ? "illegal" : "legal");
    const words = W.move(pinned.move, page.names, pinned.players || players(), pinned.setup);
    $("move-summary").textContent = words.sentence;
    $("decide-text").textContent = illegal ? `${words.sentence} It breaks a rule.` : words.sentence;
    const ml = $("move-list"); clear(ml);
    for (const t of words.items) ml.append(el("li", {}, t));
    $("move-details-summary").textContent = `Every change (${words.items.length})`;
    $("move-details").hidden = words.items.length === 0;
    const vl = $("violation-list"), rest = $("violation-rest"); clear(vl); clear(rest);
    pinned.violations.forEach((v, i) => (i < 3 ? vl : rest).append(el("li", { "data-code": v.code }, W.sentence(v.message))));
    $("violation-more").hidden = pinned.violations.length <= 3;
    $("violation-more-summary").textContent = `${W.plural(pinned.violations.length - 3, "more rule")} broken`;
    $("violations").hidden = !illegal;
    const note = $("players-note");
    note.hidden = !pinned.playersChanged;
    if (pinned.playersChanged) {
      const names = (pinned.players || []).map((p) => p.name);
      const left = pinned.leftOut || [];
      note.textContent = `The table shows ${W.plural(names.length, "player")}: ${W.joinAnd(names)}.` +
        (left.length ? ` ${W.joinAnd(left)} ${left.length === 1 ? "has" : "have"} nothing in view and ${left.length === 1 ? "is" : "are"} left out.` : "") +
        " Accepting sets the players; rename them under Game › Players.";
    }
    const removed = pinned.move ? pinned.move.removed.length : 0;
    const mustConfirm = !pinned.setup && removed > MANY_REMOVED;
    $("removal-confirm").hidden = !mustConfirm;
    $("removal-text").textContent = mustConfirm ? `Yes, ${removed} pieces really left the table.` : "";
    $("removal-ok").checked = false;
    $("accept").hidden = illegal;
    $("accept-anyway").hidden = !illegal;
    $("accept").disabled = mustConfirm; $("accept-anyway").disabled = mustConfirm;
    $("state-error").hidden = true;
  }
  ["in", "out", "fit"].forEach((z) => document.querySelector(`[data-zoom=${z}]`).addEventListener("click", () => draw()));
  $("removal-ok").addEventListener("change", (e) => { $("accept").disabled = !e.target.checked; $("accept-anyway").disabled = !e.target.checked; });

  function showOtherGame(result) {
    const other = result.other_game;
    const box = $("other-game");
    box.hidden = !other || otherDismissed === (other && other.id);
    if (box.hidden) return;
    $("other-game-text").textContent = `This photo shows pieces of ${other.name}, not ${page.game.name}. Nothing was changed.`;
    $("other-game-link").textContent = `Start a ${other.name} game`;
    $("other-game-link").href = `${page.urls.new_game}?game=${encodeURIComponent(other.id)}`;
  }
  $("other-game-stay").addEventListener("click", () => { const r = lastResult && lastResult.other_game; otherDismissed = r ? r.id : null; $("other-game").hidden = true; });

  const keyOf = (result) => JSON.stringify(((result.state && result.state.placements) || []).map((p) => JSON.stringify(p)).sort());

  function handle(result, { still: single }) {
    lastResult = result; focus = new Set();
    if (single && pinned) { pinned = null; showProposal(); }
    showSeen(result);
    showOtherGame(result);
    draw();
    hooks.results.forEach((fn) => fn(result));
    if (result.other_game) {
      $("status").textContent = `This photo shows ${result.other_game.name}, not ${page.game.name}: nothing was changed.`;
      if (pinned) { pinned = null; showProposal(); }
      return;                      // named, never offered as a move
    }
    if (result.state_error) {
      $("state-error").textContent = W.sentence(result.state_error);
      $("state-error").hidden = false;
      $("status").textContent = `The table does not make a position of this game yet: ${W.sentence(result.state_error)}`;
      return;
    }
    const key = keyOf(result);
    const stable = single || key === lastKey;
    lastKey = key;
    if (result.based_on !== accepted) setAccepted(result.based_on);
    if (!result.changed) {
      if (pinned) { pinned = null; showProposal(); }
      dismissedKey = null;
      return;
    }
    if (stable && !pinned && (single || key !== dismissedKey)) {
      pinned = { key, state: result.state, based_on: result.based_on, setup: result.setup,
        move: result.move, violations: result.violations || [], problems: result.problems, source: mode,
        players: result.players, playersChanged: result.players_changed, leftOut: result.players_left_out || [] };
      showProposal();
      draw();
    }
  }

  function setAccepted(seq) {
    accepted = seq;
    $("accepted-count").textContent = String(seq);
  }

  // -- sending frames ---------------------------------------------------------------------
  function forgetPhoto(message) {
    lastResult = null; lastKey = null; pinned = null; dismissedKey = null;
    showProposal();
    still.hidden = true; still.removeAttribute("src");
    document.body.classList.remove("has-photo");
    view.clear();
    clear($("seen")); clear($("problem-list"));
    $("problems").textContent = ""; $("problems").className = "muted";
    $("status").textContent = message;
  }

  const plainError = (r) => {
    const msg = (r.body && r.body.message) || "";
    if (r.status === 413) return "the photo is too large to send";
    return msg.replace(/\.$/, "") || "the companion could not read it";
  };

  async function send(form, opts) {
    inflight = true;
    try {
      const r = await Companion.postForm(page.urls.frames, form);
      if (!r.ok) {
        if (opts.still) forgetPhoto(`This photo could not be read: ${plainError(r)}. Try another photo.`);
        else $("status").textContent = `This frame could not be read: ${plainError(r)}.`;
        return;
      }
      $("status").textContent = opts.still ? "Photo read." : "Camera on: watching the table.";
      handle(r.body, opts);
    } catch (e) {
      if (opts.still) forgetPhoto("The companion did not answer: try the photo again.");
      else $("status").textContent = "The companion did not answer; trying again.";
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
      $("status").textContent = "This browser gives no camera access here: take or upload a photo instead.";
      return;
    }
    stopCamera();
    const constraints = deviceId ? { deviceId: { exact: deviceId } } : { facingMode: { ideal: "environment" } };
    Object.assign(constraints, { width: { ideal: 1920 }, height: { ideal: 1080 } });
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: constraints, audio: false });
    } catch (e) {
      $("status").textContent = "The camera could not be opened: take or upload a photo, or use the sample.";
      return;
    }
    mode = "camera"; lastForm = null;
    video.srcObject = stream; video.hidden = false; still.hidden = true;
    document.body.classList.add("has-photo");
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

  function showStill(url) { stopCamera(); still.hidden = false; still.src = url; document.body.classList.add("has-photo"); }

  // -- host camera ------------------------------------------------------------------------
  let hostTimer = null;
  async function pollHost() {
    if (mode !== "host") return;
    const r = await Companion.request(page.urls.host).catch(() => null);
    if (r && r.ok) {
      await new Promise((resolve) => { still.onload = resolve; still.onerror = resolve; still.src = r.body.frame.url; });
      if (r.body.recognition) handle(r.body, { still: false });   // the live loop waits for a still, clear table
      const live = r.body.live && r.body.live.message ? ` ${r.body.live.message}` : "";
      $("status").textContent = `Watching the table camera.${live}`;
    } else if (r) {
      $("status").textContent = (r.body && r.body.message) || "The table camera is not ready yet.";
    }
    hostTimer = setTimeout(pollHost, 200);
  }

  // -- decisions --------------------------------------------------------------------------
  async function accept(anyway) {
    if (!pinned) return;
    const body = {
      state: pinned.state, based_on: pinned.based_on, accept_violations: anyway,
      problems: pinned.problems, source: pinned.source === "host" ? "host-camera" : (pinned.source || "manual"),
    };
    if (pinned.setup && pinned.players) body.players = pinned.players;
    const r = await Companion.postJSON(page.urls.moves, body);
    if (r.status === 201) {
      setAccepted(r.body.accepted.seq);
      if (body.players) await refreshPlayers();
      $("status").textContent = accepted === 1 ? "Starting position saved." : `Move ${accepted} accepted.`;
      dismissedKey = null; pinned = null; showProposal();
      if (lastResult) { lastResult.changed = false; lastResult.setup = false; draw(); }
    } else {
      $("status").textContent = W.sentence((r.body && r.body.message) || "The move was not accepted.");
      if (r.body && r.body.violations && pinned) { pinned.violations = r.body.violations; showProposal(); }
      if (r.status === 409 && r.body && r.body.error === "stale") { pinned = null; showProposal(); rescan(); }
    }
  }

  $("accept").addEventListener("click", () => accept(false));
  $("accept-anyway").addEventListener("click", () => accept(true));
  $("dismiss").addEventListener("click", () => { if (pinned) dismissedKey = pinned.key; pinned = null; showProposal(); draw(); });

  $("undo").addEventListener("click", () => {
    const dialog = $("undo-dialog");
    if (!accepted) { $("status").textContent = "Nothing to undo: no move has been accepted yet."; return; }
    $("undo-text").textContent = accepted === 1
      ? "This takes back the starting position: the game starts again from an empty table."
      : `This takes back move ${accepted}. Every device at this game goes back to move ${accepted - 1}.`;
    if (typeof dialog.showModal === "function") dialog.showModal(); else if (window.confirm($("undo-text").textContent)) undo();
  });
  $("undo-dialog").addEventListener("close", () => { if ($("undo-dialog").returnValue === "undo") undo(); });

  async function undo() {
    const r = await Companion.postJSON(page.urls.undo, { based_on: accepted });
    if (r.ok) {
      setAccepted(r.body.current ? r.body.current.seq : 0);
      $("status").textContent = accepted ? `Back to move ${accepted}.` : "Back to the empty table.";
      pinned = null; dismissedKey = null; lastKey = null; showProposal();
      rescan();
    } else if (r.body && r.body.error === "stale") {
      $("status").textContent = "Not undone: another device changed the game a moment ago. Look at the table again before undoing.";
      await catchUp();
    } else {
      $("status").textContent = r.body && r.body.error === "nothing_to_undo"
        ? "Nothing to undo: no move has been accepted yet."
        : W.sentence((r.body && r.body.message) || "Undo did not work; try again.");
    }
  }

  /* The same photo compared again with the game as it is now (after another device's move). */
  function rescan() {
    if (lastForm && (mode === "sample" || mode === "upload")) send(lastForm(), { still: true });
  }

  // -- players ----------------------------------------------------------------------------
  let renderedPlayers = null;
  function renderPlayers() {
    const line = $("players-line"); clear(line);
    for (const p of players()) {
      const span = el("span", { class: "player" });
      const dot = el("span", { class: "dot", "aria-hidden": "true" });
      dot.style.background = p.colour || "#888888";
      span.append(dot, p.name);
      line.append(span);
    }
    // The form is rebuilt only when the players changed, never under someone's typing.
    const signature = JSON.stringify(players());
    if (renderedPlayers === signature) return;
    renderedPlayers = signature;
    const form = $("players-form"); clear(form);
    players().forEach((p, i) => {
      const row = el("div", { class: "row" });
      const label = el("label", { for: `pname${i}` }, `Seat ${i + 1}`);
      const input = el("input", { id: `pname${i}`, value: p.name, maxlength: 40, "data-id": p.id });
      const colour = el("input", { type: "color", value: p.colour || "#888888", "aria-label": `Colour of seat ${i + 1}` });
      row.append(label, input, colour);
      form.append(row);
    });
    form.append(el("button", { type: "submit" }, "Save names"));
  }
  $("players-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const rows = [...$("players-form").querySelectorAll(".row")];
    const list = rows.map((row, i) => {
      const [name, colour] = row.querySelectorAll("input");
      return { id: players()[i].id, name: name.value.trim() || players()[i].name, colour: colour.value };
    });
    const r = await Companion.postJSON(page.urls.players, { players: list });
    if (r.ok) { page.play.players = r.body.players; renderPlayers(); $("status").textContent = "Players saved."; }
    else $("status").textContent = W.sentence((r.body && r.body.message) || "The players were not saved.");
  });
  async function refreshPlayers() {
    const r = await Companion.request(page.urls.play);
    if (r.ok) { page.play.players = r.body.players; renderPlayers(); }
    return r;
  }

  // -- other devices ----------------------------------------------------------------------
  async function catchUp() {
    const r = await refreshPlayers();
    if (r && r.ok) setAccepted(r.body.current ? r.body.current.seq : 0);
  }
  CompanionLive.follow(page.urls.events, async (doc) => {
    if (doc.gone) { $("status").textContent = "This game was deleted on another device."; return; }
    const moved = doc.seq !== accepted;
    await catchUp();
    if (moved) {
      $("live").textContent = `Updated: move ${doc.seq} from another device.`;
      if (pinned && pinned.based_on !== doc.seq) { pinned = null; showProposal(); }
      lastKey = null; dismissedKey = null;
      rescan();
    }
  }, (up) => { $("live").dataset.connected = up ? "yes" : "no"; });

  // -- sources ----------------------------------------------------------------------------
  $("camera-start").addEventListener("click", () => { if (hostTimer) clearTimeout(hostTimer); startCamera(); });
  $("camera-stop").addEventListener("click", () => { stopCamera(); $("status").textContent = "Camera off."; });
  $("camera-pick").addEventListener("change", (e) => startCamera(e.target.value));
  if ($("host-start")) $("host-start").addEventListener("click", () => { stopCamera(); mode = "host"; lastForm = null; still.hidden = false; document.body.classList.add("has-photo"); pollHost(); });

  $("upload").addEventListener("change", (e) => {
    const file = e.target.files && e.target.files[0];
    if (!file) return;
    mode = "upload";
    showStill(URL.createObjectURL(file));
    lastForm = () => { const f = new FormData(); f.append("image", file, file.name || "photo.jpg"); return f; };
    $("status").textContent = "Reading the photo…";
    send(lastForm(), { still: true });
  });

  function useSample(index) {
    mode = "sample";
    showStill(page.game.samples[index]);
    lastForm = () => { const f = new FormData(); f.append("sample", String(index)); return f; };
    $("status").textContent = "Reading the sample photo…";
    send(lastForm(), { still: true });
  }
  document.querySelectorAll(".sample-btn").forEach((b) => b.addEventListener("click", () => useSample(Number(b.dataset.sample))));
  if ($("keep")) {
    $("keep").addEventListener("click", async () => {
      const r = await Companion.postJSON(page.urls.keep, {});
      if (r.ok) { $("keep-box").hidden = true; $("status").textContent = "Kept: this game is in the history."; }
    });
  }
  renderPlayers();
  if (window.matchMedia && window.matchMedia("(max-width: 700px)").matches) $("legend").open = false;
  if (page.sample !== null && page.sample !== undefined && page.game.samples.length) useSample(Number(page.sample) || 0);
})();
