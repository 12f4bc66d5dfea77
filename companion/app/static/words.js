/* Plain words for what the table shows: whose area a piece is in, a move as a sentence,
   what to do about a problem. No codes, coordinates or arrows. */
"use strict";

const CompanionWords = (() => {
  const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
  const plural = (n, one, many) => `${n} ${n === 1 ? one : (many || `${one}s`)}`;

  function joinAnd(items) {
    if (items.length <= 1) return items.join("");
    return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
  }

  /* "park:yellow" -> "Yellow's park"; "market" -> "the market"; no area -> "beside the board".
     The words and how a piece lies there ("on" a board, "among" cards, else "in") are the
     game's data (its score_pad.toml). */
  let areaWords = {}, areaPreps = {}, pieceNames = {};
  const setAreas = (words, preps, names) => {
    areaWords = words || {}; areaPreps = preps || {}; pieceNames = names || {};
  };

  function area(id, players, self) {
    if (!id) return "beside the board";
    const [kind, owner] = String(id).split(":", 2);
    const words = areaWords[kind] || kind.replace(/[_-]+/g, " ");
    if (owner !== undefined) {
      const p = (players || []).find((q) => q.id === owner);
      if (p) return p === self ? `their ${words}` : `${p.name}'s ${words}`;
      if (pieceNames[owner]) return pieceNames[owner];  // a platform named by its board
      return `the ${words}`;
    }
    return `the ${words}`;
  }

  /* "in Yellow's park"; arriving: "into the market", "onto the table". */
  function where(id, players, { arriving = false, self = null } = {}) {
    if (!id) return "beside the board";
    const prep = areaPreps[String(id).split(":", 2)[0]] || "in";
    const word = arriving ? ({ in: "into", on: "onto" }[prep] || prep) : prep;
    return `${word} ${area(id, players, self)}`;
  }

  function ownerOf(id, players) {
    if (!id) return null;
    const owner = String(id).split(":", 2)[1];
    return (players || []).find((q) => q.id === owner) || null;
  }

  /* The pieces now beside a placed one: "next to Owl and Kudu" (two named at most). */
  function nextTo(ids, name) {
    if (!ids || !ids.length) return "";
    const shown = [...new Set(ids.map(name))].slice(0, 2);  // two Forest tokens named once
    const more = new Set(ids.map(name)).size - shown.length;
    return `, next to ${more ? `${shown.join(", ")} and ${plural(more, "more piece")}` : joinAnd(shown)}`;
  }

  /* Where one placed piece went, in words: "on Jungle tile G06 in their jungle, next to ...". */
  function landed(p, name, players, opts) {
    const on = p.on ? `on ${name(p.on)} ` : "";
    const place = on ? where(p.area, players, { ...opts, arriving: false }) : where(p.area, players, opts);
    return `${on}${place}${nextTo(p.beside, name)}`;
  }

  /* Several pieces: the area they went to, or each area once. */
  function landedAll(ps, players, opts) {
    const areas = [...new Set(ps.map((p) => p.area))];
    return joinAnd(areas.map((a) => where(a, players, opts)));
  }

  /* The proposal in one sentence, and the full list of changes in words. */
  function move(m, names, players, setup) {
    const name = (c) => names[c] || "a piece";
    const items = [];
    if (!m) return { sentence: "Nothing on a space of the table yet.", items };
    for (const p of m.added) items.push(`${cap(name(p.component))} placed ${landed(p, name, players)}`);
    for (const p of m.removed) items.push(`${cap(name(p.component))} left ${area(p.area, players)}`);
    for (const x of m.moved) {
      items.push(x.from.area === x.to.area
        ? `${cap(name(x.to.component))} moved within ${area(x.to.area, players)}${nextTo(x.to.beside, name)}`
        : `${cap(name(x.to.component))} moved from ${area(x.from.area, players)} ${landed(x.to, name, players, { arriving: true })}`);
    }
    if (setup) {
      const counts = new Map();
      for (const p of m.added) {
        const o = ownerOf(p.area, players);
        const key = o ? o.name : "shared";
        counts.set(key, (counts.get(key) || 0) + 1);
      }
      // "(Ana 12, 5 shared)"; a table all shared (PHYLO) needs no aside.
      const parts = counts.size === 1 && counts.has("shared") ? []
        : [...counts].map(([k, n]) => (k === "shared" ? `${n} shared` : `${k} ${n}`));
      return { sentence: `${cap(plural(m.added.length, "piece"))} on the table${parts.length ? ` (${parts.join(", ")})` : ""}.`, items };
    }
    // Pieces that went into a player's own area are that player's move ("Rosa placed Badger
    // in their park, next to Owl"); the rest is said after it (a market refilled, a figure
    // moved, pieces taken away), each with where it happened.
    const placedBy = new Map(), shared = [], moved = [];
    const put = (o, p) => { if (!placedBy.has(o)) placedBy.set(o, []); placedBy.get(o).push(p); };
    for (const p of m.added) {
      const o = ownerOf(p.area, players);
      if (o) put(o, p); else shared.push(p);
    }
    for (const x of m.moved) {
      const o = ownerOf(x.to.area, players);
      if (o && x.from.area !== x.to.area) put(o, x.to); else moved.push(x);
    }
    const list = (ids, noun) => (ids.length <= 2 ? joinAnd(ids.map(name)) : plural(ids.length, noun));
    const sentences = [];
    for (const [who, ps] of placedBy) {
      const opts = { self: who };
      sentences.push(ps.length === 1
        ? `${who.name} placed ${name(ps[0].component)} ${landed(ps[0], name, players, opts)}`
        : `${who.name} placed ${list(ps.map((p) => p.component), "piece")} ${landedAll(ps, players, opts)}`);
    }
    const byArea = new Map();
    for (const p of shared) { if (!byArea.has(p.area)) byArea.set(p.area, []); byArea.get(p.area).push(p); }
    for (const [a, ps] of byArea) {
      sentences.push(ps.length === 1
        ? `${name(ps[0].component)} came ${landed(ps[0], name, players, { arriving: true })}`
        : `${list(ps.map((p) => p.component), "piece")} came ${where(a, players, { arriving: true })}`);
    }
    if (moved.length === 1) {
      const x = moved[0];
      sentences.push(x.from.area === x.to.area
        ? `${name(x.to.component)} moved within ${area(x.to.area, players)}${nextTo(x.to.beside, name)}`
        : `${name(x.to.component)} moved ${landed(x.to, name, players, { arriving: true })}`);
    } else if (moved.length) {
      sentences.push(`${list(moved.map((x) => x.to.component), "piece")} moved`);
    }
    if (m.removed.length) {
      const from = [...new Set(m.removed.map((p) => p.area))];
      const gone = from.length === 1 ? area(from[0], players) : "the table";
      sentences.push(`${list(m.removed.map((p) => p.component), "piece")} left ${gone}`);
    }
    return { sentence: sentences.length ? sentences.map((t) => `${cap(t)}.`).join(" ") : "Nothing moved.", items };
  }

  const ADVICE = {
    unreadable: "Turn this piece so its code faces the camera, or tilt it out of the glare.",
    foreign: "This is not a piece of this game: it can stay, it is not counted.",
    dup: "The same piece is on the table twice: take the copy away.",
    facedown: "Turn this card face up so it can be counted.",
    doubt: "Hold the camera steadier or closer: this code was read two ways.",
    bad: "This piece breaks a rule: see the move panel.",
    ok: "Recognised.",
  };
  const PROBLEM_ADVICE = {
    "layout/player_not_in_view": "Move the camera so every player's board or park is in the picture.",
    "layout/market_partial": "Show the whole market in the picture.",
    "layout/unplaced": "Put this piece on a space, or take it off the table.",
    "layout/off_board": "Put this piece on a space of the board.",
    "layout/off_space": "Put this piece squarely on a space.",
    "layout/between_spaces": "Push this piece onto one space.",
    "layout/two_on_one": "Only one piece fits on a space: move one of them.",
    "layout/face_down": "Turn this card face up so it can be counted.",
    "layout/rotation_unclear": "Turn this piece so it lines up with its neighbours.",
    "vision/off_plane": "Lay this piece flat on the table.",
    "vision/maybe_other_game": "Could be another game's piece: turn it so its QR code faces the camera, or take it off the table.",
    "vision/hold_still": "Rest the camera or your elbows on something, wait for it to focus, then take the photo again.",
  };
  const advice = (kind) => ADVICE[kind] || "";
  const problemAdvice = (code) => PROBLEM_ADVICE[code] || "Look at the table and fix what this says, then take a new photo.";

  /* A message from the rules or the scanner, already in players' words, as a sentence:
     capitalised, with a full stop. Its words are shown as they come. */
  const sentence = (text) => {
    const s = cap(String(text || "").trim());
    return !s || /[.!?]$/.test(s) ? s : `${s}.`;
  };

  return { setAreas, area, where, move, advice, problemAdvice, sentence, plural, cap, joinAnd };
})();
