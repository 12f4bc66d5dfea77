/* A saved move: the sentence, every change, the photo with its outlines, the pieces by area. */
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("page-data").textContent);
  const { el } = Companion;
  const W = CompanionWords;
  W.setAreas(data.areas, data.area_prepositions, data.names);
  /* The pieces by area, each piece with what lies on it ("Jungle tile R10 with Monkey and
     Frog"), the pieces of this move in bold. */
  function boardList() {
    const list = document.getElementById("board-list");
    if (!list || !data.placements) return;
    const m = data.move || { added: [], moved: [] };
    const fresh = new Set(data.setup ? [] : [...m.added.map((p) => p.component), ...m.moved.map((x) => x.to.component)]);
    const here = new Map(data.placements.map((p) => [p.component, p]));
    const onTop = new Map();
    for (const p of data.placements) {
      const base = p.on && here.has(p.on) ? p.on : null;
      if (base) { if (!onTop.has(base)) onTop.set(base, []); onTop.get(base).push(p.component); }
    }
    const byArea = new Map();
    for (const p of data.placements) {
      if (p.on && here.has(p.on)) continue;  // told with the piece it lies on
      if (!byArea.has(p.area || "")) byArea.set(p.area || "", []);
      byArea.get(p.area || "").push(p.component);
    }
    const piece = (id, into) => {
      const name = data.names[id] || "a piece";
      into.append(fresh.has(id) ? el("strong", { class: "fresh" }, name) : document.createTextNode(name));
    };
    // A stack of cards on each other reads as one line: "Termites, Sun Bear and Leopard".
    const stackOf = (id) => { const out = []; const walk = (c) => { for (const t of onTop.get(c) || []) { out.push(t); walk(t); } }; walk(id); return out; };
    if (fresh.size) document.getElementById("board-heading").textContent = "Pieces on the table (this move in bold)";
    Companion.clear(list);
    for (const [areaId, ids] of byArea) {
      const li = el("li");
      li.append(el("strong", { class: "area" }, `${areaId ? W.cap(W.area(areaId, data.players)) : "Beside the board"}:`), " ");
      ids.forEach((id, i) => {
        if (i) li.append(", ");
        piece(id, li);
        const above = stackOf(id);
        if (above.length) {
          li.append(" (with ");
          above.forEach((t, j) => { if (j) li.append(j === above.length - 1 ? " and " : ", "); piece(t, li); });
          li.append(")");
        }
      });
      list.append(li);
    }
  }

  const words = W.move(data.move, data.names, data.players, data.setup);
  document.getElementById("move-summary").textContent = words.sentence;
  const list = document.getElementById("move-list");
  for (const t of words.items) list.append(el("li", {}, t));
  document.getElementById("move-details-summary").textContent = `Every change (${words.items.length})`;
  boardList();
  // The rules' words as they come, each a sentence like on the table page.
  document.querySelectorAll("#violations li").forEach((li) => { li.textContent = W.sentence(li.textContent); });
  document.querySelectorAll(".dot[data-colour]").forEach((d) => { d.style.background = d.dataset.colour; });
  const stage = document.getElementById("stage");
  if (stage && data.recognition) {
    // The pieces this move placed or moved are outlined on the photo, the rest dimmed.
    const m = data.move || { added: [], moved: [] };
    const mine = data.setup ? [] : [...m.added.map((p) => p.component), ...m.moved.map((x) => x.to.component)];
    const seen = new Set((data.recognition.components || []).map((c) => c.component || c.id));
    const moveFocus = new Set(mine.filter((id) => seen.has(id)));
    const told = moveFocus.size
      ? `Outlined in yellow: ${W.joinAnd([...moveFocus].map((id) => data.names[id] || "a piece"))}, this move. Tap a piece for its name.`
      : "Tap a piece for its name.";
    const info = document.getElementById("tap-info");
    info.textContent = told;
    const view = CompanionOverlay.attach(stage, { names: data.names });
    view.show(data.recognition, { focus: moveFocus });
    view.onTap((shape) => {
      info.textContent = shape ? `${shape.name}. Tap the photo elsewhere to see the move again.` : told;
      view.show(data.recognition, { focus: shape && shape.id ? new Set([shape.id]) : moveFocus });
    });
  }
})();
