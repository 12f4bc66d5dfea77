/* Every open page of a game follows it: the server sends an event each time a move is
   accepted or undone, the players change or the game is finished (server-sent events;
   the browser reconnects by itself). CompanionLive.follow(url, fn) calls fn({seq}). */
"use strict";

const CompanionLive = (() => {
  function follow(url, onChange, onState) {
    if (!window.EventSource || !url) return null;
    const source = new EventSource(url);
    source.addEventListener("change", (e) => {
      let doc = null;
      try { doc = JSON.parse(e.data); } catch (err) { return; }
      onChange(doc);
    });
    source.addEventListener("open", () => onState && onState(true));
    source.addEventListener("error", () => onState && onState(false));
    window.addEventListener("pagehide", () => source.close());
    return source;
  }
  return { follow };
})();
