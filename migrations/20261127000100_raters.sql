-- Several raters on one study (docs/metrics.md, "Several raters"): each rating belongs to a
-- rater; each target is rated by the raters it needs, who take it (`assignments`) from `/next`
-- or with their first rating of it; a target is fully rated once every rater who took it has
-- rated every pooled pair and it has as many as it needs. A study without raters has one
-- rater, the owner (row 1), and works as before: every rating from before is the owner's.

-- The raters. Row 1 is the study's owner, who signs in with the password given to `serve`
-- (no password is stored for them). The others are added with `paperjudge raters add`, their
-- password stored as an Argon2id hash (PHC string). A rater removed can no longer sign in;
-- their row and their ratings stay.
CREATE TABLE raters (
    id            INTEGER PRIMARY KEY,
    name          TEXT    NOT NULL UNIQUE,
    password_hash TEXT,
    added_at      TEXT    NOT NULL,
    removed_at    TEXT,
    CHECK ((id = 1) = (password_hash IS NULL))
);

INSERT INTO raters (id, name, added_at)
VALUES (1, 'owner', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));

-- How many raters rate each target (`raters set --per-target`), and the share of targets that
-- one more rater rates for agreement (`--overlap`; NULL: the default, see `rating_plan`).
ALTER TABLE study ADD COLUMN raters_per_target INTEGER NOT NULL DEFAULT 1
    CHECK (raters_per_target >= 1);
ALTER TABLE study ADD COLUMN overlap REAL CHECK (overlap IS NULL OR overlap BETWEEN 0 AND 1);

-- The plan the study's targets follow: raters per target, the share of targets with one more
-- (by default 0.1 when there are two raters or more and one rates each target, else 0), and
-- the raters there are (at least 1, the owner alone): no target needs more raters than that.
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

-- The ratings, one per pair and rater. Rebuilt with the rater in the key; every rating from
-- before is the owner's.
DROP TRIGGER rating_history_first_rating;

CREATE TABLE ratings_by_rater (
    target_id   INTEGER NOT NULL REFERENCES papers (id),
    paper_id    INTEGER NOT NULL REFERENCES papers (id),
    rater_id    INTEGER NOT NULL REFERENCES raters (id),
    stars       INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
    rated_at    TEXT    NOT NULL,
    first_rated INTEGER,
    PRIMARY KEY (target_id, paper_id, rater_id)
) WITHOUT ROWID;

INSERT INTO ratings_by_rater (target_id, paper_id, rater_id, stars, rated_at, first_rated)
SELECT target_id, paper_id, 1, stars, rated_at, first_rated FROM ratings;

DROP TABLE ratings;

ALTER TABLE ratings_by_rater RENAME TO ratings;

CREATE INDEX ratings_by_rater_id ON ratings (rater_id, target_id);

