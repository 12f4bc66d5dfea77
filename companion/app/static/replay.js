/* A saved move: the sentence, every change, the photo with its outlines, the pieces by area. */
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("page-data").textContent);
  const { el } = Companion;
  const W = CompanionWords;
  W.setAreas(data.areas, data.area_prepositions, data.names);
  const words = W.move(data.move, data.names, data.players, data.setup);
  document.getElementById("move-summary").textContent = words.sentence;
  const list = document.getElementById("move-list");
  for (const t of words.items) list.append(el("li", {}, t));
  document.getElementById("move-details-summary").textContent = `Every change (${words.items.length})`;
  document.querySelectorAll(".area[data-area]").forEach((a) => {
    const text = !a.dataset.area ? "Beside the board" : W.cap(W.area(a.dataset.area, data.players));
    a.textContent = `${text}:`;
  });
  document.querySelectorAll(".dot[data-colour]").forEach((d) => { d.style.background = d.dataset.colour; });
  const stage = document.getElementById("stage");
  if (stage && data.recognition) {
    const view = CompanionOverlay.attach(stage, { names: data.names });
    view.show(data.recognition, {});
    view.onTap((shape) => {
      document.getElementById("tap-info").textContent = shape ? shape.name : "Tap a piece for its name.";
      view.show(data.recognition, { focus: new Set(shape && shape.id ? [shape.id] : []) });
    });
  }
})();
