-- The schema of a study file as the migrations beside this file leave it: every table, index,
-- view, trigger and generated column, in one place, to read. Not a migration: sqlx::migrate!
-- takes only files named VERSION_DESCRIPTION.sql, and a study is made by replaying those.
-- tests/it/schema.rs migrates a study from empty and checks that its schema is this one
-- (statements compared without comments and spacing), so a new migration changes this file in
-- the same commit.
--
-- The rules kept here, in SQL, rather than in Rust: the counts every view of progress reads,
-- "fully rated", the moment a target is unblinded, the order of completion and the rating
-- history's being append-only. A trigger runs in the transaction of the change that fires it,
-- whichever path writes (a rating from the browser, an import, an undo, a choice of targets,
-- pruning), so the rule holds in every committed state and cannot be forgotten by a new path.
-- The other rules of the study live in src/study/ (who may rate what, what a choice or undo
-- does) and in src/study/db/ (the pool's rule, what /next offers); ARCHITECTURE.md says which.

-- One row: the study's settings.
CREATE TABLE study (
    id                INTEGER PRIMARY KEY CHECK (id = 1),
    -- The top of every model's list that goes into a target's blind pool.
    pool_depth        INTEGER NOT NULL CHECK (pool_depth BETWEEN 1 AND 1000),
    created_at        TEXT    NOT NULL,
    -- `all`: every paper with recommendations is a target; `chosen`: the targets chosen only.
    target_choice     TEXT    NOT NULL DEFAULT 'all' CHECK (target_choice IN ('all', 'chosen')),
    -- The secret the forms' CSRF tokens are signed with.
    form_secret       BLOB,
    -- Counts the changes other than ratings (an import that changed something, a choice of
    -- targets, the pool depth): with the rating history's last id, the revision of the study
    -- the evaluation kept in memory was computed from.
    revision          INTEGER NOT NULL DEFAULT 0,
    pruning           INTEGER NOT NULL DEFAULT 0 CHECK (pruning IN (0, 1)),
    -- The rating plan: the raters every target needs, and the share of targets given one more.
    raters_per_target INTEGER NOT NULL DEFAULT 1 CHECK (raters_per_target >= 1),
    overlap           REAL CHECK (overlap IS NULL OR overlap BETWEEN 0 AND 1),
    -- Counts the changes of which targets being rated are fully rated (a trigger on targets),
    -- which the rating plan and the raters make without a rating: what shows fully rated
    -- targets only is kept with it beside `revision` and the rating history's last id.
    finished_revision INTEGER NOT NULL DEFAULT 0
);

-- Who rates: row 1 is the owner (no password hash: the owner's password is given to `serve`).
CREATE TABLE raters (
    id            INTEGER PRIMARY KEY,
    name          TEXT    NOT NULL UNIQUE,
    password_hash TEXT,
    added_at      TEXT    NOT NULL,
    removed_at    TEXT,
    CHECK ((id = 1) = (password_hash IS NULL))
);

-- The library.
CREATE TABLE papers (
    id          INTEGER PRIMARY KEY,
    external_id TEXT    NOT NULL UNIQUE,
    title       TEXT    NOT NULL,
    abstract    TEXT    NOT NULL DEFAULT '',
    authors     TEXT    NOT NULL DEFAULT '',
    year        INTEGER,
    url         TEXT    NOT NULL DEFAULT ''
);

-- Full-text search of the library, ranked by bm25; the index reads `papers` (external
-- content) and holds no copy of the text.
CREATE VIRTUAL TABLE papers_search USING fts5 (
    external_id, title, authors, abstract,
    content = 'papers', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

-- The ranking of `ORDER BY rank`: a match in the id weighs most, then the title, the authors
-- and the abstract (a setting of the index, kept in its own table).
INSERT INTO papers_search (papers_search, rank) VALUES ('rank', 'bm25(10.0, 5.0, 3.0, 1.0)');

-- Papers not indexed yet: an import indexes its new papers all at once at its end.
CREATE TABLE papers_search_pending (
    paper_id INTEGER PRIMARY KEY REFERENCES papers (id)
);

-- Rule: a new paper waits to be indexed with the rest of its import.
CREATE TRIGGER papers_search_insert AFTER INSERT ON papers
BEGIN
    INSERT INTO papers_search_pending (paper_id) VALUES (NEW.id);
END;

-- Rule: a changed paper already indexed is indexed again with its new text.
CREATE TRIGGER papers_search_update AFTER UPDATE OF external_id, title, authors, abstract ON papers
WHEN NOT EXISTS (SELECT 1 FROM papers_search_pending WHERE paper_id = NEW.id)
BEGIN
    INSERT INTO papers_search (papers_search, rowid, external_id, title, authors, abstract)
    VALUES ('delete', OLD.id, OLD.external_id, OLD.title, OLD.authors, OLD.abstract);
    INSERT INTO papers_search (rowid, external_id, title, authors, abstract)
    VALUES (NEW.id, NEW.external_id, NEW.title, NEW.authors, NEW.abstract);
END;

-- Rule: a deleted paper leaves the search index (or the pending papers).
CREATE TRIGGER papers_search_delete AFTER DELETE ON papers
BEGIN
    INSERT INTO papers_search (papers_search, rowid, external_id, title, authors, abstract)
    SELECT 'delete', OLD.id, OLD.external_id, OLD.title, OLD.authors, OLD.abstract
    WHERE NOT EXISTS (SELECT 1 FROM papers_search_pending WHERE paper_id = OLD.id);
    DELETE FROM papers_search_pending WHERE paper_id = OLD.id;
END;

CREATE TABLE models (
    id   INTEGER PRIMARY KEY,
    name TEXT    NOT NULL UNIQUE
);

-- Every model's ranked list per target. `position`: the 1-based place after the import's
-- ordering (by rank, or by score for TREC runs); `given_rank` and `score` as the file gave them.
CREATE TABLE "recommendations" (
    target_id  INTEGER NOT NULL REFERENCES papers (id),
    model_id   INTEGER NOT NULL REFERENCES models (id),
    position   INTEGER NOT NULL CHECK (position >= 1),
    paper_id   INTEGER NOT NULL REFERENCES papers (id),
    given_rank INTEGER,
    score      REAL,
    PRIMARY KEY (model_id, target_id, position)
) WITHOUT ROWID;

-- Each model's list per target once more, packed (src/study/db/packed.rs) for the lists view
-- and the evaluation, which read every list of their targets: one row per list reads about
-- ten times faster than the list's rows above. Written with the list by the import; replaced,
-- never removed. `papers`: one byte giving the keys' width, 4 (each key from 0 below 2^32) or
-- 8, then the papers' keys, best first, big-endian.
CREATE TABLE packed_lists (
    model_id  INTEGER NOT NULL REFERENCES models (id),
    target_id INTEGER NOT NULL REFERENCES papers (id),
    papers    BLOB    NOT NULL,
    PRIMARY KEY (model_id, target_id)
) WITHOUT ROWID;

-- One row per paper that is a target or could become one (it has lists, a pool, or was
-- chosen), with the counts every view of progress reads, kept by the triggers below.
CREATE TABLE targets (
    target_id    INTEGER PRIMARY KEY REFERENCES papers (id),
    -- Some model has a list for it.
    listed       INTEGER NOT NULL DEFAULT 0 CHECK (listed IN (0, 1)),
    -- Rated now: chosen, or any listed paper while the study rates all.
    active       INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)),
    -- Drawn at random once: the order /next offers targets in.
    order_key    INTEGER NOT NULL,
    -- Pairs in its blind pool (written with the pool, src/study/pool/store.rs).
    pooled       INTEGER NOT NULL DEFAULT 0 CHECK (pooled >= 0),
    -- Pairs with a rating (stars or "can't judge"), by anyone.
    rated        INTEGER NOT NULL DEFAULT 0 CHECK (rated >= 0),
    -- When it was first fully rated: every change of its ratings after that is made with
    -- provenance known.
    unblinded_at TEXT,
    -- Raters it needs (the rating plan's, `target_needs`), who took it, and who rated every
    -- pooled pair.
    needed       INTEGER NOT NULL DEFAULT 1 CHECK (needed >= 1),
    raters       INTEGER NOT NULL DEFAULT 0 CHECK (raters >= 0),
    raters_done  INTEGER NOT NULL DEFAULT 0 CHECK (raters_done >= 0),
    -- "Fully rated", the one definition every read of "finished" reads.
    fully_rated  INTEGER
        GENERATED ALWAYS AS (pooled > 0 AND raters >= needed AND raters_done = raters) VIRTUAL
);

CREATE INDEX targets_in_rating_order
    ON targets (active, order_key, target_id, rated, pooled, raters, needed);
CREATE INDEX targets_finished ON targets (active, fully_rated, rated);

-- The blind pool: every pair shown to the raters. `sort_key`, drawn once when the pair enters
-- the pool, fixes its place on the page for good.
CREATE TABLE pool (
    target_id INTEGER NOT NULL REFERENCES papers (id),
    paper_id  INTEGER NOT NULL REFERENCES papers (id),
    sort_key  INTEGER NOT NULL,
    PRIMARY KEY (target_id, paper_id)
) WITHOUT ROWID;

CREATE INDEX pool_display_order ON pool (target_id, sort_key, paper_id);

-- Pruning: the models the verdict ruled out while pruning was on; a pool built now leaves
-- their lists out.
CREATE TABLE pruned_models (
    model_id  INTEGER PRIMARY KEY REFERENCES models (id),
    pruned_at TEXT    NOT NULL
);

-- The models a target's pool left out when it was built; kept once the target has a rating.
CREATE TABLE pool_exclusions (
    target_id INTEGER NOT NULL REFERENCES papers (id),
    model_id  INTEGER NOT NULL REFERENCES models (id),
    PRIMARY KEY (target_id, model_id)
) WITHOUT ROWID;

-- The study's guidelines for rating, every version the owner set (Markdown, shown on every
-- rating page); `markdown` NULL records a clear. The current guidelines are the last version.
CREATE TABLE guidelines (
    version  INTEGER PRIMARY KEY CHECK (version >= 1),
    markdown TEXT,
    set_at   TEXT    NOT NULL
);

-- The current rating of each pair by each rater: a row is a pair the rater handled. `stars`
-- NULL: the rater marked it "I can't judge this" (it counts for finishing the target, and is
-- unjudged in every metric). `first_rated`: the id of the rating history's entry of the pair's
-- first answer by its rater (the order of completion, for the verdict). `note`: the rater's
-- note. `guidelines`: the version of the guidelines the rating was made under (NULL: before
-- the study had any).
CREATE TABLE "ratings" (
    target_id   INTEGER NOT NULL REFERENCES papers (id),
    paper_id    INTEGER NOT NULL REFERENCES papers (id),
    rater_id    INTEGER NOT NULL REFERENCES raters (id),
    stars       INTEGER CHECK (stars BETWEEN 1 AND 5),
    rated_at    TEXT    NOT NULL,
    first_rated INTEGER,
    note        TEXT    CHECK (length(note) BETWEEN 1 AND 2000),
    guidelines  INTEGER REFERENCES guidelines (version),
    PRIMARY KEY (target_id, paper_id, rater_id)
) WITHOUT ROWID;

CREATE INDEX ratings_by_rater_id ON ratings (rater_id, target_id);

-- Every set, change and clear of a rating (its answer or its note), whatever its source.
-- `stars` NULL: a clear, or with `cannot_judge` "I can't judge this"; `previous_stars` NULL:
-- the pair was unrated before (or, with `previous_cannot_judge`, not judgeable);
-- `provenance_known`: the target had been fully rated before (its numbers were out); `note` and
-- `previous_note`: the note after and before the change.
CREATE TABLE rating_history (
    id                    INTEGER PRIMARY KEY,
    target_id             INTEGER NOT NULL REFERENCES papers (id),
    paper_id              INTEGER NOT NULL REFERENCES papers (id),
    stars                 INTEGER CHECK (stars BETWEEN 1 AND 5),
    previous_stars        INTEGER CHECK (previous_stars BETWEEN 1 AND 5),
    source                TEXT    NOT NULL CHECK (source IN ('web', 'import', 'undo')),
    changed_at            TEXT    NOT NULL,
    provenance_known      INTEGER NOT NULL DEFAULT 0 CHECK (provenance_known IN (0, 1)),
    browser_session       TEXT,
    rater_id              INTEGER NOT NULL DEFAULT 1,
    cannot_judge          INTEGER NOT NULL DEFAULT 0 CHECK (cannot_judge IN (0, 1)),
    previous_cannot_judge INTEGER NOT NULL DEFAULT 0 CHECK (previous_cannot_judge IN (0, 1)),
    note                  TEXT,
    previous_note         TEXT
);

CREATE INDEX rating_history_by_pair ON rating_history (target_id, paper_id, id);
CREATE INDEX rating_history_by_browser_session
    ON rating_history (target_id, browser_session, rater_id, id);

-- Rule: the rating history is append-only (no entry changes).
CREATE TRIGGER rating_history_is_append_only_update BEFORE UPDATE ON rating_history
BEGIN
    SELECT RAISE(ABORT, 'rating_history is append-only');
END;

-- Rule: the rating history is append-only (no entry goes).
CREATE TRIGGER rating_history_is_append_only_delete BEFORE DELETE ON rating_history
BEGIN
    SELECT RAISE(ABORT, 'rating_history is append-only');
END;

-- A re-check of an already rated pair, kept apart from the ratings.
CREATE TABLE "rechecks" (
    target_id       INTEGER NOT NULL REFERENCES papers (id),
    paper_id        INTEGER NOT NULL REFERENCES papers (id),
    rater_id        INTEGER NOT NULL REFERENCES raters (id),
    stars_then      INTEGER NOT NULL CHECK (stars_then BETWEEN 1 AND 5),
    rated_at        TEXT    NOT NULL,
    stars           INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
    rechecked_at    TEXT    NOT NULL,
    browser_session TEXT,
    PRIMARY KEY (target_id, paper_id, rater_id)
) WITHOUT ROWID;

-- Who took which target (by rating it), and how many of its pairs they rated.
CREATE TABLE assignments (
    target_id   INTEGER NOT NULL REFERENCES papers (id),
    rater_id    INTEGER NOT NULL REFERENCES raters (id),
    rated       INTEGER NOT NULL DEFAULT 0 CHECK (rated >= 0),
    assigned_at TEXT    NOT NULL,
    PRIMARY KEY (target_id, rater_id)
) WITHOUT ROWID;

CREATE INDEX assignments_by_rater ON assignments (rater_id, target_id);

-- The rating plan in numbers: raters per target, the share of targets given one more (the
-- plan's, or a tenth once there are two raters and the plan asks one each), the active raters.
CREATE VIEW rating_plan AS
SELECT s.raters_per_target AS per_target,
       COALESCE(s.overlap,
                CASE WHEN a.raters >= 2 AND s.raters_per_target = 1 THEN 0.1 ELSE 0.0 END)
           AS overlap,
       a.raters AS raters,
       MAX(1, a.raters) AS most
FROM study s,
     (SELECT COUNT(*) AS raters FROM raters WHERE id <> 1 AND removed_at IS NULL) a
WHERE s.id = 1;

-- The raters each target needs under the plan: one more for the share of targets the overlap
-- picks by their random order key, never more than there are raters. `targets.needed` is
-- written from it after every change of the plan or of the raters (src/study/raters/store.rs).
CREATE VIEW target_needs AS
SELECT t.target_id,
       MIN(p.per_target
               + ((t.order_key & 4294967295) < CAST(p.overlap * 4294967296 AS INTEGER)),
           p.most) AS needed
FROM targets t, rating_plan p;

-- Rule: a new target needs the raters the rating plan says.
CREATE TRIGGER targets_needed_on_insert AFTER INSERT ON targets
BEGIN
    UPDATE targets SET needed = (SELECT n.needed FROM target_needs n
                                 WHERE n.target_id = NEW.target_id)
    WHERE target_id = NEW.target_id;
END;

-- Rule: a rating ("can't judge" too) counts its pair as rated (once) and for its rater's target.
CREATE TRIGGER ratings_count_insert AFTER INSERT ON ratings
BEGIN
    UPDATE targets SET rated = rated + 1
    WHERE target_id = NEW.target_id
      AND NOT EXISTS (SELECT 1 FROM ratings r
                      WHERE r.target_id = NEW.target_id AND r.paper_id = NEW.paper_id
                        AND r.rater_id <> NEW.rater_id);
    INSERT OR IGNORE INTO assignments (target_id, rater_id, assigned_at)
    VALUES (NEW.target_id, NEW.rater_id, NEW.rated_at);
    UPDATE assignments SET rated = rated + 1
    WHERE target_id = NEW.target_id AND rater_id = NEW.rater_id;
END;

-- Rule: a cleared rating uncounts its pair (once no rater has rated it) and its rater's pair.
CREATE TRIGGER ratings_count_delete AFTER DELETE ON ratings
BEGIN
    UPDATE targets SET rated = rated - 1
    WHERE target_id = OLD.target_id
      AND NOT EXISTS (SELECT 1 FROM ratings r
                      WHERE r.target_id = OLD.target_id AND r.paper_id = OLD.paper_id);
    UPDATE assignments SET rated = rated - 1
    WHERE target_id = OLD.target_id AND rater_id = OLD.rater_id;
END;

-- Rule: a rater who takes a target counts among its raters (and its raters done, if done).
CREATE TRIGGER assignments_insert AFTER INSERT ON assignments
BEGIN
    UPDATE targets SET raters = raters + 1,
                       raters_done = raters_done + (pooled > 0 AND NEW.rated = pooled)
    WHERE target_id = NEW.target_id;
END;

-- Rule: a rater who lets a target go no longer counts among its raters.
CREATE TRIGGER assignments_delete AFTER DELETE ON assignments
BEGIN
    UPDATE targets SET raters = raters - 1,
                       raters_done = raters_done - (pooled > 0 AND OLD.rated = pooled)
    WHERE target_id = OLD.target_id;
END;

-- Rule: a rater who has rated every pooled pair counts among the target's raters done.
CREATE TRIGGER assignments_rated AFTER UPDATE OF rated ON assignments
BEGIN
    UPDATE targets SET raters_done = raters_done + (pooled > 0 AND NEW.rated = pooled)
                                                 - (pooled > 0 AND OLD.rated = pooled)
    WHERE target_id = NEW.target_id;
END;

-- Rule: the raters done are counted again when the target's pool changes size.
CREATE TRIGGER targets_pooled_raters_done AFTER UPDATE OF pooled ON targets
WHEN NEW.pooled <> OLD.pooled
BEGIN
    UPDATE targets SET raters_done = (SELECT COUNT(*) FROM assignments a
                                      WHERE a.target_id = NEW.target_id AND NEW.pooled > 0
                                        AND a.rated = NEW.pooled)
    WHERE target_id = NEW.target_id;
END;

-- Rule: a rating given again (after an undo) keeps its pair's first rating (completion order).
CREATE TRIGGER ratings_first_rated_on_insert AFTER INSERT ON ratings
BEGIN
    UPDATE ratings SET first_rated = (
        SELECT MIN(h.id) FROM rating_history h
        WHERE h.target_id = NEW.target_id AND h.paper_id = NEW.paper_id
          AND h.rater_id = NEW.rater_id AND (h.stars IS NOT NULL OR h.cannot_judge = 1)
    )
    WHERE target_id = NEW.target_id AND paper_id = NEW.paper_id AND rater_id = NEW.rater_id;
END;

-- Rule: a pair's first rating is its first history entry with stars or "can't judge" (completion order).
CREATE TRIGGER rating_history_first_rating AFTER INSERT ON rating_history
WHEN NEW.stars IS NOT NULL OR NEW.cannot_judge = 1
BEGIN
    UPDATE ratings SET first_rated = NEW.id
    WHERE target_id = NEW.target_id AND paper_id = NEW.paper_id AND rater_id = NEW.rater_id
      AND first_rated IS NULL;
END;

-- Rule: a target is unblinded in the transaction that first makes it fully rated.
CREATE TRIGGER targets_unblinded_when_fully_rated
AFTER UPDATE OF pooled, raters, raters_done, needed ON targets
WHEN NEW.unblinded_at IS NULL AND NEW.pooled > 0 AND NEW.raters >= NEW.needed
     AND NEW.raters_done = NEW.raters
BEGIN
    UPDATE targets SET unblinded_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
    WHERE target_id = NEW.target_id;
END;

-- Rule: every change of which targets being rated are fully rated moves the finished revision.
CREATE TRIGGER targets_finished_revision
AFTER UPDATE OF active, pooled, raters, raters_done, needed ON targets
WHEN (OLD.active AND OLD.fully_rated) IS NOT (NEW.active AND NEW.fully_rated)
BEGIN
    UPDATE study SET finished_revision = finished_revision + 1 WHERE id = 1;
END;

-- A machine judge: a model behind an endpoint with its prompt, a local command, or grades
-- imported from a file (no model, endpoint, prompt or command). Its grades are kept apart from the ratings: no trigger
-- above reads them, so they never finish a target nor count as ratings.
CREATE TABLE "judges" (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    name          TEXT    NOT NULL UNIQUE,
    model         TEXT,
    endpoint      TEXT,
    prompt        TEXT,
    prompt_sha256 TEXT,
    settings      TEXT,
    added_at      TEXT    NOT NULL,
    revision      INTEGER NOT NULL DEFAULT 0,
    -- The guidelines' version its prompt was filled with (NULL: none read).
    guidelines    INTEGER REFERENCES guidelines (version),
    -- A judge that is a local command: its command line (then no model, endpoint or prompt).
    command       TEXT CHECK (command IS NULL OR model IS NULL),
    -- The trial it was made from, whose grades it kept.
    from_trial    INTEGER REFERENCES judge_trials (id),
    CHECK ((model IS NULL) = (prompt IS NULL) AND (model IS NULL) = (prompt_sha256 IS NULL)
           AND (model IS NULL) = (endpoint IS NULL))
);

CREATE TABLE "judge_grades" (
    judge_id    INTEGER NOT NULL REFERENCES "judges" (id) ON DELETE CASCADE,
    target_id   INTEGER NOT NULL REFERENCES papers (id),
    paper_id    INTEGER NOT NULL REFERENCES papers (id),
    stars       INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
    explanation TEXT,
    judged_at   TEXT    NOT NULL,
    -- The guidelines' version the grade was made under (NULL: none read).
    guidelines  INTEGER REFERENCES guidelines (version),
    PRIMARY KEY (judge_id, target_id, paper_id)
) WITHOUT ROWID;

-- The tuning set of the trials: the first N fully rated targets in the study's order, fixed
-- until a trial asks for another N.
CREATE TABLE tuning_targets (
    position  INTEGER PRIMARY KEY,
    target_id INTEGER NOT NULL UNIQUE REFERENCES papers (id)
);

-- A trial of a judge on the tuning set: no judge, its grades reach no estimate.
CREATE TABLE judge_trials (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    model          TEXT,
    endpoint       TEXT,
    prompt         TEXT,
    prompt_sha256  TEXT,
    guidelines     INTEGER REFERENCES guidelines (version),
    settings       TEXT,
    command        TEXT,
    tuning_targets INTEGER NOT NULL CHECK (tuning_targets >= 1),
    pairs          INTEGER NOT NULL CHECK (pairs >= 0),
    seconds        REAL    NOT NULL DEFAULT 0 CHECK (seconds >= 0),
    created_at     TEXT    NOT NULL,
    CHECK ((model IS NULL) <> (command IS NULL)
           AND (model IS NULL) = (prompt IS NULL) AND (model IS NULL) = (endpoint IS NULL)
           AND (model IS NULL) = (prompt_sha256 IS NULL))
);

CREATE TABLE trial_grades (
    trial_id    INTEGER NOT NULL REFERENCES judge_trials (id) ON DELETE CASCADE,
    target_id   INTEGER NOT NULL REFERENCES papers (id),
    paper_id    INTEGER NOT NULL REFERENCES papers (id),
    stars       INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
    explanation TEXT,
    judged_at   TEXT    NOT NULL,
    PRIMARY KEY (trial_id, target_id, paper_id)
) WITHOUT ROWID;

-- The run of a judge going on now, by the judge's name: a lease one run holds at a time,
-- wherever it runs; every write of its grades checks `holder` in the same transaction.
CREATE TABLE judge_runs (
    judge      TEXT    PRIMARY KEY,
    holder     TEXT    NOT NULL,
    place      TEXT    NOT NULL,
    pid        INTEGER NOT NULL,
    host       TEXT    NOT NULL,
    started_at TEXT    NOT NULL,
    renewed_at INTEGER NOT NULL
) WITHOUT ROWID;

-- The outputs of `paperjudge leaderboard` kept for the next call on the same revision: `key`
-- is the canonical text of what the output depends on (the build, the study's revision, the
-- options, the format); a new row deletes those of other builds and revisions (`build`,
-- `revision`); `digest`, the FNV-1a hash of `output`, is checked when it is read.
CREATE TABLE kept_outputs (
    key      TEXT    PRIMARY KEY,
    build    TEXT    NOT NULL,
    revision TEXT    NOT NULL,
    output   TEXT    NOT NULL,
    digest   INTEGER NOT NULL,
    made_at  TEXT    NOT NULL
);
