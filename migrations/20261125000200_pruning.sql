-- Pruning (docs/metrics.md, "The verdict"): once the verdict rules a model out, the pools built
-- from then on leave its list out, so that its papers stop costing ratings.

-- Whether the study prunes (`paperjudge prune on|off`).
ALTER TABLE study ADD COLUMN pruning INTEGER NOT NULL DEFAULT 0 CHECK (pruning IN (0, 1));

-- The models pruned: ruled out by the verdict under the default settings while pruning was
-- on. A pool built now leaves their lists out. Emptied when pruning is turned off.
CREATE TABLE pruned_models (
    model_id  INTEGER PRIMARY KEY REFERENCES models (id),
    pruned_at TEXT    NOT NULL
);

-- The models whose lists a target's pool leaves out: the models pruned when its pool was
-- built. A target keeps them once it has a rating (its pool is then kept as it is), and the
-- evaluation scores such a model nowhere on that target.
CREATE TABLE pool_exclusions (
    target_id INTEGER NOT NULL REFERENCES papers (id),
    model_id  INTEGER NOT NULL REFERENCES models (id),
    PRIMARY KEY (target_id, model_id)
) WITHOUT ROWID;