-- Whose change each history row records (the owner's before raters existed).
ALTER TABLE rating_history ADD COLUMN rater_id INTEGER NOT NULL DEFAULT 1;

DROP INDEX rating_history_by_browser_session;
CREATE INDEX rating_history_by_browser_session
    ON rating_history (target_id, browser_session, rater_id, id);

-- Re-checks are each rater's own, of their own ratings.
CREATE TABLE rechecks_by_rater (
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

INSERT INTO rechecks_by_rater
SELECT target_id, paper_id, 1, stars_then, rated_at, stars, rechecked_at, browser_session
FROM rechecks;

DROP TABLE rechecks;

ALTER TABLE rechecks_by_rater RENAME TO rechecks;

-- Who rates which target: a rater takes a target from `/next` (or with a first rating of it),
-- and `rated` counts their ratings of it, kept by the triggers below.
CREATE TABLE assignments (
    target_id   INTEGER NOT NULL REFERENCES papers (id),
    rater_id    INTEGER NOT NULL REFERENCES raters (id),
    rated       INTEGER NOT NULL DEFAULT 0 CHECK (rated >= 0),
    assigned_at TEXT    NOT NULL,
    PRIMARY KEY (target_id, rater_id)
) WITHOUT ROWID;

CREATE INDEX assignments_by_rater ON assignments (rater_id, target_id);

-- Per target: `needed`, the raters it needs (the plan's, and one more when it is among the
-- overlap share: the low 32 bits of its random order key below the share of 2^32, drawn once
-- with the key and independent of the order); `raters`, those who took it; `raters_done`,
-- those of them who rated every pooled pair. `rated` keeps counting the pooled pairs with a
-- rating (by anyone), `pooled` the pairs. `fully_rated`: the target's numbers may be shown.
ALTER TABLE targets ADD COLUMN needed INTEGER NOT NULL DEFAULT 1 CHECK (needed >= 1);
ALTER TABLE targets ADD COLUMN raters INTEGER NOT NULL DEFAULT 0 CHECK (raters >= 0);
ALTER TABLE targets ADD COLUMN raters_done INTEGER NOT NULL DEFAULT 0 CHECK (raters_done >= 0);
ALTER TABLE targets ADD COLUMN fully_rated INTEGER
    GENERATED ALWAYS AS (pooled > 0 AND raters >= needed AND raters_done = raters) VIRTUAL;

CREATE VIEW target_needs AS
SELECT t.target_id,
       MIN(p.per_target
               + ((t.order_key & 4294967295) < CAST(p.overlap * 4294967296 AS INTEGER)),
           p.most) AS needed
FROM targets t, rating_plan p;

INSERT INTO assignments (target_id, rater_id, rated, assigned_at)
SELECT target_id, 1, COUNT(*), MIN(rated_at) FROM ratings GROUP BY target_id;

UPDATE targets SET
    raters = (SELECT COUNT(*) FROM assignments a WHERE a.target_id = targets.target_id),
    raters_done = (SELECT COUNT(*) FROM assignments a
                   WHERE a.target_id = targets.target_id AND targets.pooled > 0
                     AND a.rated = targets.pooled);

-- A new target needs what the plan says.
CREATE TRIGGER targets_needed_on_insert AFTER INSERT ON targets
BEGIN
    UPDATE targets SET needed = (SELECT n.needed FROM target_needs n
                                 WHERE n.target_id = NEW.target_id)
    WHERE target_id = NEW.target_id;
END;

-- Counts kept on every change of a rating: the pairs rated by anyone, and the rater's own
-- ratings of the target (taking it, if they had not).
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

CREATE TRIGGER ratings_count_delete AFTER DELETE ON ratings
BEGIN
    UPDATE targets SET rated = rated - 1
    WHERE target_id = OLD.target_id
      AND NOT EXISTS (SELECT 1 FROM ratings r
                      WHERE r.target_id = OLD.target_id AND r.paper_id = OLD.paper_id);
    UPDATE assignments SET rated = rated - 1
    WHERE target_id = OLD.target_id AND rater_id = OLD.rater_id;
END;

CREATE TRIGGER assignments_insert AFTER INSERT ON assignments
BEGIN
    UPDATE targets SET raters = raters + 1,
                       raters_done = raters_done + (pooled > 0 AND NEW.rated = pooled)
    WHERE target_id = NEW.target_id;
END;

CREATE TRIGGER assignments_delete AFTER DELETE ON assignments
BEGIN
    UPDATE targets SET raters = raters - 1,
                       raters_done = raters_done - (pooled > 0 AND OLD.rated = pooled)
    WHERE target_id = OLD.target_id;
END;

CREATE TRIGGER assignments_rated AFTER UPDATE OF rated ON assignments
BEGIN
    UPDATE targets SET raters_done = raters_done + (pooled > 0 AND NEW.rated = pooled)
                                                 - (pooled > 0 AND OLD.rated = pooled)
    WHERE target_id = NEW.target_id;
END;

CREATE TRIGGER targets_pooled_raters_done AFTER UPDATE OF pooled ON targets
WHEN NEW.pooled <> OLD.pooled
BEGIN
    UPDATE targets SET raters_done = (SELECT COUNT(*) FROM assignments a
                                      WHERE a.target_id = NEW.target_id AND NEW.pooled > 0
                                        AND a.rated = NEW.pooled)
    WHERE target_id = NEW.target_id;
END;

-- The first rating of each pair by each rater, as before per pair.
CREATE TRIGGER ratings_first_rated_on_insert AFTER INSERT ON ratings
BEGIN
    UPDATE ratings SET first_rated = (
        SELECT MIN(h.id) FROM rating_history h
        WHERE h.target_id = NEW.target_id AND h.paper_id = NEW.paper_id
          AND h.rater_id = NEW.rater_id AND h.stars IS NOT NULL
    )
    WHERE target_id = NEW.target_id AND paper_id = NEW.paper_id AND rater_id = NEW.rater_id;
END;

CREATE TRIGGER rating_history_first_rating AFTER INSERT ON rating_history
WHEN NEW.stars IS NOT NULL
BEGIN
    UPDATE ratings SET first_rated = NEW.id
    WHERE target_id = NEW.target_id AND paper_id = NEW.paper_id AND rater_id = NEW.rater_id
      AND first_rated IS NULL;
END;

-- A target is unblinded once it is fully rated, now by the raters it needs.
DROP TRIGGER targets_unblinded_when_fully_rated;

CREATE TRIGGER targets_unblinded_when_fully_rated
AFTER UPDATE OF pooled, raters, raters_done, needed ON targets
WHEN NEW.unblinded_at IS NULL AND NEW.pooled > 0 AND NEW.raters >= NEW.needed
     AND NEW.raters_done = NEW.raters
BEGIN
    UPDATE targets SET unblinded_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
    WHERE target_id = NEW.target_id;
END;

DROP INDEX targets_in_rating_order;
-- The index of the random order, covering what `/next` and the evaluation read of each target.
CREATE INDEX targets_in_rating_order
    ON targets (active, order_key, target_id, rated, pooled, raters, needed);
