-- Chosen targets: a study rates the targets the researcher chooses, or (until a first choice)
-- every paper that has recommendations.

-- `all`: every paper with recommendations (or a pool) is a target to rate; `chosen`: only the
-- targets chosen explicitly.
ALTER TABLE study ADD COLUMN target_choice TEXT NOT NULL DEFAULT 'all'
    CHECK (target_choice IN ('all', 'chosen'));

-- One row per paper that is a target or could become one: it has lists, a pool, or was chosen.
-- `listed`: some model has a list for it (a candidate target).
-- `active`: it is rated now (chosen, or any candidate while the study rates all).
-- `order_key`: drawn at random once; the order in which `/next` offers targets.
-- `pooled`, `rated`: pairs in its pool, and how many of them are rated (every rating is of a
-- pooled pair). Kept up to date in the transaction of every change, so that progress never
-- needs a scan of the pool: `pooled` by the code that writes the pool (src/db/pool.rs),
-- `rated` by the triggers below.
-- `unblinded_at`: when a per-target view (which model listed which paper) first showed it;
-- a rating changed after that is made with its provenance known.
CREATE TABLE targets (
    target_id    INTEGER PRIMARY KEY REFERENCES papers (id),
    listed       INTEGER NOT NULL DEFAULT 0 CHECK (listed IN (0, 1)),
    active       INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)),
    order_key    INTEGER NOT NULL,
    pooled       INTEGER NOT NULL DEFAULT 0 CHECK (pooled >= 0),
    rated        INTEGER NOT NULL DEFAULT 0 CHECK (rated >= 0),
    unblinded_at TEXT
);

CREATE INDEX targets_in_rating_order ON targets (active, order_key, target_id, rated, pooled);

INSERT INTO targets (target_id, listed, active, order_key, pooled, rated)
SELECT p.id,
       EXISTS (SELECT 1 FROM recommendations r WHERE r.target_id = p.id),
       1,
       random(),
       (SELECT COUNT(*) FROM pool WHERE pool.target_id = p.id),
       (SELECT COUNT(*) FROM ratings r WHERE r.target_id = p.id)
FROM papers p
WHERE EXISTS (SELECT 1 FROM pool WHERE pool.target_id = p.id)
   OR EXISTS (SELECT 1 FROM recommendations r WHERE r.target_id = p.id);

CREATE TRIGGER ratings_count_insert AFTER INSERT ON ratings
BEGIN
    UPDATE targets SET rated = rated + 1 WHERE target_id = NEW.target_id;
END;

CREATE TRIGGER ratings_count_delete AFTER DELETE ON ratings
BEGIN
    UPDATE targets SET rated = rated - 1 WHERE target_id = OLD.target_id;
END;

-- Set when the change is recorded: the target had been unblinded (`targets.unblinded_at`).
ALTER TABLE rating_history ADD COLUMN provenance_known INTEGER NOT NULL DEFAULT 0
    CHECK (provenance_known IN (0, 1));
