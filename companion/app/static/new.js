/* New game: changing the game reloads the form with that game's options and seats. */
"use strict";
(() => {
  const select = document.getElementById("game-select");
  if (select) select.addEventListener("change", () => document.getElementById("game-picker").submit());
})();
