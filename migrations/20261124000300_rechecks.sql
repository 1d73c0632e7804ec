-- Re-checks: an already rated pair shown again, blind and without its rating, to measure how
-- consistent the rater is with themselves. The answer is kept here, apart from `ratings`,
-- which a re-check never changes. One re-check per pair: the first answer counts, so that a
-- second tab or a repeated post cannot weigh a pair twice.
-- `stars_then`: the pair's rating when it was re-checked; `rated_at`: when that rating was
-- made (`ratings.rated_at`), which places it in its sitting; `stars`: the new answer.
CREATE TABLE rechecks (
    target_id       INTEGER NOT NULL REFERENCES papers (id),
    paper_id        INTEGER NOT NULL REFERENCES papers (id),
    stars_then      INTEGER NOT NULL CHECK (stars_then BETWEEN 1 AND 5),
    rated_at        TEXT    NOT NULL,
    stars           INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
    rechecked_at    TEXT    NOT NULL,
    browser_session TEXT,
    PRIMARY KEY (target_id, paper_id)
) WITHOUT ROWID;
