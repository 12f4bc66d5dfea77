/* The score pad: a tap on a number says what earned it, in plain words, and lights the
   pieces up on the photo; the pad follows the game when another device changes it. */
"use strict";
(() => {
  const { el, clear } = Companion;
  let data = null, view = null;

  function init() {
    data = JSON.parse(document.getElementById("page-data").textContent);
    document.querySelectorAll(".dot[data-colour]").forEach((d) => { d.style.background = d.dataset.colour; });
    const stage = document.getElementById("stage");
    view = null;
    if (stage && data.recognition) {
      view = CompanionOverlay.attach(stage, { names: data.names });
      view.show(data.recognition, {});
      view.onTap((shape) => {
        if (shape && shape.id) explainPiece(shape);
      });
    }
    document.querySelectorAll("button.cell").forEach((b) => b.addEventListener("click", () => explain(b)));
  }

  function explain(button) {
    const pad = data.pad;
    const row = pad.rows[Number(button.dataset.row)];
    const col = pad.columns.findIndex((c) => c.player === button.dataset.player);
    const cell = row.cells[col];
    document.querySelectorAll("button.cell[aria-pressed]").forEach((b) => b.removeAttribute("aria-pressed"));
    button.setAttribute("aria-pressed", "true");
    const box = document.getElementById("cell-detail");
    clear(box);
    box.append(el("h2", {}, `${pad.columns[col].name} · ${row.label}: ${cell.points} ${cell.points === 1 ? "point" : "points"}`));
    const list = el("ul", { class: "items" });
    for (const item of cell.items) list.append(el("li", {}, item));
    if (!cell.items.length) list.append(el("li", { class: "muted" }, "Nothing in this category."));
    box.append(list);
    if (cell.evidence.length) {
      const more = el("details", {});
      more.append(el("summary", {}, "Show every detail"));
      const full = el("ul", { class: "evidence" });
      for (const e of cell.evidence) full.append(el("li", {}, e));
      more.append(full);
      box.append(more);
    }
    if (view) {
      view.show(data.recognition, { focus: new Set(cell.components) });
      const lit = cell.components.length;
      box.append(el("p", { class: "muted" }, lit ? `${CompanionWords.plural(lit, "piece")} outlined in yellow on the photo.` : "No single piece to show for this one."));
    }
  }

  function explainPiece(shape) {
    const box = document.getElementById("cell-detail");
    clear(box);
    box.append(el("h2", {}, shape.name));
    const where = [];
    for (const row of data.pad.rows) {
      row.cells.forEach((cell, i) => {
        if (cell.components.includes(shape.id)) where.push(`${data.pad.columns[i].name}: ${row.label}`);
      });
    }
    box.append(el("p", {}, where.length ? `Counts in ${CompanionWords.joinAnd(where)}.` : "This piece scores nothing by itself."));
    view.show(data.recognition, { focus: new Set([shape.id]) });
  }

  async function refresh() {
    const resp = await fetch(window.location.href, { credentials: "same-origin" });
    const html = await resp.text();
    const doc = new DOMParser().parseFromString(html, "text/html");
    const card = doc.getElementById("score-card"), pageData = doc.getElementById("page-data");
    if (!card || !pageData) return;
    document.getElementById("score-card").replaceWith(card);
    document.getElementById("page-data").textContent = pageData.textContent;
    init();
  }

  init();
  if (!new URLSearchParams(window.location.search).has("seq")) {
    CompanionLive.follow(data.events, async (doc) => {
      if (doc.seq === data.seq) return;
      await refresh();
      const live = document.getElementById("live");
      if (live) live.textContent = doc.seq ? `Updated: the game is now at move ${doc.seq}.` : "Updated: no move is accepted any more.";
    });
  }
})();
