-- The companion's store: one SQLite file in the instance folder, in WAL mode.
-- Each "-- migration: N" section runs once, in order, and PRAGMA user_version
-- records the last one applied; never edit a released section, add a new one.

-- migration: 1
CREATE TABLE play (
    id          TEXT PRIMARY KEY,          -- random, URL-safe; appears in links
    game        TEXT NOT NULL,             -- game id, e.g. 'habitats'
    title       TEXT NOT NULL,
    players     TEXT NOT NULL,             -- JSON list of {id, name, colour, seat}
    options     TEXT NOT NULL,             -- JSON object of the game's options
    created_at  TEXT NOT NULL,             -- ISO 8601, UTC
    finished_at TEXT,                      -- set when the players close the game
    final_sheet TEXT                       -- JSON score sheet at the finish
);
CREATE INDEX play_created ON play (created_at DESC);

CREATE TABLE snapshot (
    id          INTEGER PRIMARY KEY,
    play_id     TEXT NOT NULL REFERENCES play (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,          -- 1 for the first accepted state
    state       TEXT NOT NULL,             -- the board state document (docs/formats.md)
    violations  TEXT NOT NULL DEFAULT '[]',-- what the players accepted anyway
    problems    TEXT NOT NULL DEFAULT '{}',-- unreadable/duplicated/foreign counts of the scan
    source      TEXT NOT NULL,             -- camera, host-camera, upload, sample, manual
    created_at  TEXT NOT NULL,
    UNIQUE (play_id, seq)
);

-- migration: 2
-- A game started on a bundled sample photo is not kept in the history unless the players
-- keep it (or finish it); kept = 0 games are cleared after a day.
ALTER TABLE play ADD COLUMN kept INTEGER NOT NULL DEFAULT 1;
