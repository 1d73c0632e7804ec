-- The study: papers, the models' ranked lists, the blind pool and the researcher's ratings.

-- One row: settings fixed for the whole study.
CREATE TABLE study (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    pool_depth INTEGER NOT NULL CHECK (pool_depth BETWEEN 1 AND 1000),
    created_at TEXT    NOT NULL
);

CREATE TABLE papers (
    id          INTEGER PRIMARY KEY,
    external_id TEXT    NOT NULL UNIQUE,
    title       TEXT    NOT NULL,
    abstract    TEXT    NOT NULL DEFAULT '',
    authors     TEXT    NOT NULL DEFAULT '',
    year        INTEGER,
    url         TEXT    NOT NULL DEFAULT ''
);

CREATE TABLE models (
    id   INTEGER PRIMARY KEY,
    name TEXT    NOT NULL UNIQUE
);

-- `position` is the 1-based place in the model's list after import ordering (by rank, or by
-- score for TREC runs and rank-less lists) and after self-recommendations are dropped.
-- `given_rank` and `score` are kept as the file gave them (NULL when absent).
CREATE TABLE recommendations (
    target_id INTEGER NOT NULL REFERENCES papers (id),
    model_id  INTEGER NOT NULL REFERENCES models (id),
    position  INTEGER NOT NULL CHECK (position >= 1),
    paper_id  INTEGER NOT NULL REFERENCES papers (id),
    given_rank INTEGER,
    score     REAL,
    PRIMARY KEY (target_id, model_id, position)
) WITHOUT ROWID;

-- The blind pool: every pair shown to the rater. `sort_key` is drawn at random once, when the
-- pair enters the pool, and fixes its display position for good.
CREATE TABLE pool (
    target_id INTEGER NOT NULL REFERENCES papers (id),
    paper_id  INTEGER NOT NULL REFERENCES papers (id),
    sort_key  INTEGER NOT NULL,
    PRIMARY KEY (target_id, paper_id)
) WITHOUT ROWID;

CREATE INDEX pool_display_order ON pool (target_id, sort_key, paper_id);

-- The current rating of each pair.
CREATE TABLE ratings (
    target_id INTEGER NOT NULL REFERENCES papers (id),
    paper_id  INTEGER NOT NULL REFERENCES papers (id),
    stars     INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
    rated_at  TEXT    NOT NULL,
    PRIMARY KEY (target_id, paper_id)
) WITHOUT ROWID;

-- Append-only: every set, change and clear of a rating, whatever its source.
-- `stars` is NULL for a clear; `previous_stars` is NULL when the pair was unrated before.
CREATE TABLE rating_history (
    id             INTEGER PRIMARY KEY,
    target_id      INTEGER NOT NULL REFERENCES papers (id),
    paper_id       INTEGER NOT NULL REFERENCES papers (id),
    stars          INTEGER CHECK (stars BETWEEN 1 AND 5),
    previous_stars INTEGER CHECK (previous_stars BETWEEN 1 AND 5),
    source         TEXT    NOT NULL CHECK (source IN ('web', 'import', 'undo')),
    changed_at     TEXT    NOT NULL
);

CREATE INDEX rating_history_by_pair ON rating_history (target_id, paper_id, id);

CREATE TRIGGER rating_history_is_append_only_update BEFORE UPDATE ON rating_history
BEGIN
    SELECT RAISE(ABORT, 'rating_history is append-only');
END;

CREATE TRIGGER rating_history_is_append_only_delete BEFORE DELETE ON rating_history
BEGIN
    SELECT RAISE(ABORT, 'rating_history is append-only');
END;
